// AscendOptimizer simulator (host side): the SoftMax family's tiling API -- the host tiling class
// optiling::SoftMaxTiling and, in namespace AscendC, Get{SoftMax,SoftMaxGrad,SoftMaxFlashV2}
// {Min,Max}TmpSize and SoftMaxTilingFunc / SoftMaxGradTilingFunc / SoftMaxFlashV2TilingFunc.
// Names and signatures follow the public AscendC documentation ("SoftMax Tiling", "SoftmaxGrad
// Tiling", "SoftmaxFlashV2 Tiling"). The shape [m0, ..., mt, k] is taken as [m, k] (m the product
// of the leading dimensions).
//
// The sizes are the simulator's own estimate of the library's temporary space: the kernel-side
// emulation computes in its own memory and needs none, so only their order matters (min covers
// one row, max every row): a row needs k floats (the widened row) plus one 32-byte block (its
// reduction), twice for the flash forms (exp and the update). The tiling splits the rows into
// chunks of splitM rows that fit `localWorkSpaceSize` bytes: rangeM whole chunks and a tail of
// tailM rows; reductions are [rows, 8] floats (one 32-byte block per row).
#pragma once
#include <algorithm>
#include <cstdint>

#include "ascendopt_kernel/softmax_tiling_fields.h"
#include "graph/types.h"
#include "register/tilingdata_base.h"

namespace optiling {
#define AO_SOFTMAX_HOST_FIELD(name) TILING_DATA_FIELD_DEF(uint32_t, name)
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
AO_SOFTMAX_TILING_FIELDS(AO_SOFTMAX_HOST_FIELD)
END_TILING_DATA_DEF;
#undef AO_SOFTMAX_HOST_FIELD
}  // namespace optiling

namespace AscendC {
namespace ao_softmax {
inline void RowsCols(const ge::Shape& s, uint64_t& m, uint64_t& k) {
    size_t n = s.GetDimNum();
    k = n > 0 ? uint64_t(std::max<int64_t>(s.GetDim(n - 1), 0)) : 0;
    m = 1;
    for (size_t i = 0; i + 1 < n; ++i) m *= uint64_t(std::max<int64_t>(s.GetDim(i), 0));
}
using ao::softmax::RowBytes;  // bytes of temporary space one row needs
inline uint32_t MinTmp(const ge::Shape& s, uint32_t copies) {
    uint64_t m, k;
    RowsCols(s, m, k);
    return m == 0 || k == 0 ? 0 : uint32_t(RowBytes(k, copies));
}
inline uint32_t MaxTmp(const ge::Shape& s, uint32_t copies) {
    uint64_t m, k;
    RowsCols(s, m, k);
    return uint32_t(std::min<uint64_t>(m * RowBytes(k, copies), UINT32_MAX));
}
inline void Fill(const ge::Shape& s, uint32_t dataTypeSize, uint32_t localWorkSpaceSize, uint32_t copies,
                 optiling::SoftMaxTiling& t) {
    uint64_t m, k;
    RowsCols(s, m, k);
    if (m == 0 || k == 0 || dataTypeSize == 0) return;
    const ao::softmax::Plan p = ao::softmax::MakePlan(m, k, dataTypeSize, localWorkSpaceSize, copies);
    int i = 0;
#define AO_SOFTMAX_SET(name) t.set_##name(p.v[i++]);
    AO_SOFTMAX_TILING_FIELDS(AO_SOFTMAX_SET)
#undef AO_SOFTMAX_SET
}
}  // namespace ao_softmax

inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t, const bool) {
    return ao_softmax::MinTmp(srcShape, 1);
}
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t, const bool) {
    return ao_softmax::MaxTmp(srcShape, 1);
}
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              optiling::SoftMaxTiling& softmaxTiling) {
    ao_softmax::Fill(srcShape, dataTypeSize, localWorkSpaceSize, 1, softmaxTiling);
}

inline uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, const uint32_t, const bool, const bool) {
    return ao_softmax::MinTmp(srcShape, 1);
}
inline uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, const uint32_t, const bool, const bool) {
    return ao_softmax::MaxTmp(srcShape, 1);
}
inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    (void)isFront;
    ao_softmax::Fill(srcShape, dataTypeSize, localWorkSpaceSize, 1, softmaxGradTiling);
}

inline uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& srcShape, const uint32_t, const uint32_t, const bool,
                                            const bool = false, const bool = false) {
    return ao_softmax::MinTmp(srcShape, 2);
}
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape, const uint32_t, const uint32_t, const bool,
                                            const bool = false, const bool = false) {
    return ao_softmax::MaxTmp(srcShape, 2);
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t,
                                     const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxFlashTiling,
                                     const bool, const bool = false, const bool = false) {
    ao_softmax::Fill(srcShape, dataTypeSize1, localWorkSpaceSize, 2, softmaxFlashTiling);
}
}  // namespace AscendC
