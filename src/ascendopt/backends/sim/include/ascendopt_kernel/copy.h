// AscendOptimizer simulator: Copy (vector-unit copy between VECIN/VECCALC/VECOUT buffers with a
// mask and block/repeat strides). Clean-room emulation of the documented semantics:
//   CopyRepeatParams{dstStride, srcStride, dstRepeatSize, srcRepeatSize}: block strides inside
//   a repeat and repeat strides, in 32-byte blocks. 16- and 32-bit element types.
//   In counter mode the mask register holds the element count of EACH repeat (unlike the other
//   vector APIs, where it is the total) and repeatTime applies.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

struct CopyRepeatParams {
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
    __aicore__ CopyRepeatParams() = default;
    __aicore__ CopyRepeatParams(uint16_t dstStrideIn, uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                                uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
};

}  // namespace AscendC

namespace ao::k {

// Counter mode with a per-repeat count: a normal-mode plan whose first `count` bits are set.
inline Plan PerRepeatCounterPlan(const char* name, uint32_t es, uint32_t repeatTimes) {
    Plan p = PlanFromState(es, repeatTimes);
    if (!p.counter) return p;
    uint64_t count = p.count;
    if (count > p.perRep)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: counter-mode mask %llu exceeds %u elements per repeat", name,
                     (unsigned long long)count, p.perRep);
    Plan q;
    InitPlan(q, es);
    q.repeats = repeatTimes;
    for (uint32_t i = 0; i < count; ++i) q.w[i >> 6] |= 1ull << (i & 63);
    return q;
}

template <typename T>
inline void CopyRun(const Plan& p, const LocalTensor<T>& dst, const LocalTensor<T>& src, const CopyRepeatParams& rp) {
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) AoUnsupported("Copy", TypeName<T>());
    CheckLocalAligned(dst, "Copy");
    CheckLocalAligned(src, "Copy");
    const T* S = src.Data();
    Ew("Copy", ao::rt::OpClass::VecElementwise, sizeof(T), p, dst, Strd{rp.dstStride, rp.dstRepeatSize}, &src,
       Strd{rp.srcStride, rp.srcRepeatSize}, static_cast<const LocalTensor<T>*>(nullptr), Strd{},
       [&](uint64_t, uint64_t si, uint64_t) { return S[si]; });
}

}  // namespace ao::k

namespace AscendC {

template <typename T, bool isSetMask = true>
__aicore__ inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                            const uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
    ao::k::PlanCont("Copy", sizeof(T), mask, repeatTime, isSetMask);
    ao::k::CopyRun(ao::k::PerRepeatCounterPlan("Copy", sizeof(T), repeatTime), dst, src, repeatParams);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                            const uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
    ao::k::PlanBits("Copy", sizeof(T), mask, repeatTime, isSetMask);
    ao::k::CopyRun(ao::k::PerRepeatCounterPlan("Copy", sizeof(T), repeatTime), dst, src, repeatParams);
}

}  // namespace AscendC
