// AscendOptimizer simulator: element-wise vector APIs (binary, unary, tensor-scalar, Duplicate,
// Axpy, FusedMulAdd, MulAddDst) and the high-level math APIs (Tanh, Sigmoid, Sin, Cos, Power, Floor, Ceil, Round, ...).
// Clean-room implementation.
#pragma once
#include "ascendopt_kernel/vector_core.h"

namespace ao::k {

// ---------------------------------------------------------------------------------------------
// Scalar kernels.
template <typename T>
inline T IntWrap(uint64_t v) {
    return T(static_cast<std::make_unsigned_t<T>>(v));
}

enum class BinOp : uint8_t { Add, Sub, Mul, Div, Max, Min, And, Or };

template <BinOp OP, typename T>
inline T BinCompute(T a, T b) {
    if constexpr (kIsFloatLike<T>) {
        float x = ToF32(a), y = ToF32(b), r = 0.0f;
        if constexpr (OP == BinOp::Add) r = x + y;
        else if constexpr (OP == BinOp::Sub) r = x - y;
        else if constexpr (OP == BinOp::Mul) r = x * y;
        else if constexpr (OP == BinOp::Div) r = x / y;
        else if constexpr (OP == BinOp::Max) r = (__builtin_isnan(x) || __builtin_isnan(y)) ? __builtin_nanf("") : (x > y ? x : y);
        else if constexpr (OP == BinOp::Min) r = (__builtin_isnan(x) || __builtin_isnan(y)) ? __builtin_nanf("") : (x < y ? x : y);
        else {
            uint64_t bx = BitsOf(a), by = BitsOf(b);
            return FromBits<T>(OP == BinOp::And ? (bx & by) : (bx | by));
        }
        return FromF32<T>(r);
    } else {
        uint64_t ua = uint64_t(int64_t(a)), ub = uint64_t(int64_t(b));
        if constexpr (std::is_unsigned_v<T>) { ua = uint64_t(a); ub = uint64_t(b); }
        if constexpr (OP == BinOp::Add) return IntWrap<T>(ua + ub);
        else if constexpr (OP == BinOp::Sub) return IntWrap<T>(ua - ub);
        else if constexpr (OP == BinOp::Mul) return IntWrap<T>(ua * ub);
        else if constexpr (OP == BinOp::Div) return b == T(0) ? T(0) : T(a / b);
        else if constexpr (OP == BinOp::Max) return a > b ? a : b;
        else if constexpr (OP == BinOp::Min) return a < b ? a : b;
        else if constexpr (OP == BinOp::And) return T(a & b);
        else return T(a | b);
    }
}

template <BinOp OP, typename T>
inline void BinCheck(const char* name) {
    if constexpr (std::is_same_v<T, bfloat16_t>) AoUnsupported(name, "bfloat16_t");
    if constexpr (OP == BinOp::Div) {
        if constexpr (!kIsFloatLike<T>) AoUnsupported(name, TypeName<T>());
    }
    if constexpr (OP == BinOp::And || OP == BinOp::Or) {
        if constexpr (!kIsInt<T>) AoUnsupported(name, TypeName<T>());
    }
    if constexpr (sizeof(T) == 8 && OP != BinOp::And && OP != BinOp::Or) AoUnsupported(name, TypeName<T>());
}

template <BinOp OP, typename T>
inline void BinRun(const char* name, const Plan& p, const LocalTensor<T>& d, const LocalTensor<T>& a,
                   const LocalTensor<T>& b, Strd ds, Strd as, Strd bs) {
    BinCheck<OP, T>(name);
    const T* A = a.Data();
    const T* B = b.Data();
    ao::rt::OpClass cls = OP == BinOp::Div ? ao::rt::OpClass::VecTranscend : ao::rt::OpClass::VecElementwise;
    Ew(name, cls, sizeof(T), p, d, ds, &a, as, &b, bs,
       [&](uint64_t, uint64_t i, uint64_t j) { return BinCompute<OP, T>(A[i], B[j]); });
}

enum class UnOp : uint8_t { Abs, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Relu, Not, Tanh, Sigmoid, Sin, Cos, Floor, Ceil,
                            Round, Trunc, Erf, Log2, Log10, Sign, Neg, Frac };

template <UnOp OP>
inline float UnF32(float x) {
    if constexpr (OP == UnOp::Abs) return __builtin_fabsf(x);
    else if constexpr (OP == UnOp::Exp) return __builtin_expf(x);
    else if constexpr (OP == UnOp::Ln) return __builtin_logf(x);
    else if constexpr (OP == UnOp::Sqrt) return __builtin_sqrtf(x);
    else if constexpr (OP == UnOp::Rsqrt) return 1.0f / __builtin_sqrtf(x);
    else if constexpr (OP == UnOp::Reciprocal) return 1.0f / x;
    else if constexpr (OP == UnOp::Relu) return __builtin_isnan(x) ? x : (x > 0.0f ? x : 0.0f);
    else if constexpr (OP == UnOp::Tanh) return __builtin_tanhf(x);
    else if constexpr (OP == UnOp::Sigmoid) return 1.0f / (1.0f + __builtin_expf(-x));
    else if constexpr (OP == UnOp::Sin) return __builtin_sinf(x);
    else if constexpr (OP == UnOp::Cos) return __builtin_cosf(x);
    else if constexpr (OP == UnOp::Floor) return __builtin_floorf(x);
    else if constexpr (OP == UnOp::Ceil) return __builtin_ceilf(x);
    else if constexpr (OP == UnOp::Round) return __builtin_rintf(x);
    else if constexpr (OP == UnOp::Trunc) return __builtin_truncf(x);
    else if constexpr (OP == UnOp::Erf) return __builtin_erff(x);
    else if constexpr (OP == UnOp::Log2) return __builtin_log2f(x);
    else if constexpr (OP == UnOp::Log10) return __builtin_log10f(x);
    else if constexpr (OP == UnOp::Sign) return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : (__builtin_isnan(x) ? x : 0.0f));
    else if constexpr (OP == UnOp::Neg) return -x;
    else if constexpr (OP == UnOp::Frac) return x - __builtin_truncf(x);
    else return x;
}

