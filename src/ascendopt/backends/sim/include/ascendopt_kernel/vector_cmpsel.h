// AscendOptimizer simulator: Compare / CompareScalar (bit-mask results), the CMPMASK register
// (GetCmpMask / SetCmpMask) and Select. Clean-room implementation.
#pragma once
#include "ascendopt_kernel/vector_core.h"

namespace ao::k {

template <typename T>
inline bool CmpPred(T a, T b, CMPMODE m) {
    if constexpr (kIsFloatLike<T>) {
        float x = ToF32(a), y = ToF32(b);
        switch (m) {
            case CMPMODE::LT: return x < y;
            case CMPMODE::GT: return x > y;
            case CMPMODE::EQ: return x == y;
            case CMPMODE::LE: return x <= y;
            case CMPMODE::GE: return x >= y;
            default: return x != y;
        }
    } else {
        switch (m) {
            case CMPMODE::LT: return a < b;
            case CMPMODE::GT: return a > b;
            case CMPMODE::EQ: return a == b;
            case CMPMODE::LE: return a <= b;
            case CMPMODE::GE: return a >= b;
            default: return a != b;
        }
    }
}

template <typename T>
inline void CmpCheck(const char* name, CMPMODE m) {
    if constexpr (std::is_same_v<T, bfloat16_t> || sizeof(T) == 8 || sizeof(T) == 1) AoUnsupported(name, TypeName<T>());
    if (uint8_t(m) > uint8_t(CMPMODE::NE))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: invalid CMPMODE %d", name, int(m));
}

// Compares src0 with src1 (tensor, or the scalar `s` when b == nullptr). Results go to the bit
// tensor `dst` (one bit per element, LSB first, each repeat's bits stored contiguously) or, when
// dst == nullptr, into the CMPMASK register (one repeat; masked-off bits keep their value).
template <typename T, typename U>
inline void CmpRun(const char* name, const Plan& p, const LocalTensor<U>* dst, const LocalTensor<T>& a, Strd as,
                   const LocalTensor<T>* b, Strd bs, T s, CMPMODE m) {
    CmpCheck<T>(name, m);
    if (p.repeats == 0) return;
    Hull ha, hb;
    uint64_t n = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < p.perRep; ++i) {
            if (!p.On(r, i)) continue;
            ha.Add(Idx(p, r, i, sizeof(T), as));
            if (b) hb.Add(Idx(p, r, i, sizeof(T), bs));
            ++n;
        }
    uint32_t repBytes = p.perRep / 8;
    uint64_t outBytes = p.counter ? (p.count + 7) / 8 : uint64_t(p.repeats) * repBytes;
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecElementwise, sizeof(T), p.repeats, n);
    if (dst) ins.Add(dst->RangeBytes(0, outBytes, true, name));
    ha.AddTo(ins, a, false, name);
    if (b) hb.AddTo(ins, *b, false, name);
    ao::rt::Issue(ins);
    const T* A = a.Data();
    const T* B = b ? b->Data() : nullptr;
    if (dst == nullptr) {
        for (uint32_t i = 0; i < p.perRep && i < 128; ++i) {
            if (!p.On(0, i)) continue;
            bool v = CmpPred<T>(A[Idx(p, 0, i, sizeof(T), as)], B ? B[Idx(p, 0, i, sizeof(T), bs)] : s, m);
            uint64_t bit = 1ull << (i & 63);
            if (v) g_cmpmask.w[i >> 6] |= bit;
            else g_cmpmask.w[i >> 6] &= ~bit;
        }
        return;
    }
    uint8_t* D = reinterpret_cast<uint8_t*>(dst->Data());
    uint8_t tmp[32];
    for (uint32_t r = 0; r < p.repeats; ++r) {
        std::memset(tmp, 0, sizeof(tmp));
        for (uint32_t i = 0; i < p.perRep; ++i) {
            if (!p.On(r, i)) continue;
            if (CmpPred<T>(A[Idx(p, r, i, sizeof(T), as)], B ? B[Idx(p, r, i, sizeof(T), bs)] : s, m))
                tmp[i >> 3] = uint8_t(tmp[i >> 3] | (1u << (i & 7)));
        }
        uint64_t start = uint64_t(r) * repBytes;
        uint64_t nb = repBytes;
        if (start + nb > outBytes) nb = outBytes - start;
        std::memcpy(D + start, tmp, nb);
    }
}

