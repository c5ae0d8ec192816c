// AscendOptimizer simulator: reductions (ReduceSum/Max/Min, WholeReduce*, BlockReduce*,
// PairReduceSum), Brcb and Gather. Clean-room implementation.
#pragma once
#include <vector>

#include "ascendopt_kernel/vector_core.h"

namespace ao::k {

template <typename T>
inline void RedCheck(const char* name) {
    if constexpr (!kIsHalfOrFloat<T>) AoUnsupported(name, TypeName<T>());
}

// Pairwise (tree) sum in float of v[0..n).
inline float TreeSum(const float* v, uint32_t n) {
    if (n == 0) return 0.0f;
    if (n == 1) return v[0];
    uint32_t h = n / 2;
    return TreeSum(v, h) + TreeSum(v + h, n - h);
}

// Index bits stored in a T slot (uint16 for 2-byte T, uint32 for 4-byte T).
template <typename T>
inline T IndexAs(uint32_t idx) {
    if constexpr (sizeof(T) == 2) return FromBits<T>(uint64_t(uint16_t(idx)));
    else return FromBits<T>(uint64_t(idx));
}

template <typename T>
inline void SetMaxMinRegister(T value, uint32_t index) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T) < 4 ? sizeof(T) : 4);
    ao::rt::Cur().maxmin_value_bits = bits;
    ao::rt::Cur().maxmin_index = index;
}

// Accumulator register (ACC_VAL) of the current core: the fp32 bits of the last ReduceSum result,
// read back by GetAccVal.
inline thread_local uint64_t g_acc_val = 0;
inline void SetAccRegister(float sum) {
    uint32_t bits = 0;
    std::memcpy(&bits, &sum, 4);
    g_acc_val = bits;
}

enum class RedOp : uint8_t { Sum, Max, Min };

// Reduces the active elements of repeat r. Returns the value (in float) and the in-repeat index.
template <RedOp OP, typename T>
inline float RepReduce(const Plan& p, uint32_t r, const T* S, Strd ss, uint32_t& idx, bool& hasAny) {
    float buf[256];
    uint32_t pos[256];
    uint32_t n = 0;
    for (uint32_t i = 0; i < p.perRep; ++i)
        if (p.On(r, i)) {
            buf[n] = ToF32(S[Idx(p, r, i, sizeof(T), ss)]);
            pos[n++] = i;
        }
    hasAny = n > 0;
    idx = 0;
    if (n == 0) return 0.0f;
    if constexpr (OP == RedOp::Sum) return TreeSum(buf, n);
    float best = buf[0];
    idx = pos[0];
    for (uint32_t k = 1; k < n; ++k) {
        bool better = OP == RedOp::Max ? buf[k] > best : buf[k] < best;
        if (better) { best = buf[k]; idx = pos[k]; }
    }
    return best;
}

template <typename T>
inline Hull SrcHull(const Plan& p, Strd ss, uint64_t& n) {
    Hull h;
    n = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < p.perRep; ++i)
            if (p.On(r, i)) { h.Add(Idx(p, r, i, sizeof(T), ss)); ++n; }
    return h;
}

