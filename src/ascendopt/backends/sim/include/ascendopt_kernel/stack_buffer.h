// AscendOptimizer simulator: PopStackBuffer, a temporary tensor over all the space of a position
// that the TPipe has not handed out (the documented "全部剩余空间"). Clean-room implementation.
#pragma once
#include "ascendopt_kernel/tensor.h"

namespace AscendC {

// The tensor starts at the pipe's allocation end of `pos`'s memory (32-byte aligned, as every
// InitBuffer length is) and ends at that memory's capacity. The pipe's cursor does not move: a
// later InitBuffer hands out the same bytes, as on the device. Fails (ub_overflow) when nothing
// is left.
template <typename T, TPosition pos>
__aicore__ inline bool PopStackBuffer(LocalTensor<T>& popLocal) {
    TPipe* pipe = GetTPipePtr();
    if (pipe == nullptr)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "PopStackBuffer: no TPipe was constructed on this core");
    const ao::rt::Space sp = ao::rt::SpaceOf(pos);
    const uint64_t begin = pipe->cursor_[int(sp)];
    const uint64_t end = ao::rt::Cur().cap[int(sp)];
    if (end <= begin)
        ao::rt::Fail(ao::rt::ErrorKind::UbOverflow,
                     "PopStackBuffer: the pipe has handed out all %llu bytes of %s, nothing is left to pop",
                     (unsigned long long)end, ao::rt::SpaceName(sp));
    LocalTensor<T> t;
    t.base_ = ao::rt::Cur().mem[int(sp)];
    t.off_ = begin;
    t.size_ = uint32_t((end - begin) / sizeof(T));
    t.buf_begin_ = begin;
    t.buf_end_ = end;
    t.pos_ = pos;
    popLocal = t;
    return true;
}

}  // namespace AscendC
