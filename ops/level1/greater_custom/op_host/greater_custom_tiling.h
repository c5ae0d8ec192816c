/**
 * @file greater_custom_tiling.h
 * Tiling data of GreaterCustom: elementwise split over cores (32-byte blocks) and UB tiles.
 */
#ifndef GREATER_CUSTOM_TILING_H
#define GREATER_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GreaterCustomTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, smallCoreDataNum);   // elements of a small core
    TILING_DATA_FIELD_DEF(uint32_t, bigCoreDataNum);     // elements of a big core (one block more)
    TILING_DATA_FIELD_DEF(uint32_t, lastCoreDataNum);    // elements of the last core (unpadded)
    TILING_DATA_FIELD_DEF(uint32_t, tileDataNum);        // elements of one full UB tile
    TILING_DATA_FIELD_DEF(uint32_t, smallTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, bigTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, lastTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, smallTailDataNum);   // elements of the last tile of a small core
    TILING_DATA_FIELD_DEF(uint32_t, bigTailDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, lastTailDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, tailBlockNum);       // number of big cores (they come first)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GreaterCustom, GreaterCustomTilingData)
}  // namespace optiling
#endif  // GREATER_CUSTOM_TILING_H