template <UnOp OP, typename T>
inline T UnCompute(T a) {
    if constexpr (OP == UnOp::Not) {
        return FromBits<T>(~BitsOf(a));
    } else if constexpr (kIsFloatLike<T>) {
        return FromF32<T>(UnF32<OP>(ToF32(a)));
    } else if constexpr (OP == UnOp::Abs) {
        if constexpr (std::is_signed_v<T>) return a < 0 ? IntWrap<T>(uint64_t(0) - uint64_t(int64_t(a))) : a;
        else return a;
    } else if constexpr (OP == UnOp::Relu) {
        return a > T(0) ? a : T(0);
    } else if constexpr (OP == UnOp::Neg) {
        return IntWrap<T>(uint64_t(0) - uint64_t(int64_t(a)));
    } else {
        return a;
    }
}

template <UnOp OP, typename T>
inline void UnCheck(const char* name) {
    if constexpr (OP == UnOp::Not) {
        if constexpr (!kIsInt<T>) AoUnsupported(name, TypeName<T>());
    } else if constexpr (OP == UnOp::Abs || OP == UnOp::Relu || OP == UnOp::Neg) {
        if constexpr (std::is_same_v<T, bfloat16_t> || sizeof(T) == 8) AoUnsupported(name, TypeName<T>());
    } else {
        if constexpr (!kIsHalfOrFloat<T>) AoUnsupported(name, TypeName<T>());
    }
}

template <UnOp OP>
constexpr ao::rt::OpClass UnClass() {
    if constexpr (OP == UnOp::Abs || OP == UnOp::Relu || OP == UnOp::Not || OP == UnOp::Neg)
        return ao::rt::OpClass::VecElementwise;
    else return ao::rt::OpClass::VecTranscend;
}

template <UnOp OP, typename T>
inline void UnRun(const char* name, const Plan& p, const LocalTensor<T>& d, const LocalTensor<T>& a, Strd ds,
                  Strd as) {
    UnCheck<OP, T>(name);
    const T* A = a.Data();
    Ew(name, UnClass<OP>(), sizeof(T), p, d, ds, &a, as, static_cast<const LocalTensor<T>*>(nullptr), Strd{},
       [&](uint64_t, uint64_t i, uint64_t) { return UnCompute<OP, T>(A[i]); });
}

// High-level (multi-instruction) unary API: issues `nInstr` instructions of `count` elements.
template <UnOp OP, typename T>
inline void AdvUnary(const char* name, int nInstr, const LocalTensor<T>& d, const LocalTensor<T>& a, int64_t count) {
    UnCheck<OP, T>(name);
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
    Ew(name, UnClass<OP>(), sizeof(T), p, d, Strd{}, &a, Strd{}, static_cast<const LocalTensor<T>*>(nullptr), Strd{},
       [&](uint64_t, uint64_t i, uint64_t) { return UnCompute<OP, T>(A[i]); });
    AfterCountForm();
}