template <typename T, typename U>
inline void SelRun(const char* name, const Plan& p, const LocalTensor<T>& dst, Strd ds, const uint8_t* selBits,
                   const LocalTensor<U>* sel, const LocalTensor<T>& a, Strd as, const LocalTensor<T>* b, Strd bs, T s,
                   SELMODE mode) {
    if constexpr (std::is_same_v<T, bfloat16_t> || sizeof(T) == 8) AoUnsupported(name, TypeName<T>());
    if (uint8_t(mode) > uint8_t(SELMODE::VSEL_TENSOR_TENSOR_MODE))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: invalid SELMODE %d", name, int(mode));
    bool perIter = mode != SELMODE::VSEL_CMPMASK_SPR;
    if (p.repeats == 0) return;
    // The selection bits read: mode 0 reuses the first repeat's bits, modes 1/2 consume them in order.
    uint64_t maxBit = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < p.perRep; ++i)
            if (p.On(r, i)) {
                uint64_t bit = perIter ? uint64_t(r) * p.perRep + i : i;
                if (bit + 1 > maxBit) maxBit = bit + 1;
            }
    if (sel && maxBit) {
        // Checked before the main instruction so an out-of-range selMask is reported as such.
        (void)sel->RangeBytes(0, (maxBit + 7) / 8, false, name);
    }
    const T* A = a.Data();
    const T* B = b ? b->Data() : nullptr;
    uint32_t perRep = p.perRep;
    // The bit tensor access is folded into the element-wise executor via a trailing access record.
    auto body = [&](uint64_t, uint64_t i, uint64_t j, uint64_t bit) {
        bool pick0 = (selBits[bit >> 3] >> (bit & 7)) & 1u;
        return pick0 ? A[i] : (B ? B[j] : s);
    };
    // Run with the executor; the bit index is derived from the dst position in the walk.
    Hull hd, ha, hb;
    uint64_t n = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < perRep; ++i) {
            if (!p.On(r, i)) continue;
            hd.Add(Idx(p, r, i, sizeof(T), ds));
            ha.Add(Idx(p, r, i, sizeof(T), as));
            if (b) hb.Add(Idx(p, r, i, sizeof(T), bs));
            ++n;
        }
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecElementwise, sizeof(T), p.repeats, n);
    hd.AddTo(ins, dst, true, name);
    ha.AddTo(ins, a, false, name);
    if (b) hb.AddTo(ins, *b, false, name);
    if (sel && maxBit) ins.Add(sel->RangeBytes(0, (maxBit + 7) / 8, false, name));
    ao::rt::Issue(ins);
    T tmp[256];
    T* D = dst.Data();
    for (uint32_t r = 0; r < p.repeats; ++r) {
        for (uint32_t i = 0; i < perRep; ++i)
            if (p.On(r, i))
                tmp[i] = body(0, Idx(p, r, i, sizeof(T), as), b ? Idx(p, r, i, sizeof(T), bs) : 0,
                              perIter ? uint64_t(r) * perRep + i : i);
        for (uint32_t i = 0; i < perRep; ++i)
            if (p.On(r, i)) D[Idx(p, r, i, sizeof(T), ds)] = tmp[i];
    }
}

