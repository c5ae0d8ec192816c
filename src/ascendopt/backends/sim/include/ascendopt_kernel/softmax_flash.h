// AscendOptimizer simulator: SoftmaxFlashV2 (ND) and its kernel-side tiling functions.
// Clean-room emulation of the documented semantics (AscendC docs, SoftmaxFlashV2): src is
// [m, k] (the shape from softmaxShapeInfo, or from the tiling when it is empty; k a 32-byte
// multiple, the reductions over the oriSrcK real columns), per row
//   isUpdate false:  max = max_j x, dst = exp(x - max), sum = sum_j dst;
//   isUpdate true:   max = max(inMax, max_j x), dst = exp(x - max), expMax = exp(inMax - max),
//                    sum = expMax * inSum + sum_j dst.
// max / sum / expMax and the inputs inMax / inSum are one 32-byte block per row (the block
// repeats the value), or one value per row with SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC. Outputs
// may share the inputs' buffers (each row's inputs are read before it is written). Mixed form:
// half data with float statistics. Timed as the library's vector steps (reducemax, broadcast,
// [max, sub, exp], sub, exp, reducesum, broadcast, [mul, add]).
// SoftMaxFlashV2TilingFunc / SoftMaxFlashV2TilingFuncImpl compute a SoftMaxTiling in the kernel
// with the host functions' plan (softmax_tiling_fields.h).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "ascendopt_kernel/softmax.h"