// Level-2 ReduceMax/ReduceMin over `count` contiguous elements; intermediate results of each
// stage go to workLocal (as the library does) when more than one repeat is needed. The value and
// global index are found directly (the stage structure only affects timing and accesses).
template <RedOp OP, typename T>
inline void ReduceAll(const char* name, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, uint64_t count, bool calIndex) {
    static_assert(OP != RedOp::Sum, "the count-form ReduceSum is ReduceSumAcc");
    RedCheck<T>(name);
    if (count == 0) return;
    const uint32_t perRep = ONE_REPEAT_BYTE_SIZE / sizeof(T);
    const T* S = src.Data();
    float bestVal = ToF32(S[0]);
    uint64_t bestIdx = 0;
    for (uint64_t i = 1; i < count; ++i) {
        float v = ToF32(S[i]);
        bool better = OP == RedOp::Max ? v > bestVal : v < bestVal;
        if (better) { bestVal = v; bestIdx = i; }
    }
    uint64_t n = count;
    bool first = true;
    ao::rt::LibSteps steps;
    while (true) {
        steps.Next();
        uint64_t groups = (n + perRep - 1) / perRep;
        bool last = groups == 1;
        ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(T), uint32_t(groups), n);
        if (first) ins.Add(src.Range(0, n, false, name));
        else ins.Add(work.Range(0, n, false, name));
        if (last) ins.Add(dst.Range(0, calIndex ? 2 : 1, true, name));
        else ins.Add(work.Range(0, groups, true, name));
        ao::rt::Issue(ins);
        if (last) break;
        n = groups;
        first = false;
    }
    dst.Data()[0] = FromF32<T>(bestVal);
    if (calIndex) dst.Data()[1] = IndexAs<T>(uint32_t(bestIdx));
    SetMaxMinRegister(FromF32<T>(bestVal), uint32_t(bestIdx));
}

// Level-2 ReduceSum on A2: one vcadd in counter mode whose sum goes to the ACC register (read by
// GetAccVal) and to dst[0]. Each repeat is summed as a binary tree and the repeat sums are added
// in order (the documented accumulation of the count form on A2); sharedTmpBuffer is not used,
// so nothing but dst[0] is written. `p` says which elements: `count` of them when the API sets
// the mask (isSetMask), otherwise the mask the kernel set (a counter value, or one repeat of its
// normal-mode bits).
template <typename T>
inline void ReduceSumAcc(const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src) {
    RedCheck<T>("ReduceSum");
    uint64_t n = 0;
    Hull hs = SrcHull<T>(p, Strd{}, n);
    if (n == 0) return;  // count 0: a NOP, dst not written
    ao::rt::Instr ins = VecInstr("ReduceSum", ao::rt::OpClass::VecReduce, sizeof(T), p.repeats, n);
    hs.AddTo(ins, src, false, "ReduceSum");
    ins.Add(dst.Range(0, 1, true, "ReduceSum"));
    ao::rt::Issue(ins);
    const T* S = src.Data();
    float acc = 0.0f;
    for (uint32_t r = 0; r < p.repeats; ++r) {
        uint32_t idx = 0;
        bool hasAny = false;
        float v = RepReduce<RedOp::Sum, T>(p, r, S, Strd{}, idx, hasAny);
        if (hasAny) acc = ToF32(FromF32<T>(acc + ToF32(FromF32<T>(v))));
    }
    dst.Data()[0] = FromF32<T>(acc);
    SetAccRegister(acc);
}

// Level-0 ReduceSum/Max/Min: all active elements of all repeats into dst[0] (and dst[1] index).
template <RedOp OP, typename T>
inline void ReduceMasked(const char* name, const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const LocalTensor<T>& work, Strd ss, bool calIndex) {
    RedCheck<T>(name);
    if (p.repeats == 0) return;
    uint64_t n = 0;
    Hull hs = SrcHull<T>(p, ss, n);
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(T), p.repeats, n);
    hs.AddTo(ins, src, false, name);
    if (p.repeats > 1) ins.Add(work.Range(0, p.repeats, true, name));
    ins.Add(dst.Range(0, (OP != RedOp::Sum && calIndex) ? 2 : 1, true, name));
    ao::rt::Issue(ins);
    const T* S = src.Data();
    std::vector<float> vals(p.repeats);
    std::vector<uint64_t> gidx(p.repeats);
    uint32_t m = 0;
    for (uint32_t r = 0; r < p.repeats; ++r) {
        uint32_t idx = 0;
        bool hasAny = false;
        float v = RepReduce<OP, T>(p, r, S, ss, idx, hasAny);
        if (!hasAny) continue;
        vals[m] = ToF32(FromF32<T>(v));
        gidx[m++] = Idx(p, r, idx, sizeof(T), ss);
    }
    if (m == 0) return;
    if constexpr (OP == RedOp::Sum) {
        dst.Data()[0] = FromF32<T>(TreeSum(vals.data(), m));
        SetAccRegister(TreeSum(vals.data(), m));
    } else {
        float best = vals[0];
        uint64_t bi = gidx[0];
        for (uint32_t k = 1; k < m; ++k) {
            bool better = OP == RedOp::Max ? vals[k] > best : vals[k] < best;
            if (better) { best = vals[k]; bi = gidx[k]; }
        }
        dst.Data()[0] = FromF32<T>(best);
        if (calIndex) dst.Data()[1] = IndexAs<T>(uint32_t(bi));
        SetMaxMinRegister(FromF32<T>(best), uint32_t(bi));
    }
}

