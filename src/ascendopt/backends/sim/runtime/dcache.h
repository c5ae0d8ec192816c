// AscendOptimizer simulator: the scalar data cache (DCache) of one AI core.
//
// What the AscendC documentation says (asc-devkit docs/zh, "缓存一致性" in the programming guide's
// memory model, "Scalar读写数据", DataCacheCleanAndInvalid.md):
//   - every AIC/AIV core has its own DCache between its scalar unit and GM; scalar GM reads and
//     writes (GlobalTensor GetValue/SetValue, plain __gm__ loads and stores) go through it, DMA
//     (MTE2/MTE3/FIXPIPE) does not;
//   - lines are 64 bytes; on NPU arch 2201 (Atlas A2/A3) the AIV DCache holds 32 KB, the AIC one
//     16 KB;
//   - a read miss loads the whole line (GetValue(0) of an int64 tensor makes GetValue(1..7) hits);
//     a write allocates the line too, only updates the cache and marks the line dirty (write-back):
//     GM sees it when the line is replaced or cleaned;
//   - the hardware keeps the DCache coherent with nothing else: a DMA write leaves an older copy
//     of the line in the DCache (a later scalar read may hit it), a DMA read does not see a dirty
//     line; DataCacheCleanAndInvalid writes a dirty line back and drops it (one 64-byte line, or
//     the whole DCache).
// Not documented, so chosen here: the replacement policy (LRU over the whole capacity, i.e. fully
// associative) and that dirty lines still cached at the end of the kernel reach GM (operators
// that end with scalar GM writes and no clean work on the device).
#pragma once
#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace ao::rt {

// Whether line_addr's line [line_addr, line_addr + line) meets any of the bursts base + i * stride,
// i in [0, bursts), of len bytes each.
bool LineMeetsBursts(uint64_t line_addr, uint64_t line, uint64_t base, uint64_t len, uint64_t stride,
                     uint64_t bursts);

// Which core holds which GM line dirty in its data cache, for all cores of one launch (owned by
// the shared L2Model: the point where the cores' copies would meet). A core's scalar write makes
// it the line's owner; its write-back (eviction, DataCacheCleanAndInvalid) ends that. Another
// core's access to an owned line meets bytes GM does not have yet.
class DataCacheDirectory {
public:
    void Clear() { owner_.clear(); }
    bool Empty() const { return owner_.empty(); }
    int Owner(uint64_t line_addr) const {
        auto it = owner_.find(line_addr);
        return it == owner_.end() ? -1 : it->second;
    }
    void SetDirty(uint64_t line_addr, int core) { owner_[line_addr] = core; }
    void Cleaned(uint64_t line_addr, int core) {
        auto it = owner_.find(line_addr);
        if (it != owner_.end() && it->second == core) owner_.erase(it);
    }
    // The owner (other than `core`) of a line the bursts touch, -1 when none; the line in *line_addr.
    int DirtyElsewhere(int core, uint64_t line, uint64_t base, uint64_t len, uint64_t stride, uint64_t bursts,
                       uint64_t* line_addr) const;

private:
    std::unordered_map<uint64_t, int> owner_;  // line address -> core holding it dirty
};

class DataCache {
public:
    void Reset(uint64_t line_bytes, uint64_t capacity_bytes);
    // Outcome of one scalar access: line look-ups that hit / missed, dirty victims written back,
    // and whether a hit found a line DMA on this core overwrote since it was cached (stale).
    struct Touch {
        uint32_t hits = 0, misses = 0, writebacks = 0;
        bool stale = false;
        uint64_t stale_line = 0;  // first stale line's address
    };
    // A scalar read or write of [addr, addr + bytes): every line it spans is looked up (a miss
    // allocates the line, evicting the least recently used one); a write marks its lines dirty.
    // A stale line that is hit stays stale (the device keeps reading the old copy).
    void Access(uint64_t addr, uint64_t bytes, bool write, Touch& t);
    // DMA on this core over the bursts base + i * stride, i in [0, bursts), of len bytes each.
    // Returns whether it touches a cached dirty line (a read does not see its bytes; a write is
    // overwritten by its later write-back), the first such line in *dirty_line. A write also
    // marks every cached line it touches stale.
    bool Dma(uint64_t base, uint64_t len, uint64_t stride, uint64_t bursts, bool write, uint64_t* dirty_line);
    // DataCacheCleanAndInvalid, one line: the line holding addr is written back when dirty and
    // dropped. Returns whether it was dirty.
    bool CleanInvalidate(uint64_t addr);
    // The whole DCache: every dirty line written back, every line dropped. Returns the number of
    // dirty lines.
    uint32_t CleanInvalidateAll();
    // Lines written back (or, for a clean, dropped dirty) by the last Access / CleanInvalidateAll.
    const std::vector<uint64_t>& WrittenBack() const { return written_back_; }
    uint64_t LineBytes() const { return line_; }
    uint64_t CapacityLines() const { return cap_lines_; }
    size_t Cached() const { return map_.size(); }

private:
    struct Line {
        bool dirty = false;
        bool stale = false;
        std::list<uint64_t>::iterator pos;  // place in the LRU order
    };
    uint64_t line_ = 64;
    uint64_t cap_lines_ = 512;
    std::unordered_map<uint64_t, Line> map_;  // line address -> state
    std::list<uint64_t> lru_;                  // most recently used first
    uint32_t dirty_ = 0;                       // dirty lines cached
    std::vector<uint64_t> written_back_;
};

}  // namespace ao::rt
