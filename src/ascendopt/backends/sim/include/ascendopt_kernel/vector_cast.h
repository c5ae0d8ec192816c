// AscendOptimizer simulator: Cast with every RoundMode. Clean-room implementation.
// Every source value is first widened exactly to long double (64-bit significand on x86-64, so
// float/half/bf16/int8..int64 are all exact), then rounded once to the destination format with the
// requested mode. Float -> integer saturates (NaN -> 0).
#pragma once
#include "ascendopt_kernel/vector_core.h"

namespace ao::k {
// DEQSCALE register of the current core (SetDeqScale): the factor of int32 -> half casts.
inline thread_local float g_deq_scale = 1.0f;
}  // namespace ao::k

namespace ao::k {

using LD = long double;

inline LD RoundIntLD(LD x, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return __builtin_floorl(x);
        case RoundMode::CAST_CEIL: return __builtin_ceill(x);
        case RoundMode::CAST_ROUND: return __builtin_roundl(x);
        case RoundMode::CAST_TRUNC: return __builtin_truncl(x);
        case RoundMode::CAST_ODD: {
            LD t = __builtin_truncl(x);
            if (t != x) {
                LD h = t * 0.5L;
                if (__builtin_truncl(h) == h) t += (x < 0 ? -1.0L : 1.0L);
            }
            return t;
        }
        default: return __builtin_rintl(x);  // CAST_NONE / CAST_RINT / CAST_HYBRID: half to even
    }
}

// Rounds x to a binary floating format with `prec` significand bits (incl. the implicit one),
// smallest normal exponent `emin` (value 2^emin) and largest finite value `maxv`.
inline LD RoundToFormat(LD x, int prec, int emin, LD maxv, RoundMode m) {
    if (x != x || x == 0 || __builtin_isinf(x)) return x;
    int e = 0;
    (void)__builtin_frexpl(x, &e);  // |x| in [2^(e-1), 2^e)
    int q = e - prec;               // exponent of one ulp at x
    if (q < emin - prec + 1) q = emin - prec + 1;
    LD s = __builtin_ldexpl(x, -q);
    LD r = RoundIntLD(s, m);
    LD v = __builtin_ldexpl(r, q);
    if (v == 0) v = x < 0 ? -0.0L : 0.0L;
    if (__builtin_fabsl(v) > maxv) {
        bool isNeg = v < 0;
        LD inf = __builtin_infl();
        switch (m) {
            case RoundMode::CAST_TRUNC: case RoundMode::CAST_ODD: v = isNeg ? -maxv : maxv; break;
            case RoundMode::CAST_FLOOR: v = isNeg ? -inf : maxv; break;
            case RoundMode::CAST_CEIL: v = isNeg ? -maxv : inf; break;
            default: v = isNeg ? -inf : inf; break;
        }
    }
    return v;
}

template <typename T>
inline LD WidenLD(T v) {
    if constexpr (kIsFloatLike<T>) return LD(float(v));
    else return LD(v);
}

template <typename D>
inline D CastOne(LD x, RoundMode m) {
    if constexpr (std::is_same_v<D, float>) {
        return float(RoundToFormat(x, 24, -126, LD(3.40282346638528859812e+38L), m));
    } else if constexpr (std::is_same_v<D, half>) {
        LD v = RoundToFormat(x, 11, -14, 65504.0L, m);
        return half(float(v));  // exact: v is representable in half
    } else if constexpr (std::is_same_v<D, bfloat16_t>) {
        LD v = RoundToFormat(x, 8, -126, LD(3.38953138925153547590e+38L), m);
        if (v != v) return bfloat16_t::FromBits(0x7fc0);
        return bfloat16_t(float(v));
    } else {
        static_assert(kIsInt<D>, "Cast: unsupported destination type");
        if (x != x) return D(0);
        LD r = RoundIntLD(x, m);
        constexpr int kBits = int(sizeof(D) * 8);
        constexpr LD lo = std::is_signed_v<D> ? -LD(uint64_t(1) << (kBits - 1)) : LD(0);
        constexpr LD hiExcl = std::is_signed_v<D> ? LD(uint64_t(1) << (kBits - 1))
                                                  : (kBits == 64 ? LD(18446744073709551616.0L) : LD(uint64_t(1) << (kBits % 64)));
        if (r < lo) r = lo;
        if (r >= hiExcl) {
            if constexpr (std::is_signed_v<D>) return D((uint64_t(1) << (kBits - 1)) - 1);
            else return D(~D(0));
        }
        if constexpr (std::is_signed_v<D>) return D(int64_t(r));
        else return D(uint64_t(r));
    }
}

