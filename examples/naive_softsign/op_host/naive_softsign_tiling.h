/**
 * @file naive_softsign_tiling.h
 * Tiling data of NaiveSoftsign: only the element count (one core does everything).
 */
#ifndef NAIVE_SOFTSIGN_TILING_H
#define NAIVE_SOFTSIGN_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NaiveSoftsignTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements of x
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(NaiveSoftsign, NaiveSoftsignTilingData)
}  // namespace optiling
#endif  // NAIVE_SOFTSIGN_TILING_H
