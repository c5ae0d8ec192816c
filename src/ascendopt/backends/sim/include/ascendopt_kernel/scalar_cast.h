// AscendOptimizer simulator: the scalar Cast<T, U, roundMode>(value) of the scalar-computation
// APIs (float -> half with CAST_ODD; float -> int32_t with CAST_ROUND / CAST_CEIL / CAST_FLOOR /
// CAST_RINT, the documented combinations) and its former name ScalarCast. The conversion is the
// one the vector Cast applies to each element.
#pragma once
#include "ascendopt_kernel/vector_cast.h"

namespace AscendC {

template <typename T, typename U, RoundMode roundMode>
__aicore__ inline U Cast(T valueIn) {
    static_assert(std::is_same_v<T, float>, "scalar Cast: the value must be a float");
    static_assert((std::is_same_v<U, half> && roundMode == RoundMode::CAST_ODD) ||
                      (std::is_same_v<U, int32_t> &&
                       (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                        roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT)),
                  "scalar Cast: float -> half (CAST_ODD) or float -> int32_t (CAST_ROUND/CEIL/FLOOR/RINT)");
    return ao::k::CastOne<U>(ao::k::WidenLD(valueIn), roundMode);
}
template <typename T, typename U, RoundMode roundMode>
__aicore__ inline U ScalarCast(T valueIn) {
    return Cast<T, U, roundMode>(valueIn);
}

}  // namespace AscendC
