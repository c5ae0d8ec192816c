/**
 * @file log_softmax_last_tiling.h
 * Tiling data of LogSoftmaxLast: y = log_softmax(x) over the last axis.
 */
#ifndef LOG_SOFTMAX_LAST_TILING_H
#define LOG_SOFTMAX_LAST_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LogSoftmaxLastTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);           // product of all leading axes
TILING_DATA_FIELD_DEF(uint32_t, cols);           // length of the normalized (last) axis
TILING_DATA_FIELD_DEF(uint32_t, alignCols);      // cols rounded up to one 32-byte block of x
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);     // the first bigCoreNum cores take one extra row
TILING_DATA_FIELD_DEF(uint32_t, bigCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);    // rows moved per DMA / UB tile
TILING_DATA_FIELD_DEF(uint32_t, groupRows);      // rows handled by one repeated vector instruction
TILING_DATA_FIELD_DEF(uint32_t, batchRows);      // 1: row-strided repeats, 0: row-by-row reductions
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LogSoftmaxLast, LogSoftmaxLastTilingData)
}  // namespace optiling
#endif  // LOG_SOFTMAX_LAST_TILING_H