enum class ScOp : uint8_t { Adds, Muls, Maxs, Mins, LeakyRelu, ShiftLeft, ShiftRight };

template <ScOp OP, typename T>
inline T ScCompute(T a, T s, bool roundEn) {
    if constexpr (OP == ScOp::Adds) return BinCompute<BinOp::Add, T>(a, s);
    else if constexpr (OP == ScOp::Muls) return BinCompute<BinOp::Mul, T>(a, s);
    else if constexpr (OP == ScOp::Maxs) return BinCompute<BinOp::Max, T>(a, s);
    else if constexpr (OP == ScOp::Mins) return BinCompute<BinOp::Min, T>(a, s);
    else if constexpr (OP == ScOp::LeakyRelu) {
        float x = ToF32(a);
        return x < 0.0f ? FromF32<T>(x * ToF32(s)) : a;
    } else if constexpr (kIsInt<T>) {
        constexpr int kBits = int(sizeof(T) * 8);
        int64_t n = int64_t(s);
        using U = std::make_unsigned_t<T>;
        U ua = U(a);
        if constexpr (OP == ScOp::ShiftLeft) {
            if (n < 0 || n >= kBits) return T(0);
            return T(U(ua << n));
        } else {
            if (n < 0) return a;
            if constexpr (std::is_signed_v<T>) {
                int64_t v = int64_t(a);
                if (n >= kBits) return T(v < 0 ? -1 : 0);
                int64_t r = v >> n;
                if (roundEn && n > 0) r = (v + (int64_t(1) << (n - 1))) >> n;
                return T(r);
            } else {
                if (n >= kBits) return T(0);
                uint64_t v = uint64_t(ua);
                uint64_t r = v >> n;
                if (roundEn && n > 0) r = (v + (uint64_t(1) << (n - 1))) >> n;
                return T(U(r));
            }
        }
    } else {
        return a;
    }
}

template <ScOp OP, typename T>
inline void ScCheck(const char* name) {
    if constexpr (OP == ScOp::ShiftLeft || OP == ScOp::ShiftRight) {
        if constexpr (!kIsInt<T> || sizeof(T) < 2 || sizeof(T) > 4) AoUnsupported(name, TypeName<T>());
    } else if constexpr (OP == ScOp::LeakyRelu) {
        if constexpr (!kIsHalfOrFloat<T>) AoUnsupported(name, TypeName<T>());
    } else {
        if constexpr (std::is_same_v<T, bfloat16_t> || sizeof(T) == 8 || sizeof(T) == 1) AoUnsupported(name, TypeName<T>());
    }
}

template <ScOp OP, typename T>
inline void ScRun(const char* name, const Plan& p, const LocalTensor<T>& d, const LocalTensor<T>& a, T s, Strd ds,
                  Strd as, bool roundEn = false) {
    ScCheck<OP, T>(name);
    const T* A = a.Data();
    Ew(name, ao::rt::OpClass::VecElementwise, sizeof(T), p, d, ds, &a, as, static_cast<const LocalTensor<T>*>(nullptr),
       Strd{}, [&](uint64_t, uint64_t i, uint64_t) { return ScCompute<OP, T>(A[i], s, roundEn); });
}


