// AscendOptimizer simulator: the high-level SoftMax (ND) of the kernel side with its SoftMaxTiling
// structure (as the device build's kernel_tiling.h declares it, at global scope), SoftMaxShapeInfo
// and SoftmaxConfig. Clean-room emulation of the documented semantics:
//   - src is [m, k] (m = srcM, k = srcK, a 32-byte multiple); per row: max, exp(x - max), sum,
//     dst = exp / sum; sum and max are written as [m, one 32-byte block] (the block repeats the
//     row's value), in their own type (half src with float sum/max is the mixed form);
//   - the shape comes from softmaxShapeInfo, or from the tiling when it is left empty; when
//     oriSrcK is smaller than srcK the reductions cover the oriSrcK real columns (the rest is
//     alignment padding) and every one of the k columns is written;
//   - the tiling only splits the work on the device: results do not depend on it.
// Timed as the library's vector steps over the data: reducemax, broadcast, sub, exp, reducesum,
// broadcast, div (reductions reduce-class, exp and div transcendental-class).
#pragma once
#include <cmath>
#include <vector>

#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"
#include "ascendopt_kernel/softmax_tiling_fields.h"

#define AO_SOFTMAX_KERNEL_FIELD(name) uint32_t name = 0;
struct SoftMaxTiling {
    AO_SOFTMAX_TILING_FIELDS(AO_SOFTMAX_KERNEL_FIELD)
};
#undef AO_SOFTMAX_KERNEL_FIELD

namespace AscendC {

using ::SoftMaxTiling;

struct SoftMaxShapeInfo {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

}  // namespace AscendC

namespace ao::k {

template <typename T1, typename T2, bool isDataFormatNZ>
inline void SoftMaxRun(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>* sum,
                       const AscendC::LocalTensor<T2>* max, const AscendC::LocalTensor<T1>& src,
                       const AscendC::LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling,
                       const AscendC::SoftMaxShapeInfo& shape) {
    const char* name = "SoftMax";
    if constexpr (!kIsHalfOrFloat<T1>) AoUnsupported(name, TypeName<T1>());
    if constexpr (!kIsHalfOrFloat<T2>) AoUnsupported(name, TypeName<T2>());
    if constexpr (isDataFormatNZ)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "SoftMax: the NZ data format is not emulated (ND only)");
    const bool fromShape = shape.srcM != 0 || shape.srcK != 0;
    const uint64_t m = fromShape ? shape.srcM : tiling.srcM, k = fromShape ? shape.srcK : tiling.srcK;
    uint64_t kr = fromShape && shape.oriSrcK != 0 && shape.oriSrcK < k ? shape.oriSrcK : k;
    if (m == 0 || k == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "SoftMax: empty shape (srcM %llu, srcK %llu)",
                     (unsigned long long)m, (unsigned long long)k);
    if ((k * sizeof(T1)) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "SoftMax: srcK %llu x %u bytes is not a multiple of 32 bytes",
                     (unsigned long long)k, unsigned(sizeof(T1)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    const uint64_t n = m * k, blk = 32 / sizeof(T2);
    ao::rt::Access sA = src.Range(0, n, false, name), dA = dst.Range(0, n, true, name);
    ao::rt::Access sumA{}, maxA{}, tA{};
    if (sum) {
        CheckLocalAligned(*sum, name);
        CheckLocalAligned(*max, name);
        sumA = sum->Range(0, m * blk, true, name);
        maxA = max->Range(0, m * blk, true, name);
    }
    if (tmp) tA = tmp->RangeBytes(0, std::min<uint64_t>(tmp->GetSize(), n * 4), true, name);
    auto reps = [](uint64_t bytes) { return uint32_t((bytes + 255) / 256); };
    const uint32_t R = reps(n * sizeof(T1));
    ao::rt::LibSteps steps;
    auto step = [&](const char* op, ao::rt::OpClass cls, uint32_t repeats, std::initializer_list<ao::rt::Access> acc) {
        steps.Next();
        ao::rt::Instr ins = VecInstr(op, cls, sizeof(T1), repeats, n);
        for (const auto& a : acc)
            if (a.end > a.begin) ins.Add(a);
        ao::rt::Issue(ins);
    };
    ao::rt::Access dR = dA;
    dR.write = false;
    step("ReduceMax", ao::rt::OpClass::VecReduce, R, {sA, tA});
    step("Brcb", ao::rt::OpClass::VecElementwise, reps(m * 32), {maxA, tA});
    step("Sub", ao::rt::OpClass::VecElementwise, R, {dA, sA, tA});
    step("Exp", ao::rt::OpClass::VecTranscend, R, {dA, dR});
    step("ReduceSum", ao::rt::OpClass::VecReduce, R, {dR, tA});
    step("Brcb", ao::rt::OpClass::VecElementwise, reps(m * 32), {sumA, tA});
    step("Div", ao::rt::OpClass::VecTranscend, R, {dA, dR, tA});
    const T1* S = src.Data();
    std::vector<float> row(k);
    for (uint64_t r = 0; r < m; ++r) {
        float mx = ToF32(S[r * k]);
        for (uint64_t j = 1; j < kr; ++j) mx = std::max(mx, ToF32(S[r * k + j]));
        // Intermediates in the source type, as the vector steps keep them.
        float s = 0.0f;
        for (uint64_t j = 0; j < k; ++j) {
            float e = ToF32(FromF32<T1>(std::exp(ToF32(FromF32<T1>(ToF32(S[r * k + j]) - mx)))));
            row[j] = e;
            if (j < kr) s += e;
        }
        float sT = ToF32(FromF32<T2>(s));
        for (uint64_t j = 0; j < k; ++j) dst.Data()[r * k + j] = FromF32<T1>(row[j] / sT);
        if (sum)
            for (uint64_t b = 0; b < blk; ++b) {
                sum->Data()[r * blk + b] = FromF32<T2>(s);
                max->Data()[r * blk + b] = FromF32<T2>(mx);
            }
    }
}

}  // namespace ao::k

namespace AscendC {

// sum/max of the source type.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                               const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                               const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
                                            softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                               const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                               const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling,
                                            softmaxShapeInfo);
}
// sum/max of another type (half data, float statistics).
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& sumTensor,
                               const LocalTensor<T2>& maxTensor, const LocalTensor<T1>& srcTensor,
                               const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T1, T2, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
                                              softmaxShapeInfo);
}
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& sumTensor,
                               const LocalTensor<T2>& maxTensor, const LocalTensor<T1>& srcTensor,
                               const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T1, T2, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, &sharedTmpBuffer, tiling,
                                              softmaxShapeInfo);
}
// Without sum/max outputs.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                               const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T, T, isDataFormatNZ>(dstTensor, nullptr, nullptr, srcTensor, nullptr, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                               const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftMaxRun<T, T, isDataFormatNZ>(dstTensor, nullptr, nullptr, srcTensor, &sharedTmpBuffer, tiling,
                                            softmaxShapeInfo);
}

}  // namespace AscendC
