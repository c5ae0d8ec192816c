// AscendOptimizer simulator: vector-unit core machinery shared by the vector APIs.
// Repeat parameters, the vector mask register (normal / counter mode), the repeat/block/mask
// walker that maps (repeat, element) to operand addresses, and numeric helpers.
// Clean-room implementation; see docs/sim-internals.md for the header rules.
#pragma once
#include "ascendopt_kernel/tensor.h"
#include "ascendopt_kernel/footprint.h"

namespace AscendC {

// Strides in 32-byte blocks (block stride inside a repeat, repeat stride between repeats).
struct BinaryRepeatParams {
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    __aicore__ BinaryRepeatParams() = default;
    __aicore__ BinaryRepeatParams(const uint8_t dBlk, const uint8_t s0Blk, const uint8_t s1Blk, const uint8_t dRep,
                                  const uint8_t s0Rep, const uint8_t s1Rep)
        : dstBlkStride(dBlk), src0BlkStride(s0Blk), src1BlkStride(s1Blk), dstRepStride(dRep), src0RepStride(s0Rep),
          src1RepStride(s1Rep) {}
};

struct UnaryRepeatParams {
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
    __aicore__ UnaryRepeatParams() = default;
    __aicore__ UnaryRepeatParams(const uint16_t dBlk, const uint16_t sBlk, const uint8_t dRep, const uint8_t sRep)
        : dstBlkStride(dBlk), srcBlkStride(sBlk), dstRepStride(dRep), srcRepStride(sRep) {}
    __aicore__ UnaryRepeatParams(const uint16_t dBlk, const uint16_t sBlk, const uint8_t dRep, const uint8_t sRep,
                                 const bool halfBlk)
        : dstBlkStride(dBlk), srcBlkStride(sBlk), dstRepStride(dRep), srcRepStride(sRep), halfBlock(halfBlk) {}
};

struct BrcbRepeatParams {
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    __aicore__ BrcbRepeatParams() = default;
    __aicore__ BrcbRepeatParams(const uint16_t dBlk, const uint16_t dRep) : dstBlkStride(dBlk), dstRepStride(dRep) {}
};

struct GatherRepeatParams {
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    __aicore__ GatherRepeatParams() = default;
    __aicore__ GatherRepeatParams(const uint16_t dBlk, const uint16_t dRep) : dstBlkStride(dBlk), dstRepStride(dRep) {}
};

constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};
// Every lane of one mask register word (kernels write SetVectorMask<T>(FULL_MASK, FULL_MASK)).
constexpr uint64_t FULL_MASK = 0xffffffffffffffffull;

}  // namespace AscendC

namespace ao::k {

using namespace AscendC;

// ---------------------------------------------------------------------------------------------
// Type traits and numeric helpers.
template <typename T>
constexpr bool kIsFloatLike = std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>;
template <typename T>
constexpr bool kIsHalfOrFloat = std::is_same_v<T, float> || std::is_same_v<T, half>;
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline float ToF32(T v) { return float(v); }
template <typename T>
inline T FromF32(float f) {
    if constexpr (std::is_same_v<T, half>) return half(f);          // RNE
    else if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_t(f);  // RNE
    else return T(f);
}

// Converts an arbitrary arithmetic scalar (possibly a user type convertible to T) to T.
template <typename T, typename U>
inline T ScalarAs(const U& u) {
    if constexpr (std::is_same_v<T, U>) return u;
    else if constexpr (std::is_same_v<T, half>) return half(float(u));
    else if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_t(float(u));
    else return static_cast<T>(u);
}

template <typename T>
inline uint64_t BitsOf(T v) {
    uint64_t r = 0;
    std::memcpy(&r, &v, sizeof(T));
    return r;
}
template <typename T>
inline T FromBits(uint64_t b) {
    T r;
    std::memcpy(&r, &b, sizeof(T));
    return r;
}

template <typename T>
inline const char* TypeName() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, half>) return "half";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16_t";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
    else return "?";
}

[[noreturn]] inline void AoUnsupported(const char* name, const char* what) {
    ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "%s: data type %s is not supported by this API", name, what);
}

// Identity alias used to make a template parameter non-deducible.
template <typename T>
struct AoIdentity { using type = T; };
template <typename T>
using AoId = typename AoIdentity<T>::type;