template <typename T>
constexpr bool kCastable = kIsFloatLike<T> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                           std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                           std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>;

template <typename D, typename S>
inline void CastRun(const Plan& p, const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode m, Strd ds,
                    Strd ss) {
    if constexpr (!kCastable<D> || !kCastable<S>) AoUnsupported("Cast", TypeName<D>());
    if (m > RoundMode::CAST_HYBRID)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Cast: invalid round mode %d", int(m));
    if (m == RoundMode::CAST_ODD && !(std::is_same_v<D, half> && std::is_same_v<S, float>))
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Cast: CAST_ODD is only supported for float -> half (got %s -> %s)",
                     TypeName<S>(), TypeName<D>());
    const S* A = src.Data();
    const bool nearest = m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT;
    constexpr uint32_t w = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
    Ew("Cast", ao::rt::OpClass::VecCast, w, p, dst, ds, &src, ss, static_cast<const LocalTensor<D>*>(nullptr), Strd{},
       [&](uint64_t, uint64_t i, uint64_t) {
           // Fast paths with the same results as the general rounding below: widening to
           // float is exact, and float -> half/bf16 under RINT/NONE is IEEE round-to-nearest-even.
           if constexpr (std::is_same_v<D, float> && (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t>)) {
               return float(A[i]);
           } else if constexpr (std::is_same_v<D, half> && std::is_same_v<S, float>) {
               if (nearest) return half(A[i]);
               return CastOne<D>(WidenLD(A[i]), m);
           } else if constexpr (std::is_same_v<D, bfloat16_t> && std::is_same_v<S, float>) {
               if (nearest && A[i] == A[i]) return bfloat16_t(A[i]);
               return CastOne<D>(WidenLD(A[i]), m);
           } else if constexpr (std::is_same_v<D, half> && std::is_same_v<S, int32_t>) {
               // int32 -> half goes through the dequantization path: scaled by DEQSCALE.
               return CastOne<D>(WidenLD(A[i]) * LD(ao::k::g_deq_scale), m);
           } else if constexpr (std::is_same_v<D, S> && kIsFloatLike<D>) {
               // Same floating type: round to an integral value (CAST_NONE copies).
               if (m == RoundMode::CAST_NONE) return A[i];
               return CastOne<D>(RoundIntLD(WidenLD(A[i]), m), m);
           } else {
               return CastOne<D>(WidenLD(A[i]), m);
           }
       });
}

}  // namespace ao::k

namespace AscendC {

template <typename T, typename U>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint32_t count) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCount("Cast", w, count);
    ao::k::CastRun<T, U>(p, dst, src, roundMode, ao::k::Contig(sizeof(T), w), ao::k::Contig(sizeof(U), w));
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask, const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanCont("Cast", w, mask, repeatTimes, isSetMask);
    ao::k::CastRun<T, U>(p, dst, src, roundMode, ao::k::DS(rp), ao::k::SS(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask[], const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    ao::k::Plan p = ao::k::PlanBits("Cast", w, mask, repeatTimes, isSetMask);
    ao::k::CastRun<T, U>(p, dst, src, roundMode, ao::k::DS(rp), ao::k::SS(rp));
}

}  // namespace AscendC
