// AscendOptimizer simulator: the high-level SoftmaxGrad (ND) of the kernel side. Clean-room
// emulation of the documented semantics (AscendC docs, SoftmaxGrad): the tensors are [m, k]
// (k a 32-byte multiple; the shape from softmaxShapeInfo, or from the tiling when it is empty);
// per row d = sum_j(grad * src);
//   isFront:  dst is [m, one 32-byte block] holding d (the block repeats it);
//   otherwise dst = (grad - d) * src.
// Computed in float, intermediates rounded to T as the vector steps keep them; the tiling only
// splits the work on the device. Timed as the library's vector steps: mul, reducesum, broadcast,
// then (not isFront) sub and mul.
#pragma once
#include <vector>

#include "ascendopt_kernel/softmax.h"

namespace ao::k {

template <typename T, bool isDataFormatNZ>
inline void SoftmaxGradRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& grad,
                           const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                           const SoftMaxTiling& tiling, bool isFront, const AscendC::SoftMaxShapeInfo& shape) {
    const char* name = "SoftmaxGrad";
    if constexpr (!kIsHalfOrFloat<T>) AoUnsupported(name, TypeName<T>());
    if constexpr (isDataFormatNZ)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "SoftmaxGrad: the NZ data format is not emulated (ND only)");
    const bool fromShape = shape.srcM != 0 || shape.srcK != 0;
    const uint64_t m = fromShape ? shape.srcM : tiling.srcM, k = fromShape ? shape.srcK : tiling.srcK;
    const uint64_t kr = fromShape && shape.oriSrcK != 0 && shape.oriSrcK < k ? shape.oriSrcK : k;
    if (m == 0 || k == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "SoftmaxGrad: empty shape (srcM %llu, srcK %llu)",
                     (unsigned long long)m, (unsigned long long)k);
    if ((k * sizeof(T)) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "SoftmaxGrad: srcK %llu x %u bytes is not a multiple of 32 bytes",
                     (unsigned long long)k, unsigned(sizeof(T)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(grad, name);
    CheckLocalAligned(src, name);
    const uint64_t n = m * k, blk = 32 / sizeof(T), outN = isFront ? m * blk : n;
    ao::rt::Access sA = src.Range(0, n, false, name), gA = grad.Range(0, n, false, name);
    ao::rt::Access dA = dst.Range(0, outN, true, name), tA{};
    if (tmp) tA = tmp->RangeBytes(0, std::min<uint64_t>(tmp->GetSize(), n * 4), true, name);
    auto reps = [](uint64_t bytes) { return uint32_t((bytes + 255) / 256); };
    const uint32_t R = reps(n * sizeof(T));
    ao::rt::LibSteps steps;
    auto step = [&](const char* op, ao::rt::OpClass cls, uint32_t repeats, std::initializer_list<ao::rt::Access> acc) {
        steps.Next();
        ao::rt::Instr ins = VecInstr(op, cls, sizeof(T), repeats, n);
        for (const auto& a : acc)
            if (a.end > a.begin) ins.Add(a);
        ao::rt::Issue(ins);
    };
    step("Mul", ao::rt::OpClass::VecElementwise, R, {gA, sA, tA});
    step("ReduceSum", ao::rt::OpClass::VecReduce, R, {tA});
    step("Brcb", ao::rt::OpClass::VecElementwise, reps(m * 32), {dA, tA});
    if (!isFront) {
        step("Sub", ao::rt::OpClass::VecElementwise, R, {dA, gA, tA});
        step("Mul", ao::rt::OpClass::VecElementwise, R, {dA, sA});
    }
    // Read both inputs before writing: dst may share the source's buffer.
    std::vector<float> g(n), s(n);
    for (uint64_t i = 0; i < n; ++i) {
        g[i] = ToF32(grad.Data()[i]);
        s[i] = ToF32(src.Data()[i]);
    }
    for (uint64_t r = 0; r < m; ++r) {
        float d = 0.0f;
        for (uint64_t j = 0; j < kr; ++j) d += ToF32(FromF32<T>(g[r * k + j] * s[r * k + j]));
        const float dT = ToF32(FromF32<T>(d));
        if (isFront) {
            for (uint64_t b = 0; b < blk; ++b) dst.Data()[r * blk + b] = FromF32<T>(dT);
            continue;
        }
        for (uint64_t j = 0; j < k; ++j)
            dst.Data()[r * k + j] = FromF32<T>(ToF32(FromF32<T>(g[r * k + j] - dT)) * s[r * k + j]);
    }
}

}  // namespace ao::k

namespace AscendC {

template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
__aicore__ inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                                   const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                                   const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftmaxGradRun<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, nullptr, tiling, isFront,
                                              softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
__aicore__ inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                                   const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                   const SoftMaxTiling& tiling, bool isFront = false,
                                   const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    ao::k::SoftmaxGradRun<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling, isFront,
                                              softmaxShapeInfo);
}

}  // namespace AscendC
