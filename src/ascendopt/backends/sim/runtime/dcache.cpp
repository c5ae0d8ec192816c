// AscendOptimizer simulator: the scalar data cache of one AI core (dcache.h).
#include "dcache.h"

#include <algorithm>

namespace ao::rt {

void DataCache::Reset(uint64_t line_bytes, uint64_t capacity_bytes) {
    line_ = std::max<uint64_t>(1, line_bytes);
    cap_lines_ = std::max<uint64_t>(1, capacity_bytes / line_);
    map_.clear();
    lru_.clear();
    dirty_ = 0;
}

void DataCache::Access(uint64_t addr, uint64_t bytes, bool write, Touch& t) {
    written_back_.clear();
    uint64_t first = addr / line_, last = (addr + std::max<uint64_t>(bytes, 1) - 1) / line_;
    for (uint64_t l = first; l <= last; ++l) {
        uint64_t la = l * line_;
        auto it = map_.find(la);
        if (it != map_.end()) {
            ++t.hits;
            lru_.splice(lru_.begin(), lru_, it->second.pos);
            if (it->second.stale && !write && !t.stale) {
                t.stale = true;
                t.stale_line = la;
            }
        } else {
            ++t.misses;
            if (map_.size() >= cap_lines_) {  // evict the least recently used line
                uint64_t victim = lru_.back();
                lru_.pop_back();
                auto v = map_.find(victim);
                if (v->second.dirty) {
                    ++t.writebacks;
                    --dirty_;
                    written_back_.push_back(victim);
                }
                map_.erase(v);
            }
            lru_.push_front(la);
            it = map_.emplace(la, Line{false, false, lru_.begin()}).first;
        }
        if (write && !it->second.dirty) {
            it->second.dirty = true;
            ++dirty_;
        }
    }
}

bool LineMeetsBursts(uint64_t la, uint64_t line, uint64_t base, uint64_t len, uint64_t stride, uint64_t bursts) {
    if (len == 0 || bursts == 0) return false;
    uint64_t le = la + line;
    if (stride <= len || bursts == 1) {  // one contiguous range
        uint64_t end = base + (bursts - 1) * stride + len;
        return base < le && end > la;
    }
    // The first burst that ends after the line starts: base + i * stride + len > la.
    uint64_t i = 0;
    if (base + len <= la) i = (la - base - len) / stride + 1;
    return i < bursts && base + i * stride < le;
}

int DataCacheDirectory::DirtyElsewhere(int core, uint64_t line, uint64_t base, uint64_t len, uint64_t stride,
                                       uint64_t bursts, uint64_t* line_addr) const {
    if (owner_.empty() || len == 0 || bursts == 0) return -1;
    int who = -1;
    auto see = [&](uint64_t la, int c) {
        if (c != core && (who < 0 || la < *line_addr)) {
            who = c;
            *line_addr = la;
        }
    };
    uint64_t per = (len + line - 1) / line + 1;  // lines one burst can touch
    if (double(per) * double(bursts) < double(owner_.size())) {  // probe the DMA's lines
        for (uint64_t i = 0; i < bursts; ++i) {
            uint64_t a = base + i * stride;
            for (uint64_t la = a / line * line; la < a + len; la += line) {
                auto it = owner_.find(la);
                if (it != owner_.end()) see(la, it->second);
            }
        }
    } else {
        for (const auto& [la, c] : owner_)
            if (LineMeetsBursts(la, line, base, len, stride, bursts)) see(la, c);
    }
    return who;
}

bool DataCache::Dma(uint64_t base, uint64_t len, uint64_t stride, uint64_t bursts, bool write,
                    uint64_t* dirty_line) {
    if (map_.empty() || (!write && dirty_ == 0)) return false;
    bool found = false;
    for (auto& [la, line] : map_) {
        if (!LineMeetsBursts(la, line_, base, len, stride, bursts)) continue;
        if (line.dirty && (!found || la < *dirty_line)) {
            found = true;
            *dirty_line = la;
        }
        if (write) line.stale = true;
    }
    return found;
}

bool DataCache::CleanInvalidate(uint64_t addr) {
    auto it = map_.find(addr / line_ * line_);
    if (it == map_.end()) return false;
    bool dirty = it->second.dirty;
    if (dirty) --dirty_;
    lru_.erase(it->second.pos);
    map_.erase(it);
    return dirty;
}

uint32_t DataCache::CleanInvalidateAll() {
    uint32_t d = dirty_;
    written_back_.clear();
    for (const auto& [la, line] : map_)
        if (line.dirty) written_back_.push_back(la);
    map_.clear();
    lru_.clear();
    dirty_ = 0;
    return d;
}

}  // namespace ao::rt
