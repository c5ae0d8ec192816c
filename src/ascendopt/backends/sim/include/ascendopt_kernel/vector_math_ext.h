// AscendOptimizer simulator: more high-level unary math APIs of the AscendC math library
// (lib/math): Acos, Asin, Atan, Cosh, Sinh, Tan, Erfc. Same forms as Tanh/Sin/...: with or
// without a shared temporary buffer (accepted, not needed here) and with or without a count;
// half or float only; computed in float precision and timed as a short sequence of
// transcendental vector instructions. Clean-room implementation.
#pragma once
#include "ascendopt_kernel/vector_ops.h"

namespace ao::k {

template <typename T>
inline void MathUnary(const char* name, int nInstr, float (*f)(float), const LocalTensor<T>& d,
                      const LocalTensor<T>& a, int64_t count) {
    if constexpr (!kIsHalfOrFloat<T>) AoUnsupported(name, TypeName<T>());
    Plan p = PlanCount(name, sizeof(T), count);
    const T* A = a.Data();
    if (p.repeats == 0) return;
    ao::rt::LibSteps steps;
    for (int k = 1; k < nInstr; ++k) {
        steps.Next();
        ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecTranscend, sizeof(T), p.repeats, p.count);
        ins.Add(a.Range(0, p.count, false, name));
        ins.Add(d.Range(0, p.count, true, name));
        ao::rt::Issue(ins);
    }
    steps.Next();
    Ew(name, ao::rt::OpClass::VecTranscend, sizeof(T), p, d, Strd{}, &a, Strd{},
       static_cast<const LocalTensor<T>*>(nullptr), Strd{},
       [&](uint64_t, uint64_t i, uint64_t) { return FromF32<T>(f(ToF32(A[i]))); });
    AfterCountForm();
}

inline float AcosF(float x) { return __builtin_acosf(x); }
inline float AsinF(float x) { return __builtin_asinf(x); }
inline float AtanF(float x) { return __builtin_atanf(x); }
inline float CoshF(float x) { return __builtin_coshf(x); }
inline float SinhF(float x) { return __builtin_sinhf(x); }
inline float TanF(float x) { return __builtin_tanf(x); }
inline float ErfcF(float x) { return __builtin_erfcf(x); }

}  // namespace ao::k

namespace AscendC {

#define AO_MATH_UNARY_API(Name, FN, N)                                                                             \
    template <typename T, bool isReuseSource = false>                                                              \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                              \
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t count) {               \
        (void)sharedTmpBuffer;                                                                                     \
        ao::k::MathUnary<T>(#Name, N, &FN, dst, src, count);                                                       \
    }                                                                                                              \
    template <typename T, bool isReuseSource = false>                                                              \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {      \
        ao::k::MathUnary<T>(#Name, N, &FN, dst, src, count);                                                       \
    }                                                                                                              \
    template <typename T, bool isReuseSource = false>                                                              \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                              \
                                const LocalTensor<uint8_t>& sharedTmpBuffer) {                                     \
        (void)sharedTmpBuffer;                                                                                     \
        ao::k::MathUnary<T>(#Name, N, &FN, dst, src, src.GetSize());                                               \
    }                                                                                                              \
    template <typename T, bool isReuseSource = false>                                                              \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src) {                            \
        ao::k::MathUnary<T>(#Name, N, &FN, dst, src, src.GetSize());                                               \
    }

AO_MATH_UNARY_API(Acos, ao::k::AcosF, 10)
AO_MATH_UNARY_API(Asin, ao::k::AsinF, 10)
AO_MATH_UNARY_API(Atan, ao::k::AtanF, 10)
AO_MATH_UNARY_API(Cosh, ao::k::CoshF, 6)
AO_MATH_UNARY_API(Sinh, ao::k::SinhF, 6)
AO_MATH_UNARY_API(Tan, ao::k::TanF, 10)
AO_MATH_UNARY_API(Erfc, ao::k::ErfcF, 10)
#undef AO_MATH_UNARY_API

}  // namespace AscendC
