// AscendOptimizer simulator: RepeatReduceSum and CreateVecIndex (clean-room emulation).
//   RepeatReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride,
//       dstRepStride, srcRepStride): the sum of the first `mask` elements of every repeat
//       (a continuous mask only; dstBlkStride has no effect; dstRepStride counts elements), the
//       same instruction as WholeReduceSum.
//   CreateVecIndex(dst, firstValue, count): dst[i] = firstValue + i (half, float, int16, int32).
#pragma once
#include "ascendopt_kernel/vector_reduce.h"

namespace AscendC {

template <typename T, bool isSetMask = true>
__aicore__ inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                       const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                                       const int32_t dstRepStride, const int32_t srcRepStride) {
    (void)dstBlkStride;
    if (repeatTime < 0 || mask < 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "RepeatReduceSum: negative repeatTime %d or mask %d",
                     repeatTime, mask);
    ao::k::Plan p = ao::k::PlanCont("RepeatReduceSum", sizeof(T), uint64_t(mask), uint32_t(repeatTime), isSetMask);
    ao::k::WholeReduce<ao::k::RedOp::Sum, T>("RepeatReduceSum", p, dst, src, dstRepStride,
                                             ao::k::Strd{uint32_t(srcBlkStride), uint32_t(srcRepStride)},
                                             ReduceOrder::ORDER_ONLY_VALUE);
}

template <typename T, typename U>
__aicore__ inline void CreateVecIndex(const LocalTensor<T>& dst, const U firstValue, uint32_t count) {
    if constexpr (!(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>))
        ao::k::AoUnsupported("CreateVecIndex", ao::k::TypeName<T>());
    ao::k::Plan p = ao::k::PlanCount("CreateVecIndex", sizeof(T), int64_t(count));
    const T first = ao::k::ScalarAs<T>(firstValue);
    ao::k::Ew("CreateVecIndex", ao::rt::OpClass::VecElementwise, sizeof(T), p, dst, ao::k::Strd{},
              static_cast<const LocalTensor<T>*>(nullptr), ao::k::Strd{}, static_cast<const LocalTensor<T>*>(nullptr),
              ao::k::Strd{}, [&](uint64_t di, uint64_t, uint64_t) {
                  if constexpr (ao::k::kIsFloatLike<T>) return ao::k::FromF32<T>(ao::k::ToF32(first) + float(di));
                  else return T(int64_t(first) + int64_t(di));
              });
    ao::k::AfterCountForm();
}

}  // namespace AscendC
