// AscendOptimizer simulator: the L2 cache shared by the cores of a launch (see timing.h, L2Model).
#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ao::rt {

void L2Model::Reset(const SocParams& soc, int block_num) {
    lines_.clear();
    dir_.Clear();
    line_ = uint64_t(soc.Get("l2_line_bytes", 512));
    if (line_ == 0) line_ = 512;
    capacity_ = soc.Get("l2_bytes", 201326592) * soc.Get("l2_usable_fraction", 1.0);
    int phys = int(std::max(1.0, soc.Get("aiv_cores", 48)));
    active_ = std::max(1, std::min(block_num, phys));
}

void L2Model::Touch(int core, double now, uint64_t own, uint64_t addr, uint64_t len, bool write, bool bypass,
                    Result& r) {
    if (len == 0) return;
    uint64_t first = addr / line_, last = (addr + len - 1) / line_;
    double rate = now > 1.0 ? double(own) / now : 0.0;  // this core's bytes per cycle so far
    for (uint64_t l = first; l <= last; ++l) {
        uint64_t lb = std::max(addr, l * line_), le = std::min(addr + len, (l + 1) * line_);
        uint64_t part = le - lb;
        auto it = lines_.find(l);
        bool hit = false;
        if (it != lines_.end()) {
            const Stamp& s = it->second;
            double dist = s.core == core ? double(own - std::min(own, s.own)) * active_
                                         : std::fabs(now - s.time) * rate * active_;
            hit = dist < capacity_;
        }
        if (bypass) {
            if (write) {
                r.miss_bytes += (part + 31) / 32 * 32;
                if (it != lines_.end()) lines_.erase(it);
            } else if (hit) {
                r.hit_bytes += part;
            } else {
                r.miss_bytes += (part + 31) / 32 * 32;  // read around L2: only the bytes asked for
            }
            continue;
        }
        bool dirty = write || (hit && it->second.dirty);
        if (write || hit) r.hit_bytes += part;  // a write lands in L2 (allocated without a fill)
        else r.miss_bytes += line_;               // a read miss fills the whole line from HBM
        lines_[l] = Stamp{now, own, core, dirty};
        if (dirty) dirty_[core].emplace_back(l, own);
    }
}

uint64_t L2Model::Evict(int core, uint64_t own) {
    auto d = dirty_.find(core);
    if (d == dirty_.end()) return 0;
    uint64_t wb = 0;
    auto& q = d->second;
    while (!q.empty() && double(own - std::min(own, q.front().second)) * active_ >= capacity_) {
        auto [l, then] = q.front();
        q.pop_front();
        auto it = lines_.find(l);
        // Stale entries (the line was touched again since, or dropped) are skipped.
        if (it == lines_.end() || !it->second.dirty || it->second.core != core || it->second.own != then) continue;
        it->second.dirty = false;
        wb += line_;
    }
    return wb;
}

}  // namespace ao::rt