// WholeReduce*: one result per repeat.
template <RedOp OP, typename T>
inline void WholeReduce(const char* name, const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        int32_t dstRepStride, Strd ss, ReduceOrder order) {
    RedCheck<T>(name);
    if (dstRepStride < 0 || ss.blk > 0xffff || ss.rep > 0xffff)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: negative stride", name);
    if (p.repeats == 0) return;
    // Output slot geometry (element units of T).
    uint32_t slot = 1;   // elements written per repeat
    uint64_t unit = 1;   // dstRepStride unit in elements
    bool bytes4Index = false;
    if (OP != RedOp::Sum) {
        if (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE) { slot = 2; unit = 2; }
        else if (order == ReduceOrder::ORDER_ONLY_INDEX) { bytes4Index = true; }
    }
    uint64_t n = 0;
    Hull hs = SrcHull<T>(p, ss, n);
    uint64_t dstBytesEnd = 0;
    uint64_t stride = bytes4Index ? uint64_t(dstRepStride) * 4 : uint64_t(dstRepStride) * unit * sizeof(T);
    uint64_t slotBytes = bytes4Index ? 4 : slot * sizeof(T);
    dstBytesEnd = stride * (p.repeats - 1) + slotBytes;
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(T), p.repeats, n);
    uint64_t lo = 0;
    ins.Add(dst.RangeBytes(lo, dstBytesEnd, true, name));
    hs.AddTo(ins, src, false, name);
    ao::rt::Issue(ins);
    const T* S = src.Data();
    uint8_t* D = reinterpret_cast<uint8_t*>(dst.Data());
    struct Res { T v; T i; uint32_t raw; bool hasAny; };
    std::vector<Res> res(p.repeats);  // counter mode: ceil(count / perRep) repeats, may exceed 255
    for (uint32_t r = 0; r < p.repeats; ++r) {
        uint32_t idx = 0;
        bool hasAny = false;
        float v = RepReduce<OP, T>(p, r, S, ss, idx, hasAny);
        res[r] = Res{FromF32<T>(v), IndexAs<T>(idx), idx, hasAny};
    }
    if (OP != RedOp::Sum) {
        // The max/min register holds the extreme over all repeats of the instruction (the first one
        // on ties) and its index in the repeat sequence, r * elements-per-repeat + in-repeat index
        // (GetReduceRepeatMaxMinSpr / GetReduceMaxMinCount: "所有repeat内的最值及其索引"; for a
        // contiguous source, the element's offset from src).
        int64_t best = -1;
        for (uint32_t r = 0; r < p.repeats; ++r) {
            if (!res[r].hasAny) continue;
            bool better = best < 0 || (OP == RedOp::Max ? ToF32(res[r].v) > ToF32(res[best].v)
                                                        : ToF32(res[r].v) < ToF32(res[best].v));
            if (better) best = r;
        }
        if (best >= 0) SetMaxMinRegister(res[best].v, uint32_t(best) * p.perRep + res[best].raw);
    }
    for (uint32_t r = 0; r < p.repeats; ++r) {
        uint8_t* o = D + stride * r;
        if (OP == RedOp::Sum || order == ReduceOrder::ORDER_ONLY_VALUE) {
            std::memcpy(o, &res[r].v, sizeof(T));
        } else if (order == ReduceOrder::ORDER_VALUE_INDEX) {
            std::memcpy(o, &res[r].v, sizeof(T));
            std::memcpy(o + sizeof(T), &res[r].i, sizeof(T));
        } else if (order == ReduceOrder::ORDER_INDEX_VALUE) {
            std::memcpy(o, &res[r].i, sizeof(T));
            std::memcpy(o + sizeof(T), &res[r].v, sizeof(T));
        } else {
            std::memcpy(o, &res[r].raw, 4);
        }
    }
}

