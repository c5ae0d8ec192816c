// AscendOptimizer simulator: the cost of a vector instruction (start-up, per-repeat cycles by API and
// class, UB bank conflicts, the pipeline drain). See docs/timing-model.md, "Vector".
#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ao::rt {

// UB bank geometry (Atlas A2, asc-devkit bank_conflict_ub): address bits [17:16] bank id,
// [15:9] row, [8:5] bank group (16 groups), [4:0] byte in the 32-byte row. Two reads of one
// repeat in the same bank group conflict; a write conflicts with a read in the same bank
// (group and id). The write of repeat r happens during repeat r+1 (the hardware delays a write whose banks
// coincide with a read's by one repeat; other writes happen in their own repeat).
double TimingModel::BankConflictCycles(const Instr& ins) const {
    uint32_t R = ins.repeats;
    if (R == 0) return 0;
    struct Op {
        uint64_t b, s, f;
        bool write;
    } ops[kMaxAccess];
    int n = 0;
    for (int k = 0; k < ins.n_access; ++k) {
        const Access& a = ins.access[k];
        if (a.space != Space::UB || a.end <= a.begin) continue;
        if (!a.write) {  // the dst re-read of in-place APIs shares the dst's banks: skip it
            bool dup = false;
            for (int j = 0; j < ins.n_access; ++j)
                if (j != k && ins.access[j].write && ins.access[j].space == a.space &&
                    ins.access[j].begin == a.begin && ins.access[j].end == a.end)
                    dup = true;
            if (dup) continue;
        }
        uint64_t span = a.end - a.begin, s = 0, f;
        if (R > 1) {
            if (span >= uint64_t(R - 1) * 256 + 1 && span <= uint64_t(R) * 256) s = 256;
            else s = (span / R + 16) / 32 * 32;
        }
        uint64_t used = uint64_t(R - 1) * s;
        f = span > used ? span - used : 32;
        f = std::min<uint64_t>(256, std::max<uint64_t>(32, (f + 31) / 32 * 32));
        ops[n++] = {a.begin, s, f, a.write};
    }
    if (n < 2) return 0;
    auto masks = [&](const Op& o, uint32_t r, uint32_t& bg, uint64_t& bank) {
        bg = 0;
        bank = 0;
        uint64_t base = o.b + uint64_t(r) * o.s;
        for (uint64_t off = 0; off < o.f; off += 32) {
            uint64_t ad = base + off;
            uint32_t g = uint32_t(ad >> 5) & 15u, id = uint32_t(ad >> 16) & 3u;
            bg |= 1u << g;
            bank |= uint64_t(1) << (id * 16 + g);
        }
    };
    uint32_t S = std::min<uint32_t>(R, 16);
    double rr = 0, rw = 0;
    for (uint32_t r = 0; r < S; ++r) {
        uint32_t bgs[kMaxAccess];
        uint64_t banks[kMaxAccess];
        for (int i = 0; i < n; ++i) masks(ops[i], r, bgs[i], banks[i]);
        bool crr = false, crw = false;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j)
                if (!ops[i].write && !ops[j].write && (bgs[i] & bgs[j])) crr = true;
        for (int i = 0; i < n; ++i) {
            if (!ops[i].write) continue;
            // A write whose banks coincide with a read's banks in the same repeat is delayed by
            // one repeat (README scenarios 4 and 6); otherwise it happens in the same repeat.
            bool delayed = false;
            for (int j = 0; j < n; ++j)
                if (!ops[j].write && banks[j] == banks[i]) delayed = true;
            uint64_t wbank = banks[i];
            if (delayed) {
                if (r == 0) continue;
                uint32_t pbg;
                masks(ops[i], r - 1, pbg, wbank);
            }
            for (int j = 0; j < n; ++j)
                if (!ops[j].write && (wbank & banks[j])) crw = true;
        }
        rr += crr;
        rw += crw;
    }
    double scale = double(R) / S;
    return (rr * rr_pen_ + rw * rw_pen_) * scale;
}

double TimingModel::VecPerRepeat(const Instr& ins) {
    double cls = ins.cls == OpClass::CopyLocal ? vec_rep_[int(OpClass::VecElementwise)] : vec_rep_[int(ins.cls) & 15];
    if (vec_api_.empty() || ins.name == nullptr) return cls;
    auto it = vec_api_.find(ins.name);
    if (it == vec_api_.end()) return cls;
    double v = it->second[std::min<uint32_t>(ins.dtype_bytes, 8)];
    return v >= 0 ? v : cls;
}

double TimingModel::VecCost(const Instr& ins) {
    uint32_t R = ins.repeats;
    if (R == 0 && ins.bytes > 0) R = uint32_t((ins.bytes + 255) / 256);
    return vec_startup_ + R * VecPerRepeat(ins) + BankConflictCycles(ins) + ins.ub_stride_conflicts;
}

// A vector instruction of cost `full` (issue to completion, as measured on a drained pipe): the
// pipe takes the next V instruction after `full - drain`; its results are complete `drain` later.
TimingModel::Cost TimingModel::VecSplit(double full) const {
    Cost c;
    c.latency = std::min(vec_drain_, full);
    c.busy = full - c.latency;
    return c;
}

}  // namespace ao::rt