template <typename T>
inline T PowT(T a, T b) {
    if constexpr (kIsFloatLike<T>) {
        return FromF32<T>(__builtin_powf(ToF32(a), ToF32(b)));
    } else {
        int64_t base = int64_t(a), e = int64_t(b);
        if (e < 0) return base == 1 ? T(1) : (base == -1 ? T((e & 1) ? -1 : 1) : T(0));
        uint64_t r = 1, x = uint64_t(base);
        while (e > 0) {
            if (e & 1) r *= x;
            x *= x;
            e >>= 1;
        }
        return IntWrap<T>(r);
    }
}

}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Binary APIs: Add, Sub, Mul, Div, Max, Min, And, Or.
#define AO_BINARY_API(Name, OP)                                                                                       \
    template <typename T>                                                                                             \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,    \
                                const int32_t& count) {                                                               \
        ao::k::Plan p = ao::k::PlanCount(#Name, sizeof(T), count);                                                    \
        ao::k::BinRun<OP, T>(#Name, p, dst, src0, src1, ao::k::Strd{}, ao::k::Strd{}, ao::k::Strd{});                 \
        ao::k::AfterCountForm();                                                                                      \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, AO_REPEAT_TPARAMS>                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,    \
                                uint64_t mask, AoRep repeatTimes, const BinaryRepeatParams& rp) {                     \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::BinRun<OP, T>(#Name, p, dst, src0, src1, ao::k::DS(rp), ao::k::S0(rp), ao::k::S1(rp));                 \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, AO_MASK_TPARAMS>                                                     \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,    \
                                AoMask mask[], AoRep repeatTimes, const BinaryRepeatParams& rp) {                     \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::BinRun<OP, T>(#Name, p, dst, src0, src1, ao::k::DS(rp), ao::k::S0(rp), ao::k::S1(rp));                 \
    }

AO_BINARY_API(Add, ao::k::BinOp::Add)
AO_BINARY_API(Sub, ao::k::BinOp::Sub)
AO_BINARY_API(Mul, ao::k::BinOp::Mul)
AO_BINARY_API(Div, ao::k::BinOp::Div)
AO_BINARY_API(Max, ao::k::BinOp::Max)
AO_BINARY_API(Min, ao::k::BinOp::Min)
AO_BINARY_API(And, ao::k::BinOp::And)
AO_BINARY_API(Or, ao::k::BinOp::Or)
#undef AO_BINARY_API

// ---------------------------------------------------------------------------------------------
// Unary APIs: Abs, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Relu, Not.
#define AO_UNARY_API(Name, OP)                                                                                        \
    template <typename T>                                                                                             \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {         \
        ao::k::Plan p = ao::k::PlanCount(#Name, sizeof(T), count);                                                    \
        ao::k::UnRun<OP, T>(#Name, p, dst, src, ao::k::Strd{}, ao::k::Strd{});                                        \
        ao::k::AfterCountForm();                                                                                      \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, AO_REPEAT_TPARAMS>                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                  \
                                AoRep repeatTimes, const UnaryRepeatParams& rp) {                                     \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::UnRun<OP, T>(#Name, p, dst, src, ao::k::DS(rp), ao::k::SS(rp));                                        \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, AO_MASK_TPARAMS>                                                     \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, AoMask mask[],                  \
                                AoRep repeatTimes, const UnaryRepeatParams& rp) {                                     \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::UnRun<OP, T>(#Name, p, dst, src, ao::k::DS(rp), ao::k::SS(rp));                                        \
    }

AO_UNARY_API(Abs, ao::k::UnOp::Abs)
AO_UNARY_API(Exp, ao::k::UnOp::Exp)
AO_UNARY_API(Ln, ao::k::UnOp::Ln)
AO_UNARY_API(Sqrt, ao::k::UnOp::Sqrt)
AO_UNARY_API(Rsqrt, ao::k::UnOp::Rsqrt)
AO_UNARY_API(Reciprocal, ao::k::UnOp::Reciprocal)
AO_UNARY_API(Relu, ao::k::UnOp::Relu)
AO_UNARY_API(Not, ao::k::UnOp::Not)
#undef AO_UNARY_API

// High-level Exp with a Taylor-expansion level (the level is accepted and ignored: the result
// is computed in float precision).
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
__aicore__ inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
                           const uint32_t count) {
    ao::k::AdvUnary<ao::k::UnOp::Exp, T>("Exp", 3, dst, src, count);
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
__aicore__ inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    ao::k::AdvUnary<ao::k::UnOp::Exp, T>("Exp", 3, dst, src, count);
}

// ---------------------------------------------------------------------------------------------
// High-level unary math APIs (sharedTmpBuffer accepted and ignored).
#define AO_ADV_UNARY_API(Name, OP, N)                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t count) {                  \
        (void)sharedTmpBuffer;                                                                                        \
        ao::k::AdvUnary<OP, T>(#Name, N, dst, src, count);                                                            \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {         \
        ao::k::AdvUnary<OP, T>(#Name, N, dst, src, count);                                                            \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
                                const LocalTensor<uint8_t>& sharedTmpBuffer) {                                        \
        (void)sharedTmpBuffer;                                                                                        \
        ao::k::AdvUnary<OP, T>(#Name, N, dst, src, src.GetSize());                                                    \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src) {                               \
        ao::k::AdvUnary<OP, T>(#Name, N, dst, src, src.GetSize());                                                    \
    }

AO_ADV_UNARY_API(Tanh, ao::k::UnOp::Tanh, 4)
AO_ADV_UNARY_API(Sigmoid, ao::k::UnOp::Sigmoid, 4)
AO_ADV_UNARY_API(Sin, ao::k::UnOp::Sin, 8)
AO_ADV_UNARY_API(Cos, ao::k::UnOp::Cos, 8)
AO_ADV_UNARY_API(Floor, ao::k::UnOp::Floor, 2)
AO_ADV_UNARY_API(Ceil, ao::k::UnOp::Ceil, 2)
AO_ADV_UNARY_API(Round, ao::k::UnOp::Round, 2)
AO_ADV_UNARY_API(Trunc, ao::k::UnOp::Trunc, 2)
AO_ADV_UNARY_API(Erf, ao::k::UnOp::Erf, 8)
AO_ADV_UNARY_API(Log, ao::k::UnOp::Ln, 1)
AO_ADV_UNARY_API(Log2, ao::k::UnOp::Log2, 2)
AO_ADV_UNARY_API(Log10, ao::k::UnOp::Log10, 2)
AO_ADV_UNARY_API(Sign, ao::k::UnOp::Sign, 3)
AO_ADV_UNARY_API(Frac, ao::k::UnOp::Frac, 2)
#undef AO_ADV_UNARY_API

// ---------------------------------------------------------------------------------------------
// Tensor-scalar APIs: Adds, Muls, Maxs, Mins, LeakyRelu, ShiftLeft, ShiftRight. The scalar may be
// of any type convertible to T (`Adds<T, isSetMask>(...)`, or `Adds<T, U, isSetMask>(...)`).
#define AO_SCALAR_API(Name, OP)                                                                                       \
    template <typename T, bool isSetMask = true, typename U                 >                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,           \
                                const int32_t& count) {                                                               \
        ao::k::Plan p = ao::k::PlanCount(#Name, sizeof(T), count);                                                    \
        ao::k::ScRun<OP, T>(#Name, p, dst, src, ao::k::ScalarAs<T>(scalarValue), ao::k::Strd{}, ao::k::Strd{});       \
        ao::k::AfterCountForm();                                                                                      \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, typename U, AO_REPEAT_TPARAMS>                                       \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,           \
                                uint64_t mask, AoRep repeatTimes, const UnaryRepeatParams& rp) {                      \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::ScRun<OP, T>(#Name, p, dst, src, ao::k::ScalarAs<T>(scalarValue), ao::k::DS(rp), ao::k::SS(rp));       \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, typename U, AO_MASK_TPARAMS>                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,           \
                                AoMask mask[], AoRep repeatTimes, const UnaryRepeatParams& rp) {                      \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, repeatTimes, isSetMask);                              \
        ao::k::ScRun<OP, T>(#Name, p, dst, src, ao::k::ScalarAs<T>(scalarValue), ao::k::DS(rp), ao::k::SS(rp));       \
    }                                                                                                                 \
    template <typename T, typename U, bool isSetMask = true                 >                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
                                const ao::k::AoId<U>& scalarValue, const int32_t& count) {                            \
        Name<T, isSetMask, U>(dst, src, scalarValue, count);                                                          \
    }                                                                                                                 \
    template <typename T, typename U, bool isSetMask = true, AO_REPEAT_TPARAMS>                                       \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
                                const ao::k::AoId<U>& scalarValue, uint64_t mask, AoRep repeatTimes,                  \
                                const UnaryRepeatParams& rp) {                                                        \
        Name<T, isSetMask, U>(dst, src, scalarValue, mask, repeatTimes, rp);                                          \
    }                                                                                                                 \
    template <typename T, typename U, bool isSetMask = true, AO_MASK_TPARAMS>                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
                                const ao::k::AoId<U>& scalarValue, AoMask mask[],                                     \
                                AoRep repeatTimes, const UnaryRepeatParams& rp) {                                     \
        Name<T, isSetMask, U>(dst, src, scalarValue, mask, repeatTimes, rp);                                          \
    }

AO_SCALAR_API(Adds, ao::k::ScOp::Adds)
AO_SCALAR_API(Muls, ao::k::ScOp::Muls)
AO_SCALAR_API(Maxs, ao::k::ScOp::Maxs)
AO_SCALAR_API(Mins, ao::k::ScOp::Mins)
AO_SCALAR_API(LeakyRelu, ao::k::ScOp::LeakyRelu)
AO_SCALAR_API(ShiftLeft, ao::k::ScOp::ShiftLeft)
#undef AO_SCALAR_API

// ShiftRight: as above, the mask forms take an extra `roundEn` (round half up on the shifted bits).
template <typename T, bool isSetMask = true, typename U>
__aicore__ inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
                                  const int32_t& count) {
    ao::k::Plan p = ao::k::PlanCount("ShiftRight", sizeof(T), count);
    ao::k::ScRun<ao::k::ScOp::ShiftRight, T>("ShiftRight", p, dst, src, ao::k::ScalarAs<T>(scalarValue),
                                             ao::k::Strd{}, ao::k::Strd{});
    ao::k::AfterCountForm();
}
template <typename T, bool isSetMask = true, typename U>
__aicore__ inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
                                  uint64_t mask, const uint32_t repeatTimes, const UnaryRepeatParams& rp,
                                  bool roundEn = false) {
    ao::k::Plan p = ao::k::PlanCont("ShiftRight", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::ScRun<ao::k::ScOp::ShiftRight, T>("ShiftRight", p, dst, src, ao::k::ScalarAs<T>(scalarValue),
                                             ao::k::DS(rp), ao::k::SS(rp), roundEn);
}
template <typename T, bool isSetMask = true, typename U>
__aicore__ inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,
                                  const uint64_t mask[], const uint32_t repeatTimes, const UnaryRepeatParams& rp,
                                  bool roundEn = false) {
    ao::k::Plan p = ao::k::PlanBits("ShiftRight", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::ScRun<ao::k::ScOp::ShiftRight, T>("ShiftRight", p, dst, src, ao::k::ScalarAs<T>(scalarValue),
                                             ao::k::DS(rp), ao::k::SS(rp), roundEn);
}

// ---------------------------------------------------------------------------------------------
// Duplicate: fill with a scalar.
namespace AoDetail {
template <typename T>
inline void DupRun(const ao::k::Plan& p, const LocalTensor<T>& dst, T v, ao::k::Strd ds) {
    if constexpr (sizeof(T) == 8) ao::k::AoUnsupported("Duplicate", ao::k::TypeName<T>());
    ao::k::Ew("Duplicate", ao::rt::OpClass::VecElementwise, sizeof(T), p, dst, ds,
              static_cast<const LocalTensor<T>*>(nullptr), ao::k::Strd{}, static_cast<const LocalTensor<T>*>(nullptr),
              ao::k::Strd{}, [&](uint64_t, uint64_t, uint64_t) { return v; });
}
}  // namespace AoDetail

template <typename T, typename U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalarValue, const int32_t& count) {
    ao::k::Plan p = ao::k::PlanCount("Duplicate", sizeof(T), count);
    AoDetail::DupRun<T>(p, dst, ao::k::ScalarAs<T>(scalarValue), ao::k::Strd{});
    ao::k::AfterCountForm();
}
template <typename T, bool isSetMask = true, typename U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalarValue, uint64_t mask,
                                 const uint32_t repeatTimes, const uint16_t dstBlockStride,
                                 const uint16_t dstRepeatStride) {
    ao::k::Plan p = ao::k::PlanCont("Duplicate", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::DupRun<T>(p, dst, ao::k::ScalarAs<T>(scalarValue), ao::k::Strd{dstBlockStride, dstRepeatStride});
}
template <typename T, bool isSetMask = true, typename U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalarValue, const uint64_t mask[],
                                 const uint32_t repeatTimes, const uint16_t dstBlockStride,
                                 const uint16_t dstRepeatStride) {
    ao::k::Plan p = ao::k::PlanBits("Duplicate", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::DupRun<T>(p, dst, ao::k::ScalarAs<T>(scalarValue), ao::k::Strd{dstBlockStride, dstRepeatStride});
}

// ---------------------------------------------------------------------------------------------
// Axpy: dst = dst + src * scalar (T == U, or float dst with half src).
namespace AoDetail {
template <typename T, typename U>
inline void AxpyRun(const ao::k::Plan& p, const LocalTensor<T>& dst, const LocalTensor<U>& src, U s, ao::k::Strd ds,
                    ao::k::Strd ss) {
    if constexpr (!ao::k::kIsHalfOrFloat<T> || !ao::k::kIsHalfOrFloat<U> || sizeof(T) < sizeof(U))
        ao::k::AoUnsupported("Axpy", ao::k::TypeName<T>());
    const U* S = src.Data();
    const T* D = dst.Data();
    float fs = ao::k::ToF32(s);
    ao::k::Ew("Axpy", ao::rt::OpClass::VecElementwise, sizeof(T), p, dst, ds, &src, ss,
              static_cast<const LocalTensor<T>*>(nullptr), ao::k::Strd{},
              [&](uint64_t di, uint64_t si, uint64_t) {
                  return ao::k::FromF32<T>(ao::k::ToF32(S[si]) * fs + ao::k::ToF32(D[di]));
              },
              true);
}
}  // namespace AoDetail

template <typename T, typename U>
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const ao::k::AoId<U>& scalarValue,
                            const int32_t& count) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCount("Axpy", w, count);
    AoDetail::AxpyRun<T, U>(p, dst, src, scalarValue, ao::k::Contig(sizeof(T), w), ao::k::Contig(sizeof(U), w));
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const ao::k::AoId<U>& scalarValue,
                            uint64_t mask, const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCont("Axpy", w, mask, repeatTimes, isSetMask);
    AoDetail::AxpyRun<T, U>(p, dst, src, scalarValue, ao::k::DS(rp), ao::k::SS(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const ao::k::AoId<U>& scalarValue,
                            const uint64_t mask[], const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanBits("Axpy", w, mask, repeatTimes, isSetMask);
    AoDetail::AxpyRun<T, U>(p, dst, src, scalarValue, ao::k::DS(rp), ao::k::SS(rp));
}

// ---------------------------------------------------------------------------------------------
// Fused multiply-add, costed like Axpy (one element-wise pass that also reads dst):
//   FusedMulAdd: dst = src0 * dst + src1    (half or float, one type)
//   MulAddDst:   dst = src0 * src1 + dst    (T == U, or float dst with half sources)
// The product and the sum are computed in fp32 and rounded once to the destination type.
namespace AoDetail {
enum class FmaKind : uint8_t { FusedMulAdd, MulAddDst };
template <FmaKind K, typename T, typename U>
inline void FmaRun(const char* name, const ao::k::Plan& p, const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                   const LocalTensor<U>& src1, ao::k::Strd ds, ao::k::Strd s0, ao::k::Strd s1) {
    if constexpr (!ao::k::kIsHalfOrFloat<T> || !ao::k::kIsHalfOrFloat<U> || sizeof(T) < sizeof(U))
        ao::k::AoUnsupported(name, ao::k::TypeName<T>());
    if constexpr (K == FmaKind::FusedMulAdd && !std::is_same_v<T, U>) ao::k::AoUnsupported(name, ao::k::TypeName<U>());
    const U* A = src0.Data();
    const U* B = src1.Data();
    const T* D = dst.Data();
    ao::k::Ew(name, ao::rt::OpClass::VecElementwise, sizeof(T), p, dst, ds, &src0, s0, &src1, s1,
              [&](uint64_t di, uint64_t i, uint64_t j) {
                  float a = ao::k::ToF32(A[i]), b = ao::k::ToF32(B[j]), d = ao::k::ToF32(D[di]);
                  float prod = K == FmaKind::FusedMulAdd ? a * d : a * b;
                  return ao::k::FromF32<T>(prod + (K == FmaKind::FusedMulAdd ? b : d));
              },
              true);
}
}  // namespace AoDetail

template <typename T>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   const int32_t& count) {
    ao::k::Plan p = ao::k::PlanCount("FusedMulAdd", sizeof(T), count);
    AoDetail::FmaRun<AoDetail::FmaKind::FusedMulAdd, T, T>("FusedMulAdd", p, dst, src0, src1, ao::k::Strd{},
                                                           ao::k::Strd{}, ao::k::Strd{});
    ao::k::AfterCountForm();
}
template <typename T, bool isSetMask = true>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   uint64_t mask, const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("FusedMulAdd", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::FmaRun<AoDetail::FmaKind::FusedMulAdd, T, T>("FusedMulAdd", p, dst, src0, src1, ao::k::DS(rp),
                                                           ao::k::S0(rp), ao::k::S1(rp));
}
template <typename T, bool isSetMask = true>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   const uint64_t mask[], const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("FusedMulAdd", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::FmaRun<AoDetail::FmaKind::FusedMulAdd, T, T>("FusedMulAdd", p, dst, src0, src1, ao::k::DS(rp),
                                                           ao::k::S0(rp), ao::k::S1(rp));
}

template <typename T, typename U>
__aicore__ inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                                 const int32_t& count) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCount("MulAddDst", w, count);
    AoDetail::FmaRun<AoDetail::FmaKind::MulAddDst, T, U>("MulAddDst", p, dst, src0, src1, ao::k::Contig(sizeof(T), w),
                                                         ao::k::Contig(sizeof(U), w), ao::k::Contig(sizeof(U), w));
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                                 uint64_t mask, const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCont("MulAddDst", w, mask, repeatTimes, isSetMask);
    AoDetail::FmaRun<AoDetail::FmaKind::MulAddDst, T, U>("MulAddDst", p, dst, src0, src1, ao::k::DS(rp),
                                                         ao::k::S0(rp), ao::k::S1(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                                 const uint64_t mask[], const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanBits("MulAddDst", w, mask, repeatTimes, isSetMask);
    AoDetail::FmaRun<AoDetail::FmaKind::MulAddDst, T, U>("MulAddDst", p, dst, src0, src1, ao::k::DS(rp),
                                                         ao::k::S0(rp), ao::k::S1(rp));
}

// ---------------------------------------------------------------------------------------------
// Power: tensor^tensor, tensor^scalar, scalar^tensor (half/float/int32).
namespace AoDetail {
template <typename T, class F>
inline void PowRun(const LocalTensor<T>& dst, const LocalTensor<T>* a, const LocalTensor<T>* b, int64_t count, F&& f) {
    if constexpr (!ao::k::kIsHalfOrFloat<T> && !std::is_same_v<T, int32_t>)
        ao::k::AoUnsupported("Power", ao::k::TypeName<T>());
    ao::k::Plan p = ao::k::PlanCount("Power", sizeof(T), count);
    if (p.repeats == 0) return;
    ao::rt::LibSteps steps;
    for (int k = 1; k < 6; ++k) {
        steps.Next();
        ao::rt::Instr ins = ao::k::VecInstr("Power", ao::rt::OpClass::VecTranscend, sizeof(T), p.repeats, p.count);
        ins.Add(dst.Range(0, p.count, true, "Power"));
        if (a) ins.Add(a->Range(0, p.count, false, "Power"));
        if (b) ins.Add(b->Range(0, p.count, false, "Power"));
        ao::rt::Issue(ins);
    }
    steps.Next();
    ao::k::Ew("Power", ao::rt::OpClass::VecTranscend, sizeof(T), p, dst, ao::k::Strd{}, a, ao::k::Strd{}, b,
              ao::k::Strd{}, f);
    ao::k::AfterCountForm();
}
template <typename T>
inline void PowTT(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int64_t n) {
    const T* A = a.Data();
    const T* B = b.Data();
    PowRun<T>(dst, &a, &b, n, [&](uint64_t, uint64_t i, uint64_t j) { return ao::k::PowT<T>(A[i], B[j]); });
}
template <typename T>
inline void PowTS(const LocalTensor<T>& dst, const LocalTensor<T>& a, T s, int64_t n) {
    const T* A = a.Data();
    PowRun<T>(dst, &a, static_cast<const LocalTensor<T>*>(nullptr), n,
              [&](uint64_t, uint64_t i, uint64_t) { return ao::k::PowT<T>(A[i], s); });
}
template <typename T>
inline void PowST(const LocalTensor<T>& dst, T s, const LocalTensor<T>& b, int64_t n) {
    const T* B = b.Data();
    PowRun<T>(dst, &b, static_cast<const LocalTensor<T>*>(nullptr), n,
              [&](uint64_t, uint64_t i, uint64_t) { return ao::k::PowT<T>(s, B[i]); });
}
}  // namespace AoDetail

template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                             const LocalTensor<uint8_t>&, const uint32_t count) {
    AoDetail::PowTT<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                             const uint32_t count) {
    AoDetail::PowTT<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                             const LocalTensor<uint8_t>&) {
    AoDetail::PowTT<T>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
    AoDetail::PowTT<T>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const ao::k::AoId<T>& src1,
                             const LocalTensor<uint8_t>&, const uint32_t count) {
    AoDetail::PowTS<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const ao::k::AoId<T>& src1,
                             const uint32_t count) {
    AoDetail::PowTS<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const ao::k::AoId<T>& src1,
                             const LocalTensor<uint8_t>&) {
    AoDetail::PowTS<T>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const ao::k::AoId<T>& src1) {
    AoDetail::PowTS<T>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const ao::k::AoId<T>& src0, const LocalTensor<T>& src1,
                             const LocalTensor<uint8_t>&, const uint32_t count) {
    AoDetail::PowST<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const ao::k::AoId<T>& src0, const LocalTensor<T>& src1,
                             const uint32_t count) {
    AoDetail::PowST<T>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const ao::k::AoId<T>& src0, const LocalTensor<T>& src1,
                             const LocalTensor<uint8_t>&) {
    AoDetail::PowST<T>(dst, src0, src1, src1.GetSize());
}
template <typename T, bool isReuseSource = false>
__aicore__ inline void Power(const LocalTensor<T>& dst, const ao::k::AoId<T>& src0, const LocalTensor<T>& src1) {
    AoDetail::PowST<T>(dst, src0, src1, src1.GetSize());
}

}  // namespace AscendC