// BlockReduce*: one result per 32-byte block (8 per repeat); PairReduceSum: one per pair.
template <RedOp OP, typename T>
inline void BlockReduce(const char* name, const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        int32_t dstRepStride, Strd ss, bool pair) {
    RedCheck<T>(name);
    if (dstRepStride < 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: negative stride", name);
    if (p.repeats == 0) return;
    uint32_t groupLen = pair ? 2 : p.blkElems;
    uint32_t outs = p.perRep / groupLen;  // results per repeat
    uint64_t n = 0;
    Hull hs = SrcHull<T>(p, ss, n);
    uint64_t stride = uint64_t(dstRepStride) * outs;
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(T), p.repeats, n);
    ins.Add(dst.Range(0, stride * (p.repeats - 1) + outs, true, name));
    hs.AddTo(ins, src, false, name);
    ao::rt::Issue(ins);
    const T* S = src.Data();
    T* D = dst.Data();
    for (uint32_t r = 0; r < p.repeats; ++r) {
        T tmp[128];
        for (uint32_t g = 0; g < outs; ++g) {
            float vals[16];
            uint32_t m = 0;
            for (uint32_t k = 0; k < groupLen; ++k) {
                uint32_t i = g * groupLen + k;
                if (p.On(r, i)) vals[m++] = ToF32(S[Idx(p, r, i, sizeof(T), ss)]);
            }
            float v = 0.0f;
            if (m > 0) {
                if constexpr (OP == RedOp::Sum) v = TreeSum(vals, m);
                else {
                    v = vals[0];
                    for (uint32_t k = 1; k < m; ++k) v = (OP == RedOp::Max) ? (vals[k] > v ? vals[k] : v) : (vals[k] < v ? vals[k] : v);
                }
            }
            tmp[g] = FromF32<T>(v);
        }
        for (uint32_t g = 0; g < outs; ++g) D[stride * r + g] = tmp[g];
    }
}

}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// ReduceSum / ReduceMax / ReduceMin.
// Count form: isSetMask (default) sums the first `count` elements and leaves the mask register in
// normal mode, all ones; isSetMask = false sums what the mask the kernel set selects (count has no
// effect). workLocal is not used on A2 (see ReduceSumAcc).
template <typename T, bool isSetMask = true>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
                                 const int32_t count) {
    (void)workLocal;
    if (count < 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "ReduceSum: negative count %d", count);
    if constexpr (isSetMask) {
        ao::k::ReduceSumAcc<T>(ao::k::PlanCount("ReduceSum", sizeof(T), count), dst, src);
        ao::k::AfterCountForm();
    } else {
        ao::k::ReduceSumAcc<T>(ao::k::PlanFromState(sizeof(T), 1), dst, src);
    }
}
template <typename T>
__aicore__ inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
                                 const int32_t count, bool calIndex = false) {
    if (count < 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "ReduceMax: negative count %d", count);
    ao::k::ReduceAll<ao::k::RedOp::Max, T>("ReduceMax", dst, src, workLocal, uint64_t(count), calIndex);
    ao::k::AfterCountForm();
}
template <typename T>
__aicore__ inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
                                 const int32_t count, bool calIndex = false) {
    if (count < 0) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "ReduceMin: negative count %d", count);
    ao::k::ReduceAll<ao::k::RedOp::Min, T>("ReduceMin", dst, src, workLocal, uint64_t(count), calIndex);
    ao::k::AfterCountForm();
}

