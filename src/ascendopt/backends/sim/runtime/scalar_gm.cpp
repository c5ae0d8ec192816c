// AscendOptimizer simulator: scalar GM accesses through the core's data cache (dcache.h), priced
// and checked by the timing model. Every scalar GM access is an OpClass::ScalarGm instruction
// with one GM access (address, bytes, read or write), whatever issued it (GlobalTensor
// GetValue/SetValue, a ListTensorDesc read, a plain __gm__ load or store); the model sees only
// that access. Parameters and their sources: socs/*.toml; the model: docs/timing-model.md.
#include <algorithm>
#include <cstdio>

#include "timing.h"

namespace ao::rt {

void TimingModel::SetCubeCore(bool aic) {
    gm_hit_ = soc_.Get("scalar_gm_hit_cycles", 11.33);
    gm_miss_ = soc_.Get("scalar_gm_miss_cycles", 200);
    dcci_ = soc_.Get("dcci_cycles", 12);
    dcci_walk_ = soc_.Get("dcci_entire_cycles_per_line", 1);
    double line = soc_.Get("dcache_line_bytes", 64);
    double cap = aic ? soc_.Get("dcache_aic_bytes", 16384) : soc_.Get("dcache_aiv_bytes", 32768);
    dcache_.Reset(uint64_t(std::max(1.0, line)), uint64_t(std::max(1.0, cap)));
}

// A line looked up costs a hit; a miss fills the line from L2/GM (a full trip: the scalar unit
// is in order and waits for the data, a write too, as the line is allocated and filled). A dirty
// victim's write-back is not waited for (it leaves through the write path while the fill comes
// in; one 64-byte line per miss is far below any bandwidth limit).
double TimingModel::ScalarGmCost(const Instr& ins) {
    double cost = 0;
    for (int k = 0; k < ins.n_access; ++k) {
        const Access& a = ins.access[k];
        if (a.space != Space::GM) continue;
        uint64_t dev = GmDeviceAddr(a.begin), bytes = a.end - a.begin;
        bool write = a.write && ins.repeats != 1;  // a reference's use is unknown: a read here
        DataCache::Touch t;
        dcache_.Access(dev, bytes, write, t);
        cost += t.hits * gm_hit_ + t.misses * gm_miss_;
        if (t.stale) {
            char key[160];
            snprintf(key, sizeof key, "stale|%s", ins.name);
            Warn(ErrorKind::DataCacheStale, key,
                 "%s reads GM [%llu, %llu) from its data-cache line at %llu, which a DMA of this core wrote "
                 "after the scalar unit had cached it; with no DataCacheCleanAndInvalid on that line in between, "
                 "the device returns the line's old bytes",
                 ins.name, (unsigned long long)dev, (unsigned long long)(dev + bytes), (unsigned long long)t.stale_line);
        }
        if (l2_ == nullptr) continue;
        DataCacheDirectory& dir = l2_->Directory();
        for (uint64_t line : dcache_.WrittenBack()) dir.Cleaned(line, block_idx_);
        uint64_t L = dcache_.LineBytes();
        for (uint64_t la = dev / L * L; la < dev + std::max<uint64_t>(bytes, 1); la += L) {
            int owner = dir.Owner(la);
            if (owner >= 0 && owner != block_idx_) OtherCoreDirty(ins, la, owner, write ? 's' : 'r');
            if (write) dir.SetDirty(la, block_idx_);
        }
    }
    return cost > 0 ? cost : gm_hit_;
}

// SINGLE_CACHE_LINE: the instruction plus the write-back of the line if it is dirty. The whole
// cache (ENTIRE_DATA_CACHE) walks every line of the capacity and writes back every dirty one.
double TimingModel::DataCacheMaintCost(const Instr& ins) {
    DataCacheDirectory* dir = l2_ != nullptr ? &l2_->Directory() : nullptr;
    if (ins.repeats == 1) {
        uint32_t dirty = dcache_.CleanInvalidateAll();
        if (dir != nullptr)
            for (uint64_t line : dcache_.WrittenBack()) dir->Cleaned(line, block_idx_);
        return dcci_ + double(dcache_.CapacityLines()) * dcci_walk_ + dirty * gm_miss_;
    }
    for (int k = 0; k < ins.n_access; ++k) {
        if (ins.access[k].space != Space::GM) continue;
        uint64_t dev = GmDeviceAddr(ins.access[k].begin);
        if (!dcache_.CleanInvalidate(dev)) continue;
        if (dir != nullptr) dir->Cleaned(dev / dcache_.LineBytes() * dcache_.LineBytes(), block_idx_);
        return dcci_ + gm_miss_;
    }
    return dcci_;
}

// `how`: 'r' a scalar read, 's' a scalar write, 'R' a DMA read, 'W' a DMA write of this core.
void TimingModel::OtherCoreDirty(const Instr& ins, uint64_t line, int owner, char how) {
    char key[160];
    snprintf(key, sizeof key, "other|%s|%c", ins.name, how);
    const char* what = how == 'r'   ? "reads"
                       : how == 's' ? "writes"
                       : how == 'R' ? "(DMA) reads"
                                    : "(DMA) writes";
    const char* effect = how == 'r' || how == 'R'
                             ? "this access sees the bytes GM held before"
                             : "the two copies of the line are written back in an order nothing fixes, and the later "
                               "one overwrites the other's bytes";
    Warn(ErrorKind::DataCacheDirty, key,
         "%s %s GM bytes of the data-cache line at %llu, which the scalar unit of core %d wrote and did not clean "
         "(DataCacheCleanAndInvalid); on the device %s",
         ins.name, what, (unsigned long long)line, owner, effect);
}

void TimingModel::DmaMeetsDataCache(const Instr& ins, uint64_t dev, uint64_t len, uint64_t stride, uint32_t bursts,
                                    bool write) {
    uint64_t line = 0;
    if (l2_ != nullptr) {
        int owner = l2_->Directory().DirtyElsewhere(block_idx_, dcache_.LineBytes(), dev, len, stride, bursts, &line);
        if (owner >= 0) OtherCoreDirty(ins, line, owner, write ? 'W' : 'R');
    }
    if (!dcache_.Dma(dev, len, stride, bursts, write, &line)) return;
    char key[160];
    snprintf(key, sizeof key, "dirty|%s|%d", ins.name, int(write));
    if (write)
        Warn(ErrorKind::DataCacheDirty, key,
             "%s writes GM bytes of the data-cache line at %llu, which the scalar unit of this core wrote and did "
             "not clean (DataCacheCleanAndInvalid): on the device the line's later write-back overwrites what "
             "the DMA wrote",
             ins.name, (unsigned long long)line);
    else
        Warn(ErrorKind::DataCacheDirty, key,
             "%s reads GM bytes of the data-cache line at %llu, which the scalar unit of this core wrote and did "
             "not clean (DataCacheCleanAndInvalid): on the device the DMA reads the bytes GM held before",
             ins.name, (unsigned long long)line);
}

}  // namespace ao::rt