// ---------------------------------------------------------------------------------------------
// Execution plan of one vector instruction: how many repeats, and which elements of each
// repeat are active (normal mode: a bit mask; counter mode: the first `count` elements overall).
struct Plan {
    uint32_t repeats = 0;
    uint32_t perRep = 0;     // elements per repeat (256 / element size of the widest operand)
    uint32_t blkElems = 0;   // elements per block (perRep / 8)
    bool counter = false;
    uint64_t count = 0;      // counter mode: total active elements
    uint64_t w[4] = {0, 0, 0, 0};
    bool On(uint32_t r, uint32_t i) const {
        if (counter) return uint64_t(r) * perRep + i < count;
        return (w[i >> 6] >> (i & 63)) & 1u;
    }
    uint64_t Active() const {
        if (counter) return count;
        uint64_t n = 0;
        for (uint32_t i = 0; i < perRep; ++i) n += On(0, i) ? 1 : 0;
        return n * repeats;
    }
};

inline void InitPlan(Plan& p, uint32_t es) {
    p.perRep = ONE_REPEAT_BYTE_SIZE / es;
    p.blkElems = p.perRep / DEFAULT_BLK_NUM;
}

// Mask forms take the repeat count as the documented `const uint8_t repeatTime` and the bit mask
// as `uint64_t mask[]`. Both are deduced template parameters here: taking the address of an API
// for a function-pointer type of the documented signature deduces exactly that signature, while a
// call with a wider count (an int, a uint32_t) keeps its value, so a count above 255 is still
// reported by CheckRepeat instead of wrapping. The bit mask may be const or not.
#define AO_REPEAT_TPARAMS typename AoRep, std::enable_if_t<std::is_integral_v<AoRep>, int> = 0
#define AO_MASK_TPARAMS                                                                                           \
    typename AoMask, typename AoRep,                                                                              \
        std::enable_if_t<std::is_integral_v<AoRep> && std::is_same_v<std::remove_cv_t<AoMask>, uint64_t>, int> = 0

inline void CheckRepeat(const char* name, uint32_t repeatTimes) {
    if (repeatTimes > MAX_REPEAT_TIMES)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: repeatTimes %u exceeds the maximum of %u", name,
                     repeatTimes, MAX_REPEAT_TIMES);
}

// Continuous mask of `m` elements -> low/high register words.
inline void ContMaskBits(const char* name, uint32_t es, uint64_t m, uint64_t& lo, uint64_t& hi) {
    uint32_t perRep = ONE_REPEAT_BYTE_SIZE / es;
    uint32_t maxMask = perRep > 128 ? 128 : perRep;
    if (es == 1) maxMask = 256;
    // Above the documented range the device does not fault: SetMask<T>(len) fills the low word
    // (and, from 128, both words), and an instruction on 2- or 4-byte data reads only the words
    // its repeat has lanes for. Byte data has 256 lanes, more than the two words hold.
    if (m > maxMask && es == 1)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: continuous mask %llu exceeds %u elements per repeat for %u-byte data", name,
                     (unsigned long long)m, maxMask, es);
    if (m > maxMask) {
        char key[96];
        snprintf(key, sizeof key, "%s|%u", name, es);
        ao::rt::Warn(ao::rt::ErrorKind::MaskOutOfRange, key,
                     "%s: continuous mask %llu exceeds the %u elements of one repeat for %u-byte data; the mask "
                     "register is filled and the instruction takes %u per repeat", name, (unsigned long long)m,
                     maxMask, es, maxMask);
    }
    if (m >= 128) { lo = ~0ull; hi = ~0ull; }
    else if (m >= 64) { lo = ~0ull; hi = m == 64 ? 0 : (~0ull >> (128 - m)); }
    else { lo = m == 0 ? 0 : (~0ull >> (64 - m)); hi = 0; }
}

// Plan from the current mask register state.
inline Plan PlanFromState(uint32_t es, uint32_t repeatTimes) {
    Plan p;
    InitPlan(p, es);
    const ao::rt::MaskState& ms = ao::rt::Cur().mask;
    if (ms.counter_mode) {
        p.counter = true;
        p.count = ms.lo;
        p.repeats = uint32_t((p.count + p.perRep - 1) / p.perRep);
        return p;
    }
    p.repeats = repeatTimes;
    if (es >= 8) p.w[0] = ms.lo & 0xffffffffull;
    else if (es == 4) p.w[0] = ms.lo;
    else if (es == 2) { p.w[0] = ms.lo; p.w[1] = ms.hi; }
    else {
        p.w[0] = ms.lo; p.w[1] = ms.hi;
        if (ms.lo == ~0ull && ms.hi == ~0ull) { p.w[2] = ~0ull; p.w[3] = ~0ull; }
    }
    return p;
}