#define AO_REDUCE_L0(Name, OP, IDXPARAM, IDXARG)                                                                  \
    template <typename T>                                                                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                             \
                                const LocalTensor<T>& workLocal, const uint64_t mask, const int32_t repeatTimes,  \
                                const int32_t srcRepStride IDXPARAM) {                                            \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, uint32_t(repeatTimes), true);                     \
        ao::k::ReduceMasked<OP, T>(#Name, p, dst, src, workLocal, ao::k::Strd{1, uint32_t(srcRepStride)}, IDXARG); \
    }                                                                                                             \
    template <typename T>                                                                                         \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                             \
                                const LocalTensor<T>& workLocal, const uint64_t mask[], const int32_t repeatTimes,\
                                const int32_t srcRepStride IDXPARAM) {                                            \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, uint32_t(repeatTimes), true);                     \
        ao::k::ReduceMasked<OP, T>(#Name, p, dst, src, workLocal, ao::k::Strd{1, uint32_t(srcRepStride)}, IDXARG); \
    }
#define AO_COMMA ,
AO_REDUCE_L0(ReduceSum, ao::k::RedOp::Sum, , false)
AO_REDUCE_L0(ReduceMax, ao::k::RedOp::Max, AO_COMMA bool calIndex = false, calIndex)
AO_REDUCE_L0(ReduceMin, ao::k::RedOp::Min, AO_COMMA bool calIndex = false, calIndex)
#undef AO_REDUCE_L0

// ---------------------------------------------------------------------------------------------
// WholeReduceSum / WholeReduceMax / WholeReduceMin.
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                                      const int32_t repeatTimes, const int32_t dstRepStride,
                                      const int32_t srcBlkStride, const int32_t srcRepStride) {
    ao::k::Plan p = ao::k::PlanCont("WholeReduceSum", sizeof(T), mask, uint32_t(repeatTimes), isSetMask);
    ao::k::WholeReduce<ao::k::RedOp::Sum, T>("WholeReduceSum", p, dst, src, dstRepStride,
                                             ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)},
                                             ReduceOrder::ORDER_ONLY_VALUE);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                                      const int32_t repeatTimes, const int32_t dstRepStride,
                                      const int32_t srcBlkStride, const int32_t srcRepStride) {
    ao::k::Plan p = ao::k::PlanBits("WholeReduceSum", sizeof(T), mask, uint32_t(repeatTimes), isSetMask);
    ao::k::WholeReduce<ao::k::RedOp::Sum, T>("WholeReduceSum", p, dst, src, dstRepStride,
                                             ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)},
                                             ReduceOrder::ORDER_ONLY_VALUE);
}
#define AO_WHOLE_MAXMIN(Name, OP)                                                                                  \
    template <typename T, bool isSetMask = true>                                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,         \
                                const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride, \
                                const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {  \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, uint32_t(repeatTimes), isSetMask);                 \
        ao::k::WholeReduce<OP, T>(#Name, p, dst, src, dstRepStride,                                                \
                                  ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)}, order);             \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],       \
                                const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride, \
                                const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {  \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, uint32_t(repeatTimes), isSetMask);                 \
        ao::k::WholeReduce<OP, T>(#Name, p, dst, src, dstRepStride,                                                \
                                  ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)}, order);             \
    }
AO_WHOLE_MAXMIN(WholeReduceMax, ao::k::RedOp::Max)
AO_WHOLE_MAXMIN(WholeReduceMin, ao::k::RedOp::Min)
#undef AO_WHOLE_MAXMIN

