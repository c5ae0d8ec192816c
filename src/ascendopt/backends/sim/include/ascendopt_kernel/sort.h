// AscendOptimizer simulator: the sort family of an Atlas A2 core (layout one of the docs):
// Sort32, MrgSort (MrgSortSrcList / MrgSort4Info) and GetMrgSortResult; the high-level Sort
// (isFullSort), MrgSort<T, isExhaustedSuspension>, Concat, Extract, GetSortLen, GetSortOffset.
// Clean-room emulation of the documented semantics:
//   - a sorted element is an 8-byte (score, index) structure: the score in the low bytes (a float,
//     or a half followed by 2 reserved bytes), the uint32 index in the high 4 bytes;
//   - sorting is by score, descending; equal scores keep their input order (and a merge takes
//     from the earlier queue first);
//   - Sort32 sorts each repeat's 32 scores (src0 advances 32 elements, the uint32 indices 32,
//     dst 32 structures = 256 bytes per repeat); Sort<T, true> sorts all 32 * repeatTime scores,
//     Sort<T, false> each group of 32;
//   - MrgSort merges 2-4 sorted queues (validBit 0b11 / 0b111 / 0b1111, lengths in structures);
//     with exhausted suspension it stops when a queue runs out and reports how much of each queue
//     it took (GetMrgSortResult / sortedNum); repeatTime > 1 needs four contiguous equal queues;
//   - Extract splits 32 structures per repeat into scores and indices; Concat lays out the
//     scores Sort reads (on this layout a copy of 32 * repeatTime scores);
//   - GetSortLen / GetSortOffset give a number of structures in elements of T (8 / sizeof(T) per
//     structure), the unit kernels index tensors and size copies with.
// Timed as vector instructions of the gather class, one repeat per 256 bytes written; the
// high-level Sort issues its Sort32 and each merge pass over the data.
#pragma once
#include <cstring>
#include <vector>

#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

struct MrgSort4Info {
    __aicore__ MrgSort4Info() {}
    __aicore__ MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn,
                            const uint16_t validBitIn, const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

template <typename T>
struct MrgSortSrcList {
    __aicore__ MrgSortSrcList() {}
    __aicore__ MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In,
                              const LocalTensor<T>& src3In, const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

template <typename T>
__aicore__ inline uint32_t GetSortLen(const uint32_t elemCount) { return elemCount * (8u / uint32_t(sizeof(T))); }
template <typename T>
__aicore__ inline uint32_t GetSortOffset(const uint32_t elemOffset) { return elemOffset * (8u / uint32_t(sizeof(T))); }

}  // namespace AscendC

namespace ao::k {

constexpr uint32_t kSortRec = 8;  // bytes of one (score, index) structure

// The MrgSort counters register (what each queue gave to the last suspended merge).
struct MrgSortReg {
    uint16_t taken[4] = {0, 0, 0, 0};
};
inline thread_local MrgSortReg g_mrgsort;

template <typename T>
inline void SortTypeCheck(const char* name) {
    if constexpr (!std::is_same_v<T, half> && !std::is_same_v<T, float>) AoUnsupported(name, TypeName<T>());
}
template <typename T>
inline float RecScore(const uint8_t* rec) {
    T s;
    std::memcpy(&s, rec, sizeof(T));
    return ToF32(s);
}
// Stable descending order of `n` structures at `recs` (a copy is sorted, then written back).
template <typename T>
inline void SortRecs(uint8_t* recs, uint32_t n) {
    std::vector<uint32_t> ord(n);
    for (uint32_t i = 0; i < n; ++i) ord[i] = i;
    std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) {
        return RecScore<T>(recs + a * kSortRec) > RecScore<T>(recs + b * kSortRec);
    });
    std::vector<uint8_t> tmp(recs, recs + uint64_t(n) * kSortRec);
    for (uint32_t i = 0; i < n; ++i) std::memcpy(recs + uint64_t(i) * kSortRec, tmp.data() + uint64_t(ord[i]) * kSortRec, kSortRec);
}
template <typename T>
inline void PackRec(uint8_t* rec, T score, uint32_t index) {
    std::memset(rec, 0, kSortRec);
    std::memcpy(rec, &score, sizeof(T));
    std::memcpy(rec + 4, &index, 4);
}

