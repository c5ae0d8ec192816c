// AscendOptimizer simulator: BroadCast / Broadcast (high-level API; clean-room emulation).
//   BroadCast<T, dim, axis>(dst, src, dstShape[dim], srcShape[dim] [, sharedTmpBuffer]):
//   dim 1: src {1} -> dst {n}; dim 2: src {m, 1} -> dst {m, n} (axis 1) or src {1, n} -> dst
//   {m, n} (axis 0). Row-major, dense. src and dst may be the same tensor (the source row or
//   column is read before the destination is written).
// Cost: the library expands the source with Brcb/Duplicate/Copy passes over the destination;
// the emulation charges one element-wise vector pass over dst plus one over src.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace ao::k {

template <typename T, int32_t dim, int32_t axis>
inline void BroadCastRun(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t* dstShape,
                         const uint32_t* srcShape) {
    static_assert(dim == 1 || dim == 2, "BroadCast: dim must be 1 or 2");
    static_assert(axis == 0 || axis == 1, "BroadCast: axis must be 0 or 1");
    const char* name = "BroadCast";
    if constexpr (sizeof(T) != 1 && sizeof(T) != 2 && sizeof(T) != 4) AoUnsupported(name, TypeName<T>());
    CheckLocalAligned(dst, name);
    CheckLocalAligned(src, name);
    uint64_t m = dim == 2 ? dstShape[0] : 1, n = dim == 2 ? dstShape[1] : dstShape[0];
    uint64_t sm = dim == 2 ? srcShape[0] : 1, sn = dim == 2 ? srcShape[1] : srcShape[0];
    bool ok = dim == 1 ? sn == 1 : (axis == 1 ? (sm == m && sn == 1) : (sm == 1 && sn == n));
    if (!ok)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "BroadCast<dim=%d, axis=%d>: source shape {%llu, %llu} does not broadcast to {%llu, %llu}", dim,
                     axis, (unsigned long long)sm, (unsigned long long)sn, (unsigned long long)m,
                     (unsigned long long)n);
    uint64_t total = m * n, srcCount = sm * sn;
    if (total == 0) return;
    auto reps = [](uint64_t elems) { return uint32_t((elems * sizeof(T) + ONE_REPEAT_BYTE_SIZE - 1) / ONE_REPEAT_BYTE_SIZE); };
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecElementwise, sizeof(T), reps(total) + reps(srcCount),
                                 total + srcCount);
    ins.Add(dst.Range(0, total, true, name));
    ins.Add(src.Range(0, srcCount, false, name));
    ao::rt::Issue(ins);
    T* tmp = new T[srcCount];
    std::memcpy(tmp, src.Data(), srcCount * sizeof(T));
    T* D = dst.Data();
    for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) D[i * n + j] = dim == 1 ? tmp[0] : (axis == 1 ? tmp[i] : tmp[j]);
    delete[] tmp;
}

}  // namespace ao::k

namespace AscendC {

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                                 const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer) {
    (void)sharedTmpBuffer;
    ao::k::BroadCastRun<T, dim, axis>(dst, src, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                                 const uint32_t srcShape[dim]) {
    ao::k::BroadCastRun<T, dim, axis>(dst, src, dstShape, srcShape);
}
// The same API under the name the current documentation gives it (Broadcast).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                                 const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer) {
    (void)sharedTmpBuffer;
    ao::k::BroadCastRun<T, dim, axis>(dst, src, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                                 const uint32_t srcShape[dim]) {
    ao::k::BroadCastRun<T, dim, axis>(dst, src, dstShape, srcShape);
}

}  // namespace AscendC