// Mask-form plan with a continuous mask.
inline Plan PlanCont(const char* name, uint32_t es, uint64_t mask, uint32_t repeatTimes, bool isSetMask) {
    CheckRepeat(name, repeatTimes);
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    if (isSetMask) {
        if (ms.counter_mode) { ms.lo = mask; ms.hi = 0; }
        else if (es == 1 && mask > 128) {
            Plan p;
            InitPlan(p, es);
            p.repeats = repeatTimes;
            ContMaskBits(name, es, mask, p.w[0], p.w[1]);  // checks the range
            for (uint32_t i = 0; i < mask; ++i) p.w[i >> 6] |= 1ull << (i & 63);
            ms.lo = ~0ull; ms.hi = ~0ull;
            return p;
        } else ContMaskBits(name, es, mask, ms.lo, ms.hi);
    }
    return PlanFromState(es, repeatTimes);
}

// Mask-form plan with a bit mask (mask[1] = high word, mask[0] = low word; 32/64-bit data
// only use mask[0]).
inline Plan PlanBits(const char* name, uint32_t es, const uint64_t* mask, uint32_t repeatTimes, bool isSetMask) {
    CheckRepeat(name, repeatTimes);
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    if (isSetMask) {
        if (mask == nullptr) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: mask array is null", name);
        if (ms.counter_mode) { ms.lo = mask[0]; ms.hi = 0; }
        else if (es >= 4) { ms.lo = mask[0]; ms.hi = 0; }
        else { ms.lo = mask[0]; ms.hi = mask[1]; }
    }
    return PlanFromState(es, repeatTimes);
}