inline uint32_t RepsOfBytes(uint64_t bytes) { return uint32_t((bytes + 255) / 256); }

template <typename T>
inline void SortIssue(const char* name, uint32_t repeats, uint64_t elems, const ao::rt::Access* acc, int n) {
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecGather, sizeof(T), repeats, elems);
    for (int i = 0; i < n; ++i) ins.Add(acc[i]);
    ao::rt::Issue(ins);
}

// Sort32 over `R` repeats: scores from src0, indices from src1, structures into dst.
template <typename T>
inline void Sort32Run(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                      const AscendC::LocalTensor<uint32_t>& src1, uint32_t R, bool full) {
    SortTypeCheck<T>(name);
    if (R == 0) return;
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src0, name);
    CheckLocalAligned(src1, name);
    const uint64_t n = uint64_t(R) * 32;
    ao::rt::Access acc[3] = {dst.RangeBytes(0, n * kSortRec, true, name), src0.Range(0, n, false, name),
                             src1.Range(0, n, false, name)};
    SortIssue<T>(name, R, n, acc, 3);
    std::vector<uint8_t> recs(n * kSortRec);
    for (uint64_t i = 0; i < n; ++i) PackRec<T>(&recs[i * kSortRec], src0.Data()[i], src1.Data()[i]);
    if (full) {
        SortRecs<T>(recs.data(), uint32_t(n));
    } else {
        for (uint32_t r = 0; r < R; ++r) SortRecs<T>(&recs[uint64_t(r) * 32 * kSortRec], 32);
    }
    std::memcpy(reinterpret_cast<uint8_t*>(dst.Data()), recs.data(), recs.size());
}

