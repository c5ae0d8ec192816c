// AscendOptimizer simulator: the high-level Mean (last-axis means, MeanParams). Clean-room
// emulation of the documented semantics: src is [outter, inner] (inner = n rounded up to 32
// bytes); dst[r] = (the sum of the n first elements of row r) / n, accumulated in accType (a
// half source with accType float is cast to float first and the mean cast back). The sum is
// pairwise as ReduceSum adds (a tree within each 256-byte repeat of accType, then over the
// repeat sums, rounded to accType between stages); the division is a multiply by 1/n in
// accType. half/float; one vector instruction per stage over all rows. The temporary buffer
// is accepted and not needed here (GetMeanMaxMinTmpSize gives a size to plan with).
#pragma once
#include <vector>

#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/vector_reduce.h"

namespace AscendC {

struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

}  // namespace AscendC

namespace ao::k {

template <typename T, typename Acc>
inline void MeanRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::MeanParams& mp) {
    const char* name = "Mean";
    RedCheck<T>(name);
    static_assert(std::is_same_v<Acc, T> || (std::is_same_v<Acc, float> && std::is_same_v<T, half>),
                  "Mean: accType is the source type, or float for a half source");
    const uint64_t outter = mp.outter, inner = mp.inner, n = mp.n;
    if (n < 1 || n > inner)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Mean: n %llu is not in [1, inner %llu]",
                     (unsigned long long)n, (unsigned long long)inner);
    if ((inner * sizeof(T)) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "Mean: inner %llu x %u bytes is not a multiple of 32 bytes",
                     (unsigned long long)inner, unsigned(sizeof(T)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    if (outter == 0) return;
    ao::rt::Access sA = src.Range(0, outter * inner, false, name), dA = dst.Range(0, outter, true, name);
    if (src.base_ == dst.base_ && src.off_ < dst.off_ + outter * sizeof(T) &&
        dst.off_ < src.off_ + outter * inner * sizeof(T))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Mean: source and destination overlap");
    // Cost: a cast pass (half -> float), one reduce instruction per stage, the 1/n multiply and
    // the cast back, each over all rows.
    constexpr bool widen = !std::is_same_v<Acc, T>;
    const uint32_t perRep = ONE_REPEAT_BYTE_SIZE / sizeof(Acc);
    ao::rt::LibSteps steps;
    auto issue = [&](const char* what, ao::rt::OpClass cls, uint64_t elems, bool reads, bool writes) {
        steps.Next();
        uint32_t reps = uint32_t((elems * sizeof(Acc) + ONE_REPEAT_BYTE_SIZE - 1) / ONE_REPEAT_BYTE_SIZE);
        ao::rt::Instr ins = VecInstr(what, cls, sizeof(Acc), reps ? reps : 1, elems);
        if (reads) ins.Add(sA);
        if (writes) ins.Add(dA);
        ao::rt::Issue(ins);
    };
    if (widen) issue(name, ao::rt::OpClass::VecCast, outter * n, true, false);
    uint64_t m = n;
    bool first = !widen;
    while (true) {
        uint64_t groups = (m + perRep - 1) / perRep;
        ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(Acc), uint32_t(outter * groups), outter * m);
        if (first) ins.Add(sA);
        steps.Next();
        ao::rt::Issue(ins);
        if (groups == 1) break;
        m = groups;
        first = false;
    }
    issue(name, ao::rt::OpClass::VecElementwise, outter, false, !widen);
    if (widen) issue(name, ao::rt::OpClass::VecCast, outter, false, true);

    const T* S = src.Data();
    const Acc scale = FromF32<Acc>(1.0f / float(n));
    std::vector<Acc> stage, next;
    std::vector<T> out(outter);
    float buf[256];
    for (uint64_t r = 0; r < outter; ++r) {
        stage.clear();
        for (uint64_t j = 0; j < n; ++j) stage.push_back(FromF32<Acc>(ToF32(S[r * inner + j])));
        while (stage.size() > 1) {
            next.clear();
            for (uint64_t b = 0; b < stage.size(); b += perRep) {
                uint32_t k = uint32_t(stage.size() - b < perRep ? stage.size() - b : perRep);
                for (uint32_t j = 0; j < k; ++j) buf[j] = ToF32(stage[b + j]);
                next.push_back(FromF32<Acc>(TreeSum(buf, k)));
            }
            stage.swap(next);
        }
        out[r] = FromF32<T>(ToF32(FromF32<Acc>(ToF32(stage[0]) * ToF32(scale))));
    }
    for (uint64_t r = 0; r < outter; ++r) dst.Data()[r] = out[r];
}

}  // namespace ao::k

namespace AscendC {

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
__aicore__ inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams) {
    (void)sharedTmpBuffer;
    ao::k::MeanRun<T, accType>(dstTensor, srcTensor, meanParams);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
__aicore__ inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                            const MeanParams& meanParams) {
    ao::k::MeanRun<T, accType>(dstTensor, srcTensor, meanParams);
}

}  // namespace AscendC