namespace ao::k {

template <typename T1, typename T2, typename TE, bool isUpdate, bool isDataFormatNZ, const AscendC::SoftmaxConfig& config>
inline void SoftmaxFlashV2Run(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>& sumT,
                              const AscendC::LocalTensor<T2>& maxT, const AscendC::LocalTensor<T1>& src,
                              const AscendC::LocalTensor<TE>& expMaxT, const AscendC::LocalTensor<T2>& inSumT,
                              const AscendC::LocalTensor<T2>& inMaxT, const AscendC::LocalTensor<uint8_t>* tmp,
                              const SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& shape) {
    const char* name = "SoftmaxFlashV2";
    if constexpr (!kIsHalfOrFloat<T1>) AoUnsupported(name, TypeName<T1>());
    if constexpr (!kIsHalfOrFloat<T2>) AoUnsupported(name, TypeName<T2>());
    if constexpr (isDataFormatNZ)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "SoftmaxFlashV2: the NZ data format is not emulated (ND only)");
    const bool fromShape = shape.srcM != 0 || shape.srcK != 0;
    const uint64_t m = fromShape ? shape.srcM : tiling.srcM, k = fromShape ? shape.srcK : tiling.srcK;
    uint64_t kr = fromShape && shape.oriSrcK != 0 && shape.oriSrcK < k ? shape.oriSrcK : k;
    if (config.oriSrcK != 0 && config.oriSrcK < k) kr = config.oriSrcK;
    if (m == 0 || k == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "SoftmaxFlashV2: empty shape (srcM %llu, srcK %llu)",
                     (unsigned long long)m, (unsigned long long)k);
    if ((k * sizeof(T1)) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned,
                     "SoftmaxFlashV2: srcK %llu x %u bytes is not a multiple of 32 bytes", (unsigned long long)k,
                     unsigned(sizeof(T1)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    const bool brc = config.mode != AscendC::SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC;
    const uint64_t n = m * k, blk = brc ? 32 / sizeof(T2) : 1, eblk = brc ? 32 / sizeof(TE) : 1;
    ao::rt::Access sA = src.Range(0, n, false, name), dA = dst.Range(0, n, true, name);
    ao::rt::Access sumA = sumT.Range(0, m * blk, true, name), maxA = maxT.Range(0, m * blk, true, name);
    ao::rt::Access eA{}, isA{}, imA{}, tA{};
    if constexpr (isUpdate) {
        eA = expMaxT.Range(0, m * eblk, true, name);
        isA = inSumT.Range(0, m * blk, false, name);
        imA = inMaxT.Range(0, m * blk, false, name);
    }
    if (tmp) tA = tmp->RangeBytes(0, std::min<uint64_t>(tmp->GetSize(), n * 4), true, name);
    auto reps = [](uint64_t bytes) { return uint32_t((bytes + 255) / 256); };
    const uint32_t R = reps(n * sizeof(T1)), Rs = reps(m * 32);
    ao::rt::LibSteps steps;
    auto step = [&](const char* op, ao::rt::OpClass cls, uint32_t repeats, std::initializer_list<ao::rt::Access> acc) {
        steps.Next();
        ao::rt::Instr ins = VecInstr(op, cls, sizeof(T1), repeats, n);
        for (const auto& a : acc)
            if (a.end > a.begin) ins.Add(a);
        ao::rt::Issue(ins);
    };
    step("ReduceMax", ao::rt::OpClass::VecReduce, R, {sA, tA});
    step("Brcb", ao::rt::OpClass::VecElementwise, Rs, {maxA, tA, imA});
    if constexpr (isUpdate) step("Exp", ao::rt::OpClass::VecTranscend, Rs, {eA, imA, maxA});
    step("Sub", ao::rt::OpClass::VecElementwise, R, {dA, sA, maxA});
    step("Exp", ao::rt::OpClass::VecTranscend, R, {dA});
    step("ReduceSum", ao::rt::OpClass::VecReduce, R, {dA, tA});
    step("Brcb", ao::rt::OpClass::VecElementwise, Rs, {sumA, tA, isA, eA});
    std::vector<float> row(k);
    for (uint64_t r = 0; r < m; ++r) {
        const T1* S = src.Data() + r * k;
        for (uint64_t j = 0; j < k; ++j) row[j] = ToF32(S[j]);
        float mx = row[0];
        for (uint64_t j = 1; j < kr; ++j) mx = std::max(mx, row[j]);
        float inMax = 0.0f, inSum = 0.0f, expMax = 1.0f;
        if constexpr (isUpdate) {
            inMax = ToF32(inMaxT.Data()[r * blk]);
            inSum = ToF32(inSumT.Data()[r * blk]);
            mx = std::max(mx, inMax);
            expMax = ToF32(FromF32<TE>(std::exp(inMax - mx)));
        }
        const float mxT = ToF32(FromF32<T2>(mx));
        float s = 0.0f;
        for (uint64_t j = 0; j < k; ++j) {
            float e = ToF32(FromF32<T1>(std::exp(ToF32(FromF32<T1>(row[j] - mxT)))));
            dst.Data()[r * k + j] = FromF32<T1>(e);
            if (j < kr) s += e;
        }
        if constexpr (isUpdate) s = expMax * inSum + s;
        for (uint64_t b = 0; b < blk; ++b) {
            sumT.Data()[r * blk + b] = FromF32<T2>(s);
            maxT.Data()[r * blk + b] = FromF32<T2>(mx);
        }
        if constexpr (isUpdate)
            for (uint64_t b = 0; b < eblk; ++b) expMaxT.Data()[r * eblk + b] = FromF32<TE>(expMax);
    }
}

}  // namespace ao::k

namespace AscendC {

// Same type for data and statistics.
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                                      const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                                      const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                                      const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                                      const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftmaxFlashV2Run<T, T, T, isUpdate, isDataFormatNZ, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling,
        softmaxShapeInfo);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                                      const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                                      const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                                      const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                      const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftmaxFlashV2Run<T, T, T, isUpdate, isDataFormatNZ, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer,
        tiling, softmaxShapeInfo);
}
// Half data with float statistics (expMax in the data type).
template <typename T1, typename T2, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename std::enable_if<!std::is_same<T1, T2>::value, int>::type = 0>
__aicore__ inline void SoftmaxFlashV2(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& expSumTensor,
                                      const LocalTensor<T2>& maxTensor, const LocalTensor<T1>& srcTensor,
                                      const LocalTensor<T1>& expMaxTensor, const LocalTensor<T2>& inExpSumTensor,
                                      const LocalTensor<T2>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                      const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftmaxFlashV2Run<T1, T2, T1, isUpdate, isDataFormatNZ, config>(
        dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer,
        tiling, softmaxShapeInfo);
}

// Kernel-side tiling: the host functions' plan for the given shape (two widened rows per row).
__aicore__ inline constexpr SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(
    const uint32_t srcM, const uint32_t srcK, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
    const uint32_t localWorkSpaceSize, const bool isUpdate = false, const bool isBasicBlock = false,
    const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    (void)dataTypeSize2, (void)isUpdate, (void)isBasicBlock, (void)isDataFormatNZ, (void)isFlashOutputBrc;
    const ao::softmax::Plan p = ao::softmax::MakePlan(srcM, srcK, dataTypeSize1, localWorkSpaceSize, 2);
    SoftMaxTiling t{};
    int i = 0;
#define AO_SOFTMAX_KSET(name) t.name = p.v[i++];
    AO_SOFTMAX_TILING_FIELDS(AO_SOFTMAX_KSET)
#undef AO_SOFTMAX_KSET
    return t;
}
__aicore__ inline constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(
    const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
    const uint32_t localWorkSpaceSize, const bool isUpdate = false, const bool isBasicBlock = false,
    const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    return SoftMaxFlashV2TilingFuncImpl(shapeInfo.srcM, shapeInfo.srcK, dataTypeSize1, dataTypeSize2,
                                        localWorkSpaceSize, isUpdate, isBasicBlock, isDataFormatNZ, isFlashOutputBrc);
}

}  // namespace AscendC
