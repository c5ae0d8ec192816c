// AscendOptimizer simulator: the high-level Sum (last-axis sums, SumParams) and Arange with its
// deprecated name ArithProgression. Clean-room emulation of the documented semantics:
//   - Sum: src is [outter, inner] (inner = n rounded up to 32 bytes); dst[r] = the sum of the n
//     first elements of row r, added pairwise (a tree within each 256-byte repeat, then over the
//     repeat sums, rounded to T between stages, as ReduceSum adds); half/float; one reduce
//     instruction per stage over all rows;
//   - Arange / ArithProgression: dst[i] = firstValue + i * diffValue for i < count, built as the
//     library does: up to 8 values by scalar SetValue, then Adds of the first block (8 -> 64,
//     then 64 at a time), so the cost and the scalar -> vector ordering are those of its steps.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/vector_reduce.h"

namespace AscendC {

struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

}  // namespace AscendC

namespace ao::k {

template <typename T>
inline void SumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const AscendC::SumParams& sp) {
    const char* name = "Sum";
    RedCheck<T>(name);
    const uint64_t outter = sp.outter, inner = sp.inner, n = sp.n;
    if (n < 1 || n > inner)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Sum: n %llu is not in [1, inner %llu]", (unsigned long long)n,
                     (unsigned long long)inner);
    if ((inner * sizeof(T)) % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "Sum: inner %llu x %u bytes is not a multiple of 32 bytes",
                     (unsigned long long)inner, unsigned(sizeof(T)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    if (outter == 0) return;
    ao::rt::Access sA = src.Range(0, outter * inner, false, name), dA = dst.Range(0, outter, true, name);
    if (src.off_ < dst.off_ + outter * sizeof(T) && dst.off_ < src.off_ + outter * inner * sizeof(T) &&
        src.base_ == dst.base_)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Sum: source and destination overlap");
    const uint32_t perRep = ONE_REPEAT_BYTE_SIZE / sizeof(T);
    // One instruction per stage (all rows): stage 1 reduces each row's repeats, later stages the
    // repeat sums, until one value per row remains.
    uint64_t m = n;
    bool first = true;
    ao::rt::LibSteps steps;
    while (true) {
        steps.Next();
        uint64_t groups = (m + perRep - 1) / perRep;
        ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecReduce, sizeof(T), uint32_t(outter * groups), outter * m);
        if (first) ins.Add(sA);
        if (groups == 1) ins.Add(dA);
        ao::rt::Issue(ins);
        if (groups == 1) break;
        m = groups;
        first = false;
    }
    const T* S = src.Data();
    std::vector<T> out(outter);
    std::vector<T> stage;
    float buf[256];
    for (uint64_t r = 0; r < outter; ++r) {
        stage.assign(S + r * inner, S + r * inner + n);
        while (stage.size() > 1) {
            std::vector<T> next;
            for (uint64_t b = 0; b < stage.size(); b += perRep) {
                uint32_t k = uint32_t(stage.size() - b < perRep ? stage.size() - b : perRep);
                for (uint32_t j = 0; j < k; ++j) buf[j] = ToF32(stage[b + j]);
                next.push_back(FromF32<T>(TreeSum(buf, k)));
            }
            stage.swap(next);
        }
        out[r] = stage[0];
    }
    for (uint64_t r = 0; r < outter; ++r) dst.Data()[r] = out[r];
}

// a + d * k in T: exact for the integer types, in float for half/float.
template <typename T>
inline T LinearValue(T a, T d, uint64_t k) {
    if constexpr (std::is_integral_v<T>) return T(int64_t(a) + int64_t(d) * int64_t(k));
    else return FromF32<T>(ToF32(a) + ToF32(d) * float(k));
}
template <typename T>
inline T AddValues(T a, T b) {
    if constexpr (std::is_integral_v<T>) return T(int64_t(a) + int64_t(b));
    else return FromF32<T>(ToF32(a) + ToF32(b));
}

template <typename T>
inline void ArangeRun(const char* name, const AscendC::LocalTensor<T>& dst, T first, T diff, int32_t count) {
    if constexpr (!(std::is_same_v<T, int16_t> || std::is_same_v<T, half> || std::is_same_v<T, int32_t> ||
                    std::is_same_v<T, float>))
        AoUnsupported(name, TypeName<T>());
    if (count <= 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: count %d must be positive", name, int(count));
    if (ToF32(diff) < 0.0f)  // documented range
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: diffValue must be >= 0", name);
    (void)dst.Range(0, uint64_t(count), true, name);
    const uint32_t n = uint32_t(count);
    const uint32_t head = n < 8 ? n : 8;
    for (uint32_t i = 0; i < head; ++i) dst.SetValue(i, LinearValue(first, diff, i));
    if (n <= 8) return;
    // The scalar writes are ordered before the vector reads (the library's S -> V event).
    const uint64_t key = (uint64_t(3) << 40) | (uint64_t(0xA2) << 8);
    ao::rt::SyncSet(ao::rt::Pipe::S, ao::rt::Pipe::V, key);
    ao::rt::SyncWait(ao::rt::Pipe::S, ao::rt::Pipe::V, key);
    // Adds of the first block: 8 -> 64 in blocks of 8, then 64 at a time (one repeat each).
    ao::rt::LibSteps steps;
    auto adds = [&](uint32_t b, uint32_t k) {
        steps.Next();
        ao::rt::Instr ins = VecInstr("Adds", ao::rt::OpClass::VecElementwise, sizeof(T), 1, k);
        ins.Add(dst.Range(b, k, true, name));
        ins.Add(dst.Range(0, k, false, name));
        ao::rt::Issue(ins);
        T* D = dst.Data();
        const T add = LinearValue(T(0), diff, b);
        for (uint32_t j = 0; j < k; ++j) D[b + j] = AddValues(D[j], add);
    };
    for (uint32_t b = 8; b < n && b < 64; b += 8) adds(b, n - b < 8 ? n - b : 8);
    for (uint32_t b = 64; b < n; b += 64) adds(b, n - b < 64 ? n - b : 64);
}

}  // namespace ao::k

namespace AscendC {

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
__aicore__ inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams) {
    (void)sharedTmpBuffer;
    ao::k::SumRun(dstTensor, srcTensor, sumParams);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
__aicore__ inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams) {
    ao::k::SumRun(dstTensor, srcTensor, sumParams);
}

template <typename T>
__aicore__ inline void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count) {
    ao::k::ArangeRun("Arange", dst, firstValue, diffValue, count);
}
template <typename T>
__aicore__ inline void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
                                        const int32_t count) {
    ao::k::ArangeRun("ArithProgression", dst, firstValue, diffValue, count);
}

}  // namespace AscendC