// The count forms compare whole 256-byte repeats only: the documented rule (Compare / CompareScalar
// count: "elements past the last whole 256-byte block take no part"; the A2 library issues
// count * sizeof(T) / 256 repeats). Their result bits past that are left as they were.
template <typename T>
inline uint32_t CmpWholeRepeats(uint32_t count) {
    return uint32_t(uint64_t(count) * sizeof(T) / 256 * (256 / sizeof(T)));
}

}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Compare: tensor vs tensor.
template <typename T, typename U>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, uint32_t count) {
    ao::k::Plan p = ao::k::PlanCount("Compare", sizeof(T), ao::k::CmpWholeRepeats<T>(count));
    ao::k::CmpRun<T, U>("Compare", p, &dst, src0, ao::k::Strd{}, &src1, ao::k::Strd{}, T{}, cmpMode);
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, const uint64_t mask, const uint32_t repeatTimes,
                               const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("Compare", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::CmpRun<T, U>("Compare", p, &dst, src0, ao::k::S0(rp), &src1, ao::k::S1(rp), T{}, cmpMode);
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, const uint64_t mask[], const uint32_t repeatTimes,
                               const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("Compare", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::CmpRun<T, U>("Compare", p, &dst, src0, ao::k::S0(rp), &src1, ao::k::S1(rp), T{}, cmpMode);
}
// Compare with the result stored in the CMPMASK register (one repeat).
template <typename T, bool isSetMask = true>
__aicore__ inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                               const uint64_t mask, const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("Compare", sizeof(T), mask, 1, isSetMask);
    p.repeats = 1;
    ao::k::CmpRun<T, uint8_t>("Compare", p, nullptr, src0, ao::k::S0(rp), &src1, ao::k::S1(rp), T{}, cmpMode);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                               const uint64_t mask[], const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("Compare", sizeof(T), mask, 1, isSetMask);
    p.repeats = 1;
    ao::k::CmpRun<T, uint8_t>("Compare", p, nullptr, src0, ao::k::S0(rp), &src1, ao::k::S1(rp), T{}, cmpMode);
}

// CompareScalar: tensor vs scalar.
template <typename T, typename U>
__aicore__ inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                                     const ao::k::AoId<T> src1Scalar, CMPMODE cmpMode, uint32_t count) {
    ao::k::Plan p = ao::k::PlanCount("CompareScalar", sizeof(T), ao::k::CmpWholeRepeats<T>(count));  // as Compare
    ao::k::CmpRun<T, U>("CompareScalar", p, &dst, src0, ao::k::Strd{}, static_cast<const LocalTensor<T>*>(nullptr),
                        ao::k::Strd{}, src1Scalar, cmpMode);
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                                     const ao::k::AoId<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
                                     const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("CompareScalar", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::CmpRun<T, U>("CompareScalar", p, &dst, src0, ao::k::SS(rp), static_cast<const LocalTensor<T>*>(nullptr),
                        ao::k::Strd{}, src1Scalar, cmpMode);
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                                     const ao::k::AoId<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                                     const uint32_t repeatTimes, const UnaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("CompareScalar", sizeof(T), mask, repeatTimes, isSetMask);
    ao::k::CmpRun<T, U>("CompareScalar", p, &dst, src0, ao::k::SS(rp), static_cast<const LocalTensor<T>*>(nullptr),
                        ao::k::Strd{}, src1Scalar, cmpMode);
}

// CMPMASK register access (128 bits = 16 bytes).
template <typename T>
__aicore__ inline void GetCmpMask(const LocalTensor<T>& dst) {
    ao::rt::Instr ins = ao::k::VecInstr("GetCmpMask", ao::rt::OpClass::VecElementwise, 1, 1, 16);
    ins.Add(dst.RangeBytes(0, 16, true, "GetCmpMask"));
    ao::rt::Issue(ins);
    std::memcpy(dst.Data(), ao::k::g_cmpmask.w, 16);
}
template <typename T>
__aicore__ inline void SetCmpMask(const LocalTensor<T>& src) {
    ao::rt::Instr ins = ao::k::VecInstr("SetCmpMask", ao::rt::OpClass::VecElementwise, 1, 1, 16);
    ins.Add(src.RangeBytes(0, 16, false, "SetCmpMask"));
    ao::rt::Issue(ins);
    std::memcpy(ao::k::g_cmpmask.w, src.Data(), 16);
}

// ---------------------------------------------------------------------------------------------
// Select. selMask bit = 1 picks src0, 0 picks src1 (tensor or scalar).
namespace AoDetail {
template <typename T, typename U>
inline void SelectTT(const ao::k::Plan& p, const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                     const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE mode, ao::k::Strd ds,
                     ao::k::Strd s0, ao::k::Strd s1) {
    if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Select: VSEL_TENSOR_SCALAR_MODE needs a scalar src1");
    ao::k::SelRun<T, U>("Select", p, dst, ds, reinterpret_cast<const uint8_t*>(selMask.Data()), &selMask, src0, s0,
                        &src1, s1, T{}, mode);
}
template <typename T, typename U>
inline void SelectTS(const ao::k::Plan& p, const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                     const LocalTensor<T>& src0, T s, SELMODE mode, ao::k::Strd ds, ao::k::Strd s0) {
    if (mode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Select: a scalar src1 needs VSEL_TENSOR_SCALAR_MODE");
    ao::k::SelRun<T, U>("Select", p, dst, ds, reinterpret_cast<const uint8_t*>(selMask.Data()), &selMask, src0, s0,
                        static_cast<const LocalTensor<T>*>(nullptr), ao::k::Strd{}, s, mode);
}
}  // namespace AoDetail

template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
    ao::k::Plan p = ao::k::PlanCount("Select", sizeof(T), count);
    AoDetail::SelectTT<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::Strd{}, ao::k::Strd{}, ao::k::Strd{});
    ao::k::AfterCountForm();
}
template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const ao::k::AoId<T> src1, SELMODE selMode, uint32_t count) {
    ao::k::Plan p = ao::k::PlanCount("Select", sizeof(T), count);
    AoDetail::SelectTS<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::Strd{}, ao::k::Strd{});
    ao::k::AfterCountForm();
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, const uint32_t repeatTimes,
                              const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("Select", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::SelectTT<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::DS(rp), ao::k::S0(rp), ao::k::S1(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[],
                              const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("Select", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::SelectTT<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::DS(rp), ao::k::S0(rp), ao::k::S1(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const ao::k::AoId<T> src1, SELMODE selMode, uint64_t mask, const uint32_t repeatTimes,
                              const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanCont("Select", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::SelectTS<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::DS(rp), ao::k::S0(rp));
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const ao::k::AoId<T> src1, SELMODE selMode, const uint64_t mask[],
                              const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    ao::k::Plan p = ao::k::PlanBits("Select", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::SelectTS<T, U>(p, dst, selMask, src0, src1, selMode, ao::k::DS(rp), ao::k::S0(rp));
}
// Register form: selection bits from the CMPMASK register (mode 0), mask from SetVectorMask.
template <typename T, SELMODE selMode = SELMODE::VSEL_CMPMASK_SPR>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                              const uint32_t repeatTimes, const BinaryRepeatParams& rp) {
    ao::k::CheckRepeat("Select", repeatTimes);
    ao::k::Plan p = ao::k::PlanFromState(sizeof(T), repeatTimes);
    uint8_t bits[16];
    std::memcpy(bits, ao::k::g_cmpmask.w, 16);
    ao::k::SelRun<T, uint8_t>("Select", p, dst, ao::k::DS(rp), bits, nullptr, src0, ao::k::S0(rp), &src1,
                              ao::k::S1(rp), T{}, SELMODE::VSEL_CMPMASK_SPR);
}

}  // namespace AscendC
