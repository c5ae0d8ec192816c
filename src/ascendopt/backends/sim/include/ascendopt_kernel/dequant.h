// AscendOptimizer simulator: the AscendDequant high-level API (lib/quantization), clean-room
// emulation of its documented behaviour:
//   - DequantParams {m, n, calCount}: src (int32) is m rows of n elements; in each row the first
//     calCount elements are multiplied by deqScale (a scalar, or element i of a scale vector) in
//     float and converted to dstT; dst rows are n_dst = n rounded up to 32 bytes of dstT long, and
//     dst elements past calCount in a row are left as they were (the docs: undefined);
//   - DeQuantMode::DEQUANT_WITH_SINGLE_ROW (the default): {1, n, calCount} with calCount a multiple
//     of 32 / sizeof(dstT) and n % calCount == 0 is computed as {n / calCount, calCount, calCount};
//   - a shared temporary buffer is accepted (not needed here); the forms without DequantParams
//     take one row of calCount (or all of src's) elements.
// Timed as three vector passes (two conversions and a multiply) over the computed elements.
#pragma once
#include "ascendopt_kernel/vector_core.h"

namespace AscendC {

enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };

struct DequantParams {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
};

}  // namespace AscendC

namespace ao::k {

template <typename DstT, AscendC::DeQuantMode mode, typename ScaleOf>
inline void Dequant(const LocalTensor<DstT>& dst, const LocalTensor<int32_t>& src, AscendC::DequantParams p,
                    ScaleOf scaleOf, const ao::rt::Access* scaleRange) {
    const char* name = "AscendDequant";
    constexpr uint32_t perBlock = 32 / sizeof(DstT);
    if (mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount % perBlock == 0 &&
        p.calCount > 0 && p.n % p.calCount == 0)
        p = AscendC::DequantParams{p.n / p.calCount, p.calCount, p.calCount};
    if (p.calCount == 0 || p.calCount > p.n || p.n * sizeof(int32_t) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: DequantParams {m %u, n %u, calCount %u}: n * 4 bytes must "
                     "be 32-byte aligned and 1 <= calCount <= n", name, p.m, p.n, p.calCount);
    uint64_t nDst = (uint64_t(p.n) + perBlock - 1) / perBlock * perBlock;
    uint64_t elems = uint64_t(p.m) * p.calCount;
    ao::rt::LibSteps steps;
    for (int pass = 0; pass < 3; ++pass) {
        steps.Next();
        ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecElementwise, 4, uint32_t((elems + 63) / 64), elems);
        for (uint32_t r = 0; r < p.m; ++r) {
            ins.Add(src.Range(uint64_t(r) * p.n, p.calCount, false, name));
            ins.Add(dst.Range(uint64_t(r) * nDst, p.calCount, true, name));
        }
        if (scaleRange != nullptr) ins.Add(*scaleRange);
        ao::rt::Issue(ins);
    }
    const int32_t* S = src.Data();
    DstT* D = dst.Data();
    for (uint32_t r = 0; r < p.m; ++r)
        for (uint32_t i = 0; i < p.calCount; ++i)
            D[uint64_t(r) * nDst + i] = FromF32<DstT>(float(S[uint64_t(r) * p.n + i]) * scaleOf(i));
}

}  // namespace ao::k

namespace AscendC {

template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const LocalTensor<scaleT>& deqScale, DequantParams params) {
    ao::rt::Access range = deqScale.Range(0, params.calCount, false, "AscendDequant");
    const scaleT* s = deqScale.Data();
    ao::k::Dequant<dstT, mode>(dstTensor, srcTensor, params, [&](uint32_t i) { return ao::k::ToF32(s[i]); }, &range);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>&,
                                     DequantParams params) {
    AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, params);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const scaleT deqScale, DequantParams params) {
    float s = ao::k::ToF32(deqScale);
    ao::k::Dequant<dstT, mode>(dstTensor, srcTensor, params, [s](uint32_t) { return s; }, nullptr);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const scaleT deqScale, const LocalTensor<uint8_t>&, DequantParams params) {
    AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, params);
}
// Older forms: one row of calCount elements (all of src's without a count).
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>&,
                                     const uint32_t calCount) {
    AscendDequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(dstTensor, srcTensor, deqScale,
                                                                    DequantParams{1, calCount, calCount});
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const LocalTensor<scaleT>& deqScale, const uint32_t calCount) {
    AscendDequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(dstTensor, srcTensor, deqScale,
                                                                    DequantParams{1, calCount, calCount});
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
__aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                                     const LocalTensor<scaleT>& deqScale) {
    uint32_t n = uint32_t(srcTensor.GetSize());
    AscendDequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(dstTensor, srcTensor, deqScale,
                                                                    DequantParams{1, n, n});
}

}  // namespace AscendC
