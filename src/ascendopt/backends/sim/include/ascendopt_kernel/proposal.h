// AscendOptimizer simulator: the Region Proposal sort instructions of the Atlas inference
// (310P) AI core: ProposalConcat, ProposalExtract, RpSort16, MrgSort4. Clean-room emulation of
// the documented behaviour:
//   - a Region Proposal is 8 consecutive elements of T (half or float): [x1, y1, x2, y2, score,
//     label, reserved, reserved]; the score is element 4;
//   - ProposalConcat / ProposalExtract move 16 consecutive elements per repeat into / out of
//     element `modeNumber` of 16 consecutive proposals;
//   - RpSort16 sorts each group of 16 proposals by score, descending (equal scores keep their
//     order); MrgSort4 merges the sorted queues validBit selects (the low bits: 1, 3, 7, 15 = the
//     first 1-4 queues) into one, by score descending, an earlier queue first on equal scores;
//     with ifExhaustedSuspension it stops as soon as one queue runs out. repeatTimes > 1 repeats
//     the merge over four contiguous queues of equal length.
// Timed as vector instructions of the gather class, one repeat per 256 bytes written.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "ascendopt_kernel/sort.h"

namespace ao::k {

constexpr uint32_t kProposalElems = 8;
constexpr uint32_t kProposalScore = 4;

template <typename T>
inline void ProposalIssue(const char* name, uint64_t elemsWritten, const ao::rt::Access* acc, int n) {
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecGather, sizeof(T), RepsOfBytes(elemsWritten * sizeof(T)),
                                 elemsWritten);
    for (int i = 0; i < n; ++i) ins.Add(acc[i]);
    ao::rt::Issue(ins);
}

template <typename T>
inline void ProposalMove(const char* name, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                         int32_t mode, bool concat) {
    SortTypeCheck<T>(name);
    if (mode < 0 || mode > 5)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: modeNumber %d is outside [0, 5]", name, int(mode));
    if (repeat <= 0) return;
    uint64_t n = uint64_t(repeat) * 16;
    ao::rt::Access acc[2] = {
        concat ? src.Range(0, n, false, name) : src.Range(0, n * kProposalElems, false, name),
        concat ? dst.Range(0, n * kProposalElems, true, name) : dst.Range(0, n, true, name)};
    ProposalIssue<T>(name, n, acc, 2);
    const T* S = src.Data();
    T* D = dst.Data();
    for (uint64_t i = 0; i < n; ++i) {
        if (concat) D[i * kProposalElems + uint64_t(mode)] = S[i];
        else D[i] = S[i * kProposalElems + uint64_t(mode)];
    }
}

template <typename T>
inline float ProposalScore(const T* p) { return ToF32(p[kProposalScore]); }

}  // namespace ao::k

namespace AscendC {

template <typename T>
__aicore__ inline void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                      const int32_t modeNumber) {
    ao::k::ProposalMove("ProposalConcat", dst, src, repeatTime, modeNumber, true);
}

template <typename T>
__aicore__ inline void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                       const int32_t modeNumber) {
    ao::k::ProposalMove("ProposalExtract", dst, src, repeatTime, modeNumber, false);
}

template <typename T>
__aicore__ inline void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime) {
    const char* name = "RpSort16";
    ao::k::SortTypeCheck<T>(name);
    if (repeatTime <= 0) return;
    constexpr uint32_t P = ao::k::kProposalElems;
    uint64_t n = uint64_t(repeatTime) * 16;
    ao::rt::Access acc[2] = {src.Range(0, n * P, false, name), dst.Range(0, n * P, true, name)};
    ao::k::ProposalIssue<T>(name, n * P, acc, 2);
    std::vector<T> in(src.Data(), src.Data() + n * P);
    T* D = dst.Data();
    for (uint64_t g = 0; g < n; g += 16) {
        uint32_t ord[16];
        for (uint32_t i = 0; i < 16; ++i) ord[i] = i;
        std::stable_sort(ord, ord + 16, [&](uint32_t a, uint32_t b) {
            return ao::k::ProposalScore(&in[(g + a) * P]) > ao::k::ProposalScore(&in[(g + b) * P]);
        });
        for (uint32_t i = 0; i < 16; ++i) std::memcpy(D + (g + i) * P, &in[(g + ord[i]) * P], P * sizeof(T));
    }
}

template <typename T>
__aicore__ inline void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
    const char* name = "MrgSort4";
    ao::k::SortTypeCheck<T>(name);
    constexpr uint32_t P = ao::k::kProposalElems;
    int q = params.validBit == 1 ? 1 : params.validBit == 3 ? 2 : params.validBit == 7 ? 3 : params.validBit == 15 ? 4 : 0;
    if (q == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: validBit %u is not 1, 3, 7 or 15", name,
                     unsigned(params.validBit));
    const LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    uint32_t repeat = params.repeatTimes == 0 ? 1 : params.repeatTimes;
    uint64_t inTotal = 0;
    for (int i = 0; i < q; ++i) inTotal += params.elementLengths[i];
    std::vector<T> out;
    ao::rt::Access acc[4];
    int na = 0;
    for (int i = 0; i < q && na < 3; ++i)
        acc[na++] = lists[i]->Range(0, (uint64_t(params.elementLengths[i]) + (repeat - 1) * inTotal) * P, false, name);
    for (uint32_t r = 0; r < repeat; ++r) {
        std::vector<std::vector<T>> qs(q);
        for (int i = 0; i < q; ++i) {
            const T* base = lists[i]->Data() + uint64_t(r) * inTotal * P;
            qs[i].assign(base, base + uint64_t(params.elementLengths[i]) * P);
        }
        uint32_t pos[4] = {0, 0, 0, 0};
        while (true) {
            int best = -1;
            bool exhausted = false;
            for (int i = 0; i < q; ++i) {
                if (pos[i] >= params.elementLengths[i]) {
                    exhausted = true;
                    continue;
                }
                if (best < 0 || ao::k::ProposalScore(&qs[i][pos[i] * P]) > ao::k::ProposalScore(&qs[best][pos[best] * P]))
                    best = i;
            }
            if (best < 0 || (params.ifExhaustedSuspension && exhausted)) break;
            out.insert(out.end(), qs[best].begin() + pos[best] * P, qs[best].begin() + (pos[best] + 1) * P);
            ++pos[best];
        }
    }
    if (!out.empty()) acc[na++] = dst.Range(0, out.size(), true, name);
    ao::k::ProposalIssue<T>(name, out.size(), acc, na);
    if (!out.empty()) std::memcpy(dst.Data(), out.data(), out.size() * sizeof(T));
}

}  // namespace AscendC