// Count-form plan: `count` contiguous elements in counter mode.
inline Plan PlanCount(const char* name, uint32_t es, int64_t count) {
    if (count < 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: negative element count %lld", name, (long long)count);
    Plan p;
    InitPlan(p, es);
    p.counter = true;
    p.count = uint64_t(count);
    p.repeats = uint32_t((p.count + p.perRep - 1) / p.perRep);
    return p;
}

// The library's count-form implementation leaves the mask register in normal mode, all ones.
inline void AfterCountForm() {
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    ms.counter_mode = false;
    ms.lo = ~0ull;
    ms.hi = ~0ull;
}

// Operand geometry: strides in 32-byte blocks.
struct Strd {
    uint32_t blk = 1;
    uint32_t rep = 8;
};
// Contiguous layout of an operand of element size `es` in a plan whose widest element is `wide`.
inline Strd Contig(uint32_t es, uint32_t wide) { return Strd{1, uint32_t(8 * es / wide)}; }

inline Strd DS(const BinaryRepeatParams& r) { return Strd{r.dstBlkStride, r.dstRepStride}; }
inline Strd S0(const BinaryRepeatParams& r) { return Strd{r.src0BlkStride, r.src0RepStride}; }
inline Strd S1(const BinaryRepeatParams& r) { return Strd{r.src1BlkStride, r.src1RepStride}; }
inline Strd DS(const UnaryRepeatParams& r) { return Strd{r.dstBlkStride, r.dstRepStride}; }
inline Strd SS(const UnaryRepeatParams& r) { return Strd{r.srcBlkStride, r.srcRepStride}; }

// Element index (relative to the operand start) of element i of repeat r. A narrower operand
// (es < widest) packs its block of blkElems elements densely; its block stride is counted in
// those narrow blocks while the repeat stride stays in 32-byte units.
inline uint64_t Idx(const Plan& p, uint32_t r, uint32_t i, uint32_t es, Strd s) {
    uint32_t b = i / p.blkElems, o = i % p.blkElems;
    return uint64_t(r) * s.rep * (ONE_BLK_SIZE / es) + uint64_t(b) * s.blk * p.blkElems + o;
}

// Set bits of x, inline (without -mpopcnt the builtin is a library call).
inline uint64_t Pop64(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
}

inline ao::rt::Instr VecInstr(const char* name, ao::rt::OpClass cls, uint32_t dtypeBytes, uint32_t repeats,
                              uint64_t elems) {
    ao::rt::Instr ins;
    ins.name = name;
    ins.pipe = ao::rt::Pipe::V;
    ins.cls = cls;
    ins.dtype_bytes = dtypeBytes;
    ins.repeats = repeats;
    ins.elems = elems;
    ins.bytes = elems * dtypeBytes;
    ins.ub_stride_conflicts = 0;
    return ins;
}

// Generic element-wise executor. `f(dIdx, aIdx, bIdx)` returns the new dst element; all reads of
// a repeat happen before its writes (as the hardware reads a whole repeat before writing it).
template <typename TD, typename TA, typename TB, class F>
inline void Ew(const char* name, ao::rt::OpClass cls, uint32_t dtypeBytes, const Plan& p, const LocalTensor<TD>& d,
               Strd ds, const LocalTensor<TA>* a, Strd as, const LocalTensor<TB>* b, Strd bs, F&& f,
               bool readsDst = false) {
    if (p.repeats == 0) return;
    // Fast path: counter mode over operands laid out contiguously (the count form). Element k
    // of repeat r is linear index r * perRep + k for every operand; each repeat is still
    // computed into a buffer before it is written, as in the general path.
    auto linear = [&](Strd s, uint32_t es) { return s.blk == 1 && uint64_t(s.rep) * (ONE_BLK_SIZE / es) == p.perRep; };
    if (p.counter && linear(ds, sizeof(TD)) && (!a || linear(as, sizeof(TA))) && (!b || linear(bs, sizeof(TB)))) {
        uint64_t total = p.count < uint64_t(p.repeats) * p.perRep ? p.count : uint64_t(p.repeats) * p.perRep;
        ao::rt::Instr ins = VecInstr(name, cls, dtypeBytes, p.repeats, total);
        if (total > 0) {
            ins.Add(d.Range(0, total, true, name));
            if (a) ins.Add(a->Range(0, total, false, name));
            if (b) ins.Add(b->Range(0, total, false, name));
            if (readsDst) ins.Add(d.Range(0, total, false, name));
        }
        ao::rt::Issue(ins);
        TD tmp[256];
        TD* D = d.Data();
        for (uint64_t base = 0; base < total; base += p.perRep) {
            uint64_t len = total - base < p.perRep ? total - base : p.perRep;
            for (uint64_t k = 0; k < len; ++k) tmp[k] = f(base + k, base + k, base + k);
            for (uint64_t k = 0; k < len; ++k) D[base + k] = tmp[k];
        }
        return;
    }
    // General path, block by block: within a 32-byte block an operand's elements are
    // contiguous, so each block costs one base index per operand (no per-element division).
    const uint32_t be = p.blkElems;
    const uint64_t blkFull = be >= 64 ? ~0ull : (1ull << be) - 1;
    auto blockBits = [&](uint32_t r, uint32_t blk) -> uint64_t {  // active elements of a block
        if (p.counter) {
            uint64_t start = uint64_t(r) * p.perRep + uint64_t(blk) * be;
            if (start >= p.count) return 0;
            uint64_t left = p.count - start;
            return left >= be ? blkFull : (1ull << left) - 1;
        }
        uint32_t i = blk * be;
        return (p.w[i >> 6] >> (i & 63)) & blkFull;
    };
    auto base = [&](uint32_t r, uint32_t blk, uint32_t es, Strd s) {
        return uint64_t(r) * s.rep * (ONE_BLK_SIZE / es) + uint64_t(blk) * s.blk * be;
    };
    Hull hd, ha, hb;
    RelSpan rd, ra, rb;  // footprint of one repeat (every repeat has the same, or a prefix of it)
    uint64_t n = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t blk = 0; blk < DEFAULT_BLK_NUM; ++blk) {
            uint64_t m = blockBits(r, blk);
            if (m == 0) continue;
            uint32_t lo = uint32_t(__builtin_ctzll(m)), hi = 63u - uint32_t(__builtin_clzll(m));
            n += Pop64(m);
            uint64_t bd = base(r, blk, sizeof(TD), ds), od = base(0, blk, sizeof(TD), ds);
            hd.Add(bd + lo);
            hd.Add(bd + hi);
            rd.Add(od + lo, od + hi);
            if (a) {
                uint64_t ba = base(r, blk, sizeof(TA), as), oa = base(0, blk, sizeof(TA), as);
                ha.Add(ba + lo);
                ha.Add(ba + hi);
                ra.Add(oa + lo, oa + hi);
            }
            if (b) {
                uint64_t bb = base(r, blk, sizeof(TB), bs), ob = base(0, blk, sizeof(TB), bs);
                hb.Add(bb + lo);
                hb.Add(bb + hi);
                rb.Add(ob + lo, ob + hi);
            }
        }
    ao::rt::Instr ins = VecInstr(name, cls, dtypeBytes, p.repeats, n);
    // Repeat r of an operand starts r * rep * (32 / element size) elements after repeat 0, whose
    // first touched element starts the hull: the pieces are exact.
    auto rep = [](Strd s, uint32_t es) { return uint64_t(s.rep) * (ONE_BLK_SIZE / es); };
    hd.AddTo(ins, d, true, name, rep(ds, sizeof(TD)), rd.Span());
    if (a) ha.AddTo(ins, *a, false, name, rep(as, sizeof(TA)), ra.Span());
    if (b) hb.AddTo(ins, *b, false, name, rep(bs, sizeof(TB)), rb.Span());
    if (readsDst) hd.AddTo(ins, d, false, name, rep(ds, sizeof(TD)), rd.Span());
    ao::rt::Issue(ins);
    if (n == 0) return;
    TD tmp[256];
    TD* D = d.Data();
    for (uint32_t r = 0; r < p.repeats; ++r) {
        uint64_t bits[DEFAULT_BLK_NUM];
        for (uint32_t blk = 0; blk < DEFAULT_BLK_NUM; ++blk) {
            uint64_t m = bits[blk] = blockBits(r, blk);
            if (m == 0) continue;
            uint64_t bd = base(r, blk, sizeof(TD), ds);
            uint64_t ba = a ? base(r, blk, sizeof(TA), as) : 0;
            uint64_t bb = b ? base(r, blk, sizeof(TB), bs) : 0;
            TD* t = tmp + blk * be;
            if (m == blkFull) {
                for (uint32_t o = 0; o < be; ++o) t[o] = f(bd + o, a ? ba + o : 0, b ? bb + o : 0);
            } else {
                for (uint32_t o = 0; o < be; ++o)
                    if ((m >> o) & 1u) t[o] = f(bd + o, a ? ba + o : 0, b ? bb + o : 0);
            }
        }
        for (uint32_t blk = 0; blk < DEFAULT_BLK_NUM; ++blk) {
            uint64_t m = bits[blk];
            if (m == 0) continue;
            uint64_t bd = base(r, blk, sizeof(TD), ds);
            const TD* t = tmp + blk * be;
            for (uint32_t o = 0; o < be; ++o)
                if ((m >> o) & 1u) D[bd + o] = t[o];
        }
    }
}