// Merges the queues of `lists` (counts in structures) into dst; returns what each queue gave.
template <typename T>
inline uint32_t MergeRun(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>* lists[4],
                         const uint16_t counts[4], uint16_t validBit, bool suspend, uint32_t repeat,
                         uint16_t taken[4]) {
    SortTypeCheck<T>(name);
    int q = validBit == 0b11 ? 2 : validBit == 0b111 ? 3 : validBit == 0b1111 ? 4 : 0;
    if (q == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: validBit %u is not 0b11, 0b111 or 0b1111", name,
                     unsigned(validBit));
    for (int i = 0; i < 4; ++i) taken[i] = 0;
    if (repeat == 0) return 0;
    CheckLocalAligned(dst, name);
    for (int i = 0; i < q; ++i)
        if (lists[i]->off_ % 8 != 0)
            ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "%s: queue %d address %llu is not 8-byte aligned", name,
                         i + 1, (unsigned long long)lists[i]->off_);
    if (repeat > 1) {
        bool contiguous = q == 4 && !suspend;
        for (int i = 1; i < q && contiguous; ++i)
            contiguous = counts[i] == counts[0] && lists[i]->base_ == lists[0]->base_ &&
                         lists[i]->off_ == lists[0]->off_ + uint64_t(i) * counts[0] * kSortRec;
        if (!contiguous)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "%s: repeatTimes %u needs four contiguous queues of one length, validBit 0b1111 and no "
                         "exhausted suspension", name, repeat);
    }
    uint64_t inTotal = 0;
    for (int i = 0; i < q; ++i) inTotal += counts[i];
    // Bounds of every queue (over all repeats for the contiguous form) and of the output.
    const uint64_t stride = inTotal * kSortRec;  // bytes per repeat (contiguous form)
    ao::rt::Access acc[4];
    int na = 0;
    for (int i = 0; i < q; ++i) {
        uint64_t bytes = uint64_t(counts[i]) * kSortRec + (repeat > 1 ? (repeat - 1) * stride : 0);
        ao::rt::Access a = lists[i]->RangeBytes(0, bytes, false, name);
        if (na < 3) {
            acc[na++] = a;
        } else {  // three read slots: the fourth queue joins the third's range (one slot stays for dst)
            acc[2].begin = std::min(acc[2].begin, a.begin);
            acc[2].end = std::max(acc[2].end, a.end);
        }
    }
    // The merge: one pass per repeat.
    std::vector<uint8_t> out;
    out.reserve(stride * repeat);
    for (uint32_t r = 0; r < repeat; ++r) {
        const uint8_t* src[4];
        uint32_t pos[4] = {0, 0, 0, 0};
        for (int i = 0; i < q; ++i)
            src[i] = reinterpret_cast<const uint8_t*>(lists[i]->Data()) + uint64_t(r) * stride;
        while (true) {
            int best = -1;
            bool exhausted = false;
            for (int i = 0; i < q; ++i) {
                if (pos[i] >= counts[i]) {
                    exhausted = true;
                    continue;
                }
                if (best < 0 || RecScore<T>(src[i] + pos[i] * kSortRec) > RecScore<T>(src[best] + pos[best] * kSortRec))
                    best = i;
            }
            if (best < 0 || (suspend && exhausted)) break;
            out.insert(out.end(), src[best] + pos[best] * kSortRec, src[best] + (pos[best] + 1) * kSortRec);
            ++pos[best];
        }
        for (int i = 0; i < q; ++i) taken[i] = uint16_t(pos[i]);
    }
    acc[na++] = dst.RangeBytes(0, out.size(), true, name);
    SortIssue<T>(name, RepsOfBytes(out.size()), out.size() / kSortRec, acc, na);
    std::memcpy(reinterpret_cast<uint8_t*>(dst.Data()), out.data(), out.size());
    return uint32_t(out.size() / kSortRec);
}

}  // namespace ao::k

namespace AscendC {

template <typename T>
__aicore__ inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                              const int32_t repeatTime) {
    ao::k::CheckRepeat("Sort32", uint32_t(repeatTime));
    ao::k::Sort32Run("Sort32", dst, src0, src1, uint32_t(repeatTime), false);
}

template <typename T>
__aicore__ inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
    const LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    ao::k::MergeRun("MrgSort", dst, lists, params.elementLengths, params.validBit, params.ifExhaustedSuspension,
                    params.repeatTimes, ao::k::g_mrgsort.taken);
}

__aicore__ inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                                        uint16_t& mrgSortList4) {
    mrgSortList1 = ao::k::g_mrgsort.taken[0];
    mrgSortList2 = ao::k::g_mrgsort.taken[1];
    mrgSortList3 = ao::k::g_mrgsort.taken[2];
    mrgSortList4 = ao::k::g_mrgsort.taken[3];
}

// High-level MrgSort: 2-4 queues, sortedNum receives what each queue gave.
template <typename T, bool isExhaustedSuspension = false>
__aicore__ inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList,
                               const uint16_t elementCountList[4], uint32_t sortedNum[4], uint16_t validBit,
                               const int32_t repeatTime) {
    const LocalTensor<T>* lists[4] = {&sortList.src1, &sortList.src2, &sortList.src3, &sortList.src4};
    uint16_t taken[4];
    ao::k::MergeRun("MrgSort", dst, lists, elementCountList, validBit, isExhaustedSuspension, uint32_t(repeatTime),
                    taken);
    for (int i = 0; i < 4; ++i) {
        sortedNum[i] = taken[i];
        ao::k::g_mrgsort.taken[i] = taken[i];
    }
}

