// AscendOptimizer simulator: the slice forms of DataCopy between GM and UB (SliceInfo,
// dimValue), a library routine over ordinary DataCopy ("GM与UB切片数据搬运"). Clean-room
// implementation of how it lays the copy out:
//   - dimension 0 of the SOURCE fixes the run: segments of burstLen 32-byte blocks from its
//     startIndex, `stride` elements apart, as many as (endIndex - startIndex + 1 + stride) /
//     (segment + stride) (integer division); the destination takes that many segments from its
//     own startIndex, `stride` elements apart (its endIndex does not limit them);
//   - a higher dimension d selects indices startIndex, startIndex + stride + 1, ... up to endIndex
//     (count (endIndex - startIndex + 1 + stride) / (stride + 1)), offset by index * (product of the
//     lower dimensions' shapeValue); one run per source index combination, the i-th source run to
//     the i-th destination run.
// Each segment runs as one count-form DataCopy, so the checks (UB 32-byte alignment, GM and UB
// bounds), cost and race model are DataCopy's.
#pragma once
#include <vector>

#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

struct SliceInfo {
    __aicore__ SliceInfo() {}
    __aicore__ SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn,
                         const uint32_t burstLenIn, const uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn), endIndex(endIndexIn), stride(strideIn), burstLen(burstLenIn),
          shapeValue(shapeValueIn) {}
    uint32_t startIndex = 0;
    uint32_t endIndex = 0;
    uint32_t stride = 0;
    uint32_t burstLen = 1;
    uint32_t shapeValue = 0;
};

}  // namespace AscendC

namespace ao::k {

constexpr uint32_t kMaxSliceDims = 8;

// Element offsets of the runs a slice list selects over dimensions 1..dims-1 (dimension 1 fastest),
// each including dimension 0's startIndex.
inline std::vector<uint64_t> SliceRuns(const char* side, const AscendC::SliceInfo* s, uint32_t dims) {
    if (dims == 0 || dims > kMaxSliceDims)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "DataCopy(SliceInfo): dimValue %u not in [1, %u]", dims,
                     kMaxSliceDims);
    std::vector<uint64_t> offs{s[0].startIndex};
    uint64_t pitch = 1;  // elements per index of dimension d
    for (uint32_t d = 1; d < dims; ++d) {
        const AscendC::SliceInfo& si = s[d];
        pitch *= s[d - 1].shapeValue;
        if (si.startIndex > si.endIndex || si.endIndex > si.shapeValue || pitch == 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "DataCopy(SliceInfo): %s dimension %u: startIndex %u, endIndex %u, shapeValue %u (lower "
                         "dimensions %llu elements)",
                         side, d, si.startIndex, si.endIndex, si.shapeValue, (unsigned long long)pitch);
        uint64_t n = (uint64_t(si.endIndex) - si.startIndex + 1 + si.stride) / (uint64_t(si.stride) + 1);
        std::vector<uint64_t> next;
        for (uint64_t k = 0; k < n; ++k)
            for (uint64_t lo : offs) next.push_back(lo + (si.startIndex + k * (uint64_t(si.stride) + 1)) * pitch);
        offs.swap(next);
    }
    return offs;
}

// copy(dstOffset, srcOffset, elements) for every segment of the slice copy.
template <typename Copy>
inline void SliceCopy(const AscendC::SliceInfo dstSlice[], const AscendC::SliceInfo srcSlice[], uint32_t dims,
                      uint32_t elemBytes, Copy copy) {
    std::vector<uint64_t> d = SliceRuns("dst", dstSlice, dims);
    std::vector<uint64_t> s = SliceRuns("src", srcSlice, dims);
    const uint64_t seg = uint64_t(srcSlice[0].burstLen) * ONE_BLK_SIZE / elemBytes;
    const AscendC::SliceInfo& s0 = srcSlice[0];
    if (seg == 0 || s0.startIndex > s0.endIndex)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "DataCopy(SliceInfo): source dimension 0: startIndex %u, endIndex %u, burstLen %u", s0.startIndex,
                     s0.endIndex, s0.burstLen);
    const uint64_t n = (uint64_t(s0.endIndex) - s0.startIndex + 1 + s0.stride) / (seg + s0.stride);
    if (d.size() < s.size())
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "DataCopy(SliceInfo): the source has %zu runs, the destination only %zu", s.size(), d.size());
    for (size_t r = 0; r < s.size(); ++r)
        for (uint64_t k = 0; k < n; ++k)
            copy(d[r] + k * (seg + dstSlice[0].stride), s[r] + k * (seg + s0.stride), uint32_t(seg));
}

}  // namespace ao::k

namespace AscendC {

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
                                const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    ao::k::SliceCopy(dstSliceInfo, srcSliceInfo, dimValue, sizeof(T), [&](uint64_t d, uint64_t s, uint32_t n) {
        DataCopy(dst[uint32_t(d)], src[s], n);
    });
}

template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
                                const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    ao::k::SliceCopy(dstSliceInfo, srcSliceInfo, dimValue, sizeof(T), [&](uint64_t d, uint64_t s, uint32_t n) {
        DataCopy(dst[d], src[uint32_t(s)], n);
    });
}

}  // namespace AscendC