// GetReduceMaxMinCount: the value and index of the last ReduceMax/ReduceMin/WholeReduceMax/
// WholeReduceMin on this core (for WholeReduce*, its last repeat); the index is returned as
// its bit pattern in a T, as the hardware stores it.
template <typename T>
__aicore__ inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GetReduceMaxMinCount: T must be half or float");
    uint32_t bits = ao::rt::Cur().maxmin_value_bits;
    std::memcpy(&maxMinValue, &bits, sizeof(T));
    maxMinIndex = ao::k::IndexAs<T>(ao::rt::Cur().maxmin_index);
}
template <typename T>
__aicore__ inline void GetReduceMaxMinCount(T& maxMinValue) {
    T index;
    GetReduceMaxMinCount<T>(maxMinValue, index);
}

// ---------------------------------------------------------------------------------------------
// BlockReduceSum / Max / Min and PairReduceSum (note: repeatTimes comes before mask).
#define AO_BLOCK_REDUCE(Name, OP, PAIR)                                                                            \
    template <typename T, bool isSetMask = true>                                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,   \
                                const uint64_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,       \
                                const int32_t srcRepStride) {                                                      \
        ao::k::Plan p = ao::k::PlanCont(#Name, sizeof(T), mask, uint32_t(repeatTimes), isSetMask);                 \
        ao::k::BlockReduce<OP, T>(#Name, p, dst, src, dstRepStride,                                                \
                                  ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)}, PAIR);              \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,   \
                                const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,     \
                                const int32_t srcRepStride) {                                                      \
        ao::k::Plan p = ao::k::PlanBits(#Name, sizeof(T), mask, uint32_t(repeatTimes), isSetMask);                 \
        ao::k::BlockReduce<OP, T>(#Name, p, dst, src, dstRepStride,                                                \
                                  ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)}, PAIR);              \
    }
AO_BLOCK_REDUCE(BlockReduceSum, ao::k::RedOp::Sum, false)
AO_BLOCK_REDUCE(BlockReduceMax, ao::k::RedOp::Max, false)
AO_BLOCK_REDUCE(BlockReduceMin, ao::k::RedOp::Min, false)
AO_BLOCK_REDUCE(PairReduceSum, ao::k::RedOp::Sum, true)
#undef AO_BLOCK_REDUCE
#undef AO_COMMA