// High-level Sort: Sort32 over each 32 scores, then (isFullSort) merge passes of four queues
// until one sorted run remains; tmp holds the runs between passes.
template <typename T, bool isFullSort>
__aicore__ inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
                            LocalTensor<T>& tmp, const int32_t repeatTime) {
    const char* name = "Sort";
    ao::k::CheckRepeat(name, uint32_t(repeatTime));
    uint32_t R = uint32_t(repeatTime);
    ao::rt::LibSteps steps;
    steps.Next();
    ao::k::Sort32Run(name, dst, concat, index, R, isFullSort);
    if (!isFullSort || R <= 1) return;
    // The merge passes the library runs on the device: runs of 32, 128, 512, ... until one run.
    ao::k::CheckLocalAligned(tmp, name);
    uint64_t bytes = uint64_t(R) * 32 * ao::k::kSortRec;
    ao::rt::Access acc[2] = {dst.RangeBytes(0, bytes, false, name),
                             tmp.RangeBytes(0, std::min<uint64_t>(bytes, uint64_t(tmp.GetSize()) * sizeof(T)), true,
                                            name)};
    for (uint64_t run = 32; run < uint64_t(R) * 32; run *= 4) {
        steps.Next();
        ao::k::SortIssue<T>("MrgSort", ao::k::RepsOfBytes(bytes), bytes / ao::k::kSortRec, acc, 2);
        std::swap(acc[0].write, acc[1].write);
        std::swap(acc[0], acc[1]);
    }
}

template <typename T>
__aicore__ inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp,
                              const int32_t repeatTime) {
    (void)tmp;
    const char* name = "Concat";
    ao::k::SortTypeCheck<T>(name);
    ao::k::CheckRepeat(name, uint32_t(repeatTime));
    if (repeatTime == 0) return;
    ao::k::CheckLocalAligned(concat, name);
    ao::k::CheckLocalAligned(src, name);
    uint64_t n = uint64_t(repeatTime) * 32;
    ao::rt::Access acc[2] = {concat.Range(0, n, true, name), src.Range(0, n, false, name)};
    ao::rt::Instr ins = ao::k::VecInstr(name, ao::rt::OpClass::VecElementwise, sizeof(T), ao::k::RepsOfBytes(n * sizeof(T)), n);
    ins.Add(acc[0]);
    ins.Add(acc[1]);
    ao::rt::Issue(ins);
    std::memmove(concat.Data(), src.Data(), n * sizeof(T));
}

template <typename T>
__aicore__ inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
                               const LocalTensor<T>& sorted, const int32_t repeatTime) {
    const char* name = "Extract";
    ao::k::SortTypeCheck<T>(name);
    ao::k::CheckRepeat(name, uint32_t(repeatTime));
    if (repeatTime == 0) return;
    ao::k::CheckLocalAligned(dstValue, name);
    ao::k::CheckLocalAligned(dstIndex, name);
    ao::k::CheckLocalAligned(sorted, name);
    uint64_t n = uint64_t(repeatTime) * 32;
    ao::rt::Access acc[3] = {dstValue.Range(0, n, true, name), dstIndex.Range(0, n, true, name),
                             sorted.RangeBytes(0, n * ao::k::kSortRec, false, name)};
    // Two gathers over the structures (scores, then indices), each one repeat per 256 bytes read.
    ao::k::SortIssue<T>(name, 2 * ao::k::RepsOfBytes(n * ao::k::kSortRec), 2 * n, acc, 3);
    std::vector<uint8_t> recs(reinterpret_cast<const uint8_t*>(sorted.Data()),
                              reinterpret_cast<const uint8_t*>(sorted.Data()) + n * ao::k::kSortRec);
    for (uint64_t i = 0; i < n; ++i) {
        std::memcpy(&dstValue.Data()[i], &recs[i * ao::k::kSortRec], sizeof(T));
        std::memcpy(&dstIndex.Data()[i], &recs[i * ao::k::kSortRec + 4], 4);
    }
}

}  // namespace AscendC
