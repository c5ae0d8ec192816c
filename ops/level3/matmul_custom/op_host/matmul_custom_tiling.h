/**
 * @file matmul_custom_tiling.h
 * Tiling data of MatmulCustom: c[M, N] (float) = a[M, K] (float16) x b[K, N] (float16).
 */
#ifndef MATMUL_CUSTOM_TILING_H
#define MATMUL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, M);
TILING_DATA_FIELD_DEF(uint32_t, N);
TILING_DATA_FIELD_DEF(uint32_t, K);
TILING_DATA_FIELD_DEF(uint32_t, baseM);       // rows of one output block (multiple of 16)
TILING_DATA_FIELD_DEF(uint32_t, baseN);       // columns of one output block (multiple of 16)
TILING_DATA_FIELD_DEF(uint32_t, baseK);       // K slice moved to L0A/L0B per Mmad (multiple of 16)
TILING_DATA_FIELD_DEF(uint32_t, stepK);       // K slices per GM -> L1 copy
TILING_DATA_FIELD_DEF(uint32_t, mBlocks);     // ceil(M / baseM)
TILING_DATA_FIELD_DEF(uint32_t, nBlocks);     // ceil(N / baseN)
TILING_DATA_FIELD_DEF(uint32_t, l1BufNum);    // buffers of the A1/B1 queues (1 or 2)
TILING_DATA_FIELD_DEF(uint32_t, l0BufNum);    // buffers of the A2/B2 queues (1 or 2)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulCustom, MatmulCustomTilingData)
}  // namespace optiling
#endif  // MATMUL_CUSTOM_TILING_H