// ---------------------------------------------------------------------------------------------
// Brcb: each of 8 source elements per repeat is broadcast to one 32-byte destination block.
template <typename T>
__aicore__ inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint32_t repeatTimes,
                            const BrcbRepeatParams& rp) {
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) ao::k::AoUnsupported("Brcb", ao::k::TypeName<T>());
    ao::k::CheckRepeat("Brcb", repeatTimes);
    if (repeatTimes == 0) return;
    constexpr uint32_t E = ONE_BLK_SIZE / sizeof(T);
    ao::k::Hull hd;
    for (uint32_t r = 0; r < repeatTimes; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            uint64_t base = (uint64_t(r) * rp.dstRepStride + uint64_t(b) * rp.dstBlkStride) * E;
            hd.Add(base);
            hd.Add(base + E - 1);
        }
    ao::rt::Instr ins = ao::k::VecInstr("Brcb", ao::rt::OpClass::VecElementwise, sizeof(T), repeatTimes,
                                        uint64_t(repeatTimes) * 8 * E);
    hd.AddTo(ins, dst, true, "Brcb");
    ins.Add(src0.Range(0, uint64_t(repeatTimes) * 8, false, "Brcb"));
    ao::rt::Issue(ins);
    const T* S = src0.Data();
    T* D = dst.Data();
    for (uint32_t r = 0; r < repeatTimes; ++r) {
        T v[8];
        for (uint32_t b = 0; b < 8; ++b) v[b] = S[r * 8 + b];
        for (uint32_t b = 0; b < 8; ++b) {
            uint64_t base = (uint64_t(r) * rp.dstRepStride + uint64_t(b) * rp.dstBlkStride) * E;
            for (uint32_t k = 0; k < E; ++k) D[base + k] = v[b];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Gather: dst[i] = element at byte offset srcBaseAddr + srcOffset[i] of src.
namespace AoDetail {
template <typename T>
inline void GatherRun(const ao::k::Plan& p, const LocalTensor<T>& dst, ao::k::Strd ds, const LocalTensor<T>& src,
                      const LocalTensor<uint32_t>& off, uint32_t base) {
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) ao::k::AoUnsupported("Gather", ao::k::TypeName<T>());
    if (p.repeats == 0) return;
    ao::k::Strd os{1, uint32_t(p.perRep * 4 / ONE_BLK_SIZE)};
    const uint32_t* O = off.Data();
    ao::k::Hull hd, ho, hs;
    uint64_t n = 0;
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < p.perRep; ++i) {
            if (!p.On(r, i)) continue;
            hd.Add(ao::k::Idx(p, r, i, sizeof(T), ds));
            ho.Add(ao::k::Idx(p, r, i, 4, os));
            ++n;
        }
    // Offsets must be read (bounds-checked) before they can be used.
    if (ho.hasAny) (void)off.Range(ho.lo, ho.hi - ho.lo + 1, false, "Gather");
    for (uint32_t r = 0; r < p.repeats; ++r)
        for (uint32_t i = 0; i < p.perRep; ++i) {
            if (!p.On(r, i)) continue;
            uint64_t byteOff = uint64_t(base) + O[ao::k::Idx(p, r, i, 4, os)];
            if (byteOff % sizeof(T) != 0)
                ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "Gather: byte offset %llu is not a multiple of %u",
                             (unsigned long long)byteOff, unsigned(sizeof(T)));
            hs.Add(byteOff / sizeof(T));
        }
    ao::rt::Instr ins = ao::k::VecInstr("Gather", ao::rt::OpClass::VecGather, sizeof(T), p.repeats, n);
    hd.AddTo(ins, dst, true, "Gather");
    hs.AddTo(ins, src, false, "Gather");
    ho.AddTo(ins, off, false, "Gather");
    ao::rt::Issue(ins);
    const T* S = src.Data();
    T* D = dst.Data();
    T tmp[128];
    for (uint32_t r = 0; r < p.repeats; ++r) {
        for (uint32_t i = 0; i < p.perRep; ++i)
            if (p.On(r, i)) tmp[i] = S[(uint64_t(base) + O[ao::k::Idx(p, r, i, 4, os)]) / sizeof(T)];
        for (uint32_t i = 0; i < p.perRep; ++i)
            if (p.On(r, i)) D[ao::k::Idx(p, r, i, sizeof(T), ds)] = tmp[i];
    }
}
}  // namespace AoDetail

template <typename T>
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                              const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint32_t count) {
    ao::k::Plan p = ao::k::PlanCount("Gather", sizeof(T), count);
    AoDetail::GatherRun<T>(p, dst, ao::k::Strd{}, src, srcOffset, srcBaseAddr);
    ao::k::AfterCountForm();
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                              const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint64_t mask,
                              const uint32_t repeatTimes, const uint16_t dstRepStride) {
    ao::k::Plan p = ao::k::PlanCont("Gather", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::GatherRun<T>(p, dst, ao::k::Strd{1, dstRepStride}, src, srcOffset, srcBaseAddr);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                              const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                              const uint64_t mask[], const uint32_t repeatTimes, const uint16_t dstRepStride) {
    ao::k::Plan p = ao::k::PlanBits("Gather", sizeof(T), mask, repeatTimes, isSetMask);
    AoDetail::GatherRun<T>(p, dst, ao::k::Strd{1, dstRepStride}, src, srcOffset, srcBaseAddr);
}

}  // namespace AscendC
