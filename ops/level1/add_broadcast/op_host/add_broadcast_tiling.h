/**
 * @file add_broadcast_tiling.h
 * Tiling data of AddBroadcast: z = x + y with y broadcast along the leading axes of x.
 *
 * Tiling keys:
 *   0  same shape: flat elementwise split (the *DataNum / *TileNum / *TailDataNum fields);
 *   1  row broadcast, y resident in UB: rows of x split over cores, rowsPerTile rows per tile;
 *   2  column split: the columns (y's elements) split over cores, colTile columns per tile,
 *      every row of x streamed past each y chunk.
 */
#ifndef ADD_BROADCAST_TILING_H
#define ADD_BROADCAST_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddBroadcastTilingData)
    // key 0: flat split
    TILING_DATA_FIELD_DEF(uint32_t, smallCoreDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, bigCoreDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, lastCoreDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, tileDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, smallTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, bigTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, lastTileNum);
    TILING_DATA_FIELD_DEF(uint32_t, smallTailDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, bigTailDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, lastTailDataNum);
    TILING_DATA_FIELD_DEF(uint32_t, tailBlockNum);       // big cores (all keys)
    // keys 1 and 2: x viewed as [rows, cols], y as [cols]
    TILING_DATA_FIELD_DEF(uint32_t, rows);
    TILING_DATA_FIELD_DEF(uint32_t, cols);
    TILING_DATA_FIELD_DEF(uint32_t, colsAligned);        // UB row pitch (cols rounded up to 32 bytes)
    // key 1
    TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
    TILING_DATA_FIELD_DEF(uint32_t, smallCoreRows);
    TILING_DATA_FIELD_DEF(uint32_t, bigCoreRows);
    // key 2
    TILING_DATA_FIELD_DEF(uint32_t, colTile);
    TILING_DATA_FIELD_DEF(uint32_t, smallCoreCols);
    TILING_DATA_FIELD_DEF(uint32_t, bigCoreCols);
    TILING_DATA_FIELD_DEF(uint32_t, lastCoreCols);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddBroadcast, AddBroadcastTilingData)
}  // namespace optiling
#endif  // ADD_BROADCAST_TILING_H