// Compare-mask register (CMPMASK SPR) of the current core, 128 bits.
struct CmpMaskReg {
    uint64_t w[2] = {0, 0};
};
inline thread_local CmpMaskReg g_cmpmask;

}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Vector mask register.
template <typename T = half, MaskMode mode = MaskMode::NORMAL>
__aicore__ inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    ms.hi = maskHigh;
    ms.lo = maskLow;
}
template <typename T = half, MaskMode mode = MaskMode::NORMAL>
__aicore__ inline void SetVectorMask(int32_t len) {
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    if (mode == MaskMode::COUNTER || ms.counter_mode) {
        ms.lo = uint64_t(uint32_t(len));
        ms.hi = 0;
        return;
    }
    if (len < 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "SetVectorMask: negative length %d", len);
    ao::k::ContMaskBits("SetVectorMask", sizeof(T), uint64_t(len), ms.lo, ms.hi);
}
__aicore__ inline void SetMaskCount() { ao::rt::Cur().mask.counter_mode = true; }
__aicore__ inline void SetMaskNorm() { ao::rt::Cur().mask.counter_mode = false; }
__aicore__ inline void ResetMask() {
    ao::rt::MaskState& ms = ao::rt::Cur().mask;
    ms.lo = ~0ull;
    ms.hi = ~0ull;
}
template <typename T = half>
__aicore__ inline void SetMaskCount() { SetMaskCount(); }
template <typename T = half>
__aicore__ inline void SetMaskNorm() { SetMaskNorm(); }

}  // namespace AscendC
