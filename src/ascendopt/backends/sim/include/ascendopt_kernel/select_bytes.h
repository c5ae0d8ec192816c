// AscendOptimizer simulator: the high-level Select with a byte mask (SelectWithBytesMask, and the
// Select overloads that take a SelectWithBytesMaskShapeInfo). Clean-room emulation of the
// documented semantics:
//   - src and mask are [firstAxis, srcLastAxis] and [firstAxis, maskLastAxis] row-major, with
//     maskLastAxis >= srcLastAxis (the extra mask columns are ignored);
//   - dst[r, c] takes src0 where mask[r, c] == 0 and src1 otherwise; one of src0/src1 is a scalar;
//   - the source rows are 32-byte multiples, the mask rows 32-byte multiples of at least 16
//     elements; T is half or float, the mask bool / (u)int8 / (u)int16 / (u)int32.
// Timed as the library's vector steps: a GatherMask of the mask rows when the axes differ, then a
// Cast, a Compare and a Select over firstAxis * srcLastAxis elements.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

struct SelectWithBytesMaskShapeInfo {
    __aicore__ SelectWithBytesMaskShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

}  // namespace AscendC

namespace ao::k {

template <typename T, typename U, bool tensorFirst>
inline void SelectBytesRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, T scalar,
                           const AscendC::LocalTensor<U>& mask, const AscendC::LocalTensor<uint8_t>& tmp,
                           const AscendC::SelectWithBytesMaskShapeInfo& info) {
    const char* name = "SelectWithBytesMask";
    if constexpr (!std::is_same_v<T, half> && !std::is_same_v<T, float>) AoUnsupported(name, TypeName<T>());
    if constexpr (!(std::is_same_v<U, bool> || std::is_same_v<U, int8_t> || std::is_same_v<U, uint8_t> ||
                    std::is_same_v<U, int16_t> || std::is_same_v<U, uint16_t> || std::is_same_v<U, int32_t> ||
                    std::is_same_v<U, uint32_t>))
        AoUnsupported(name, TypeName<U>());
    const uint64_t m = info.firstAxis, k1 = info.srcLastAxis, k2 = info.maskLastAxis;
    if (k2 < k1)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: maskLastAxis %llu is smaller than srcLastAxis %llu", name, (unsigned long long)k2,
                     (unsigned long long)k1);
    if ((k1 * sizeof(T)) % 32 != 0 || (k2 * sizeof(U)) % 32 != 0 || k2 % 16 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned,
                     "%s: a source row of %llu x %u bytes and a mask row of %llu x %u bytes must be 32-byte "
                     "multiples, the mask row a multiple of 16 elements",
                     name, (unsigned long long)k1, unsigned(sizeof(T)), (unsigned long long)k2,
                     unsigned(sizeof(U)));
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    CheckLocalAligned(mask, name);
    const uint64_t n = m * k1;
    if (n == 0) return;
    ao::rt::Access dA = dst.Range(0, n, true, name), sA = src.Range(0, n, false, name),
                   mA = mask.Range(0, m * k2, false, name);
    // Temporaries of the library steps: the compacted mask (k1 != k2), its half copy and the bit
    // mask, as far as the given buffer reaches.
    uint64_t tmpBytes = tmp.GetSize();
    uint64_t want = n * 2 + (n + 7) / 8;
    ao::rt::Access tA = tmp.RangeBytes(0, want < tmpBytes ? want : tmpBytes, true, name);
    auto reps = [](uint64_t bytes) { return uint32_t((bytes + 255) / 256); };
    ao::rt::LibSteps steps;
    if (k1 != k2) {
        steps.Next();
        ao::rt::Instr g = VecInstr("GatherMask", ao::rt::OpClass::VecGather, sizeof(U), reps(m * k2 * sizeof(U)), n);
        g.Add(mA);
        if (tA.end > tA.begin) g.Add(tA);
        ao::rt::Issue(g);
    }
    steps.Next();
    ao::rt::Instr c = VecInstr("Cast", ao::rt::OpClass::VecCast, 2, reps(n * 2), n);
    c.Add(mA);
    if (tA.end > tA.begin) c.Add(tA);
    ao::rt::Issue(c);
    steps.Next();
    ao::rt::Instr cmp = VecInstr("Compare", ao::rt::OpClass::VecElementwise, 2, reps(n * 2), n);
    if (tA.end > tA.begin) cmp.Add(tA);
    ao::rt::Issue(cmp);
    steps.Next();
    ao::rt::Instr sel = VecInstr("Select", ao::rt::OpClass::VecElementwise, sizeof(T), reps(n * sizeof(T)), n);
    sel.Add(dA);
    sel.Add(sA);
    if (tA.end > tA.begin) sel.Add({tA.space, tA.begin, tA.end, false});
    ao::rt::Issue(sel);
    const U* M = mask.Data();
    const T* S = src.Data();
    T* D = dst.Data();
    for (uint64_t r = 0; r < m; ++r)
        for (uint64_t j = 0; j < k1; ++j) {
            bool zero = M[r * k2 + j] == U(0);
            // tensorFirst: src0 is the tensor (picked where the mask is 0); else src1 is.
            D[r * k1 + j] = (zero == tensorFirst) ? S[r * k1 + j] : scalar;
        }
}

}  // namespace ao::k

namespace AscendC {

// src0 a tensor, src1 a scalar: mask 0 picks src0.
template <typename T, typename U, bool isReuseMask = true>
__aicore__ inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1,
                                           const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                           const SelectWithBytesMaskShapeInfo& info) {
    ao::k::SelectBytesRun<T, U, true>(dst, src0, src1, mask, sharedTmpBuffer, info);
}
// src0 a scalar, src1 a tensor: mask 0 picks src0.
template <typename T, typename U, bool isReuseMask = true>
__aicore__ inline void SelectWithBytesMask(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1,
                                           const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                           const SelectWithBytesMaskShapeInfo& info) {
    ao::k::SelectBytesRun<T, U, false>(dst, src1, src0, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                              const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    ao::k::SelectBytesRun<T, U, true>(dst, src0, src1, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
__aicore__ inline void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                              const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    ao::k::SelectBytesRun<T, U, false>(dst, src1, src0, mask, sharedTmpBuffer, info);
}

}  // namespace AscendC
