// AscendOptimizer simulator: GatherMask (keep the elements of src0 selected by a bit pattern and
// write them densely to dst). Clean-room emulation of the documented semantics:
//   - pattern: a built-in one (uint8_t 1..7: even, odd, 1st/2nd/3rd/4th of every four, all) or a
//     user tensor of uint16_t/uint32_t words read as a bit stream, bit k selecting element k of
//     the repeat (element 0 = least significant bit); consecutive repeats start
//     src1RepeatStride 32-byte blocks further in the pattern tensor;
//   - reduceMode false (normal): every repeat covers 256 bytes of src0, `mask` is ignored;
//     reduceMode true (counter): every repeat covers `mask` elements;
//   - src0 element k of repeat r sits at block stride src0BlockStride and repeat stride
//     src0RepeatStride (32-byte blocks); dst receives the kept elements back to back;
//   - rsvdCnt returns the number of kept elements.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

struct GatherMaskParams {
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 1;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
    __aicore__ GatherMaskParams() = default;
    __aicore__ GatherMaskParams(uint8_t src0BlockStrideIn, uint16_t repeatTimesIn, uint16_t src0RepeatStrideIn,
                                uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
};

enum class GatherMaskMode : uint8_t { DEFAULT = 0, V1, V2 };

}  // namespace AscendC

namespace ao::k {

// RSVD_CNT register of the current core: the kept-element count of the last GatherMask.
inline thread_local uint64_t g_rsvd_cnt = 0;

template <typename T>
inline uint32_t GatherMaskPerRepeat(const char* name, bool reduceMode, uint32_t mask) {
    if (!reduceMode) return ONE_REPEAT_BYTE_SIZE / sizeof(T);
    if (mask == 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: counter-mode mask is 0", name);
    return mask;
}

// `bit(r, k)` says whether element k of repeat r is kept; `patternAccess` adds the pattern
// tensor's read range (user pattern) to the instruction.
template <typename T, class Bit, class PatternAccess>
inline void GatherMaskRun(const char* name, const LocalTensor<T>& dst, const LocalTensor<T>& src0, bool reduceMode,
                          uint32_t mask, const GatherMaskParams& gp, uint64_t& rsvdCnt, Bit&& bit,
                          PatternAccess&& patternAccess) {
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) AoUnsupported(name, TypeName<T>());
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src0, name);
    const uint32_t per = GatherMaskPerRepeat<T>(name, reduceMode, mask);
    const uint32_t blk = ONE_BLK_SIZE / sizeof(T);
    const uint32_t reps = gp.repeatTimes;
    if (reps > MAX_REPEAT_TIMES)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: repeatTimes %u exceeds the maximum of %u", name, reps,
                     MAX_REPEAT_TIMES);
    auto srcIdx = [&](uint32_t r, uint32_t k) {
        return uint64_t(r) * gp.src0RepeatStride * blk + uint64_t(k / blk) * gp.src0BlockStride * blk + k % blk;
    };
    Hull hs;
    uint64_t kept = 0;
    for (uint32_t r = 0; r < reps; ++r)
        for (uint32_t k = 0; k < per; ++k) {
            hs.Add(srcIdx(r, k));
            if (bit(r, k)) ++kept;
        }
    uint64_t processed = uint64_t(reps) * per;
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecGather, sizeof(T),
                                 uint32_t((processed * sizeof(T) + ONE_REPEAT_BYTE_SIZE - 1) / ONE_REPEAT_BYTE_SIZE),
                                 processed);
    hs.AddTo(ins, src0, false, name);
    if (kept > 0) ins.Add(dst.Range(0, kept, true, name));
    patternAccess(ins);
    ao::rt::Issue(ins);
    // Read everything before writing (dst may overlap src0).
    T* out = new T[kept > 0 ? kept : 1];
    uint64_t n = 0;
    const T* S = src0.Data();
    for (uint32_t r = 0; r < reps; ++r)
        for (uint32_t k = 0; k < per; ++k)
            if (bit(r, k)) out[n++] = S[srcIdx(r, k)];
    std::memcpy(dst.Data(), out, kept * sizeof(T));
    delete[] out;
    rsvdCnt = kept;
    g_rsvd_cnt = kept;
}

inline bool BuiltinPatternBit(const char* name, uint8_t pattern, uint32_t k) {
    switch (pattern) {
        case 1: return k % 2 == 0;
        case 2: return k % 2 == 1;
        case 3: case 4: case 5: case 6: return k % 4 == uint32_t(pattern - 3);
        case 7: return true;
        default:
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: built-in pattern %u is not in [1, 7]", name,
                         unsigned(pattern));
    }
}

}  // namespace ao::k

namespace AscendC {

// User pattern tensor (uint16_t words for 16-bit data, uint32_t words for 32-bit data).
template <typename T, typename U, GatherMaskMode mode = GatherMaskMode::DEFAULT>
__aicore__ inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                  const LocalTensor<U>& src1Pattern, const bool reduceMode, const uint32_t mask,
                                  const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
    static_assert(std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t>,
                  "GatherMask: the pattern tensor holds uint16_t or uint32_t words");
    if constexpr (sizeof(T) != sizeof(U)) ao::k::AoUnsupported("GatherMask (pattern word size)", ao::k::TypeName<U>());
    const char* name = "GatherMask";
    ao::k::CheckLocalAligned(src1Pattern, name);
    const uint32_t per = ao::k::GatherMaskPerRepeat<T>(name, reduceMode, mask);
    const uint64_t repBits = uint64_t(gatherMaskParams.src1RepeatStride) * ONE_BLK_SIZE * 8;
    const uint8_t* P = reinterpret_cast<const uint8_t*>(src1Pattern.Data());
    auto bitPos = [&](uint32_t r, uint32_t k) { return uint64_t(r) * repBits + k; };
    uint64_t lastBit = bitPos(gatherMaskParams.repeatTimes ? gatherMaskParams.repeatTimes - 1 : 0, per - 1);
    uint64_t patternBytes = (lastBit / (8 * sizeof(U)) + 1) * sizeof(U);
    ao::rt::Access pat = src1Pattern.RangeBytes(0, patternBytes, false, name);
    ao::k::GatherMaskRun(
        name, dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt,
        [&](uint32_t r, uint32_t k) {
            uint64_t b = bitPos(r, k);
            return ((P[b >> 3] >> (b & 7)) & 1u) != 0;
        },
        [&](ao::rt::Instr& ins) { ins.Add(pat); });
}

// Built-in pattern 1..7.
template <typename T, GatherMaskMode mode = GatherMaskMode::DEFAULT>
__aicore__ inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                                  const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                                  uint64_t& rsvdCnt) {
    ao::k::BuiltinPatternBit("GatherMask", src1Pattern, 0);
    ao::k::GatherMaskRun(
        "GatherMask", dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt,
        [&](uint32_t, uint32_t k) { return ao::k::BuiltinPatternBit("GatherMask", src1Pattern, k); },
        [](ao::rt::Instr&) {});
}

// The kept-element count of the last GatherMask (the RSVD_CNT register).
__aicore__ inline int64_t GetGatherMaskRemainCount() { return int64_t(ao::k::g_rsvd_cnt); }

}  // namespace AscendC
