// AscendOptimizer simulator (host side): the temporary-space queries of the math library APIs
// (documented signatures): GetSigmoidMaxMinTmpSize, GetTanhMaxMinTmpSize, GetMeanMaxMinTmpSize.
// The kernel-side emulation of these APIs needs no temporary space (it computes in host
// floats), so the sizes only have to be what a tiling can plan with: the minimum is one
// 256-byte repeat of float working data per intermediate, the maximum the whole source in
// float per intermediate (a half source is worked on in float: twice the intermediates'
// bytes). Tilings compare them against the UB; no emulated kernel reads them.
#pragma once
#include <cstdint>

#include "graph/types.h"

namespace AscendC {
namespace ao_math_tmp {
inline uint32_t Align32(uint64_t bytes) { return uint32_t((bytes + 31) / 32 * 32); }
// intermediates: float buffers the library keeps per element.
inline void Range(uint64_t count, uint32_t typeSize, uint32_t intermediates, uint32_t& maxValue,
                  uint32_t& minValue) {
    uint32_t perElem = 4 * intermediates * (typeSize == 2 ? 2 : 1);
    minValue = 256 / 4 * perElem;
    uint32_t whole = Align32(count * perElem);
    maxValue = whole > minValue ? whole : minValue;
}
inline uint64_t Count(const ge::Shape& s) {
    uint64_t n = 1;
    for (size_t i = 0; i < s.GetDimNum(); ++i) n *= uint64_t(s.GetDim(i) < 0 ? 0 : s.GetDim(i));
    return n;
}
}  // namespace ao_math_tmp

inline void GetSigmoidMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    ao_math_tmp::Range(ao_math_tmp::Count(srcShape), typeSize, isReuseSource && typeSize == 4 ? 0 : 1, maxValue,
                       minValue);
}
inline void GetTanhMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                 uint32_t& maxValue, uint32_t& minValue) {
    ao_math_tmp::Range(ao_math_tmp::Count(srcShape), typeSize, isReuseSource && typeSize == 4 ? 1 : 2, maxValue,
                       minValue);
}
// Mean over rows of n elements: one row in the accumulation type plus a block of partial sums.
inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize,
                                 const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    uint32_t acc = accTypeSize ? accTypeSize : srcTypeSize;
    minValue = ao_math_tmp::Align32(uint64_t(n) * acc) + 32;
    maxValue = minValue;
}
}  // namespace AscendC
