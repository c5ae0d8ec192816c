// AscendOptimizer simulator: the UB footprint a vector instruction reports to the timing model and
// race check: the hull of an operand's elements, and the part of each repeat it touches (a strided
// footprint: Access::stride/len). Clean-room implementation.
#pragma once
#include "ascendopt_kernel/tensor.h"

namespace ao::k {

struct Hull {
    uint64_t lo = ~0ull, hi = 0;
    bool hasAny = false;
    void Add(uint64_t i) {
        if (i < lo) lo = i;
        if (i > hi) hi = i;
        hasAny = true;
    }
    template <typename T>
    void AddTo(ao::rt::Instr& ins, const LocalTensor<T>& t, bool write, const char* name) const {
        if (hasAny) ins.Add(t.Range(lo, hi - lo + 1, write, name));
    }
    // Same, noting that only [lo + k * repElems + relSpan) of the range is touched (one piece per
    // repeat, `relSpan` elements each): repeats spaced wider than what one touches.
    template <typename T>
    void AddTo(ao::rt::Instr& ins, const LocalTensor<T>& t, bool write, const char* name, uint64_t repElems,
               uint64_t relSpan) const {
        if (!hasAny) return;
        int before = ins.n_access;
        AddTo(ins, t, write, name);
        uint64_t stride = repElems * sizeof(T), len = relSpan * sizeof(T);
        if (ins.n_access > before && len > 0 && len < stride && stride <= 0xffffffffull) {
            ins.access[ins.n_access - 1].stride = uint32_t(stride);
            ins.access[ins.n_access - 1].len = uint32_t(len);
        }
    }
};
// Offsets of an operand's elements relative to their repeat's start, lowest and highest.
struct RelSpan {
    uint64_t lo = ~0ull, hi = 0;
    void Add(uint64_t a, uint64_t b) {
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    uint64_t Span() const { return lo <= hi ? hi - lo + 1 : 0; }
};

}  // namespace ao::k {
