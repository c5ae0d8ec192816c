/**
 * @file reduce_max_last_tiling.h
 * Tiling data of ReduceMaxLast: y[r] = max over the last axis of x[r, :].
 */
#ifndef REDUCE_MAX_LAST_TILING_H
#define REDUCE_MAX_LAST_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceMaxLastTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);           // product of all leading axes
TILING_DATA_FIELD_DEF(uint32_t, cols);           // length of the reduced (last) axis
TILING_DATA_FIELD_DEF(uint32_t, alignCols);      // cols rounded up to one 32-byte block of x
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);     // the first bigCoreNum cores take one extra row
TILING_DATA_FIELD_DEF(uint32_t, bigCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);    // rows moved per DMA / UB tile
TILING_DATA_FIELD_DEF(uint32_t, groupRows);      // rows handled by one repeated vector instruction
TILING_DATA_FIELD_DEF(uint32_t, batchRows);      // 1: fold columns with row-strided repeats, 0: per-row halving
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceMaxLast, ReduceMaxLastTilingData)
}  // namespace optiling
#endif  // REDUCE_MAX_LAST_TILING_H
