// AscendOptimizer simulator: per-core timing model, shared L2 model and race detector.
// The model and every parameter it reads are described in docs/timing-model.md; the
// parameters themselves (with their public sources) live in socs/<SoC>.toml.
#pragma once
#include <algorithm>
#include <cstdint>
#include <array>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "ascendopt_kernel/runtime.h"
#include "dcache.h"
#include "race.h"
#include "sim_config.h"

namespace ao::rt {

// L2 cache in front of HBM, shared by all cores of one launch.
//
// Cores are simulated one after another, so a plain LRU over simulation order would see each
// core's traffic alone. Instead every 512-byte line remembers who touched it last, when (model
// cycle) and how many bytes that core had moved so far. A re-touch hits when the estimated
// traffic of the whole chip since the last touch is below the L2 capacity:
//   same core:   (own bytes now - own bytes then) x active cores   (cores progress alike)
//   other core:  |t_now - t_then| x (own bytes now / t_now) x active cores
// "Active cores" are the launched cores that move data by DMA (at most aiv_cores): the timer
// counts them in a first replay and replays again when idle cores were launched (timer.cpp).
// A line that another core fetched "later" in model time still counts as a hit if it is within
// that distance: the first core simulated pays the miss, which keeps the chip-wide HBM traffic
// right while slightly misplacing which core pays it.
class L2Model {
public:
    void Reset(const SocParams& soc, int block_num);
    struct Result {
        uint64_t hit_bytes = 0;   // bytes served by L2: read hits, writes absorbed by L2
        uint64_t miss_bytes = 0;  // bytes moved to/from HBM by the access itself (line fills, bypass)
    };
    // Reads or writes `len` bytes at device address `addr` for core `core` at cycle `now`.
    // `own` is the core's cumulative traffic through L2 before this access. `bypass`: the
    // tensor is read/written around L2 (SetL2CacheHint DISABLE): a read is served by L2 only if
    // the line is resident and allocates nothing, a write goes to HBM and drops the L2 copy.
    // Otherwise a read miss fills the whole line; a write allocates the line (no fill) dirty.
    void Touch(int core, double now, uint64_t own, uint64_t addr, uint64_t len, bool write, bool bypass,
               Result& r);
    // Write-back bytes of `core`'s dirty lines that its allocations up to `own` bytes evicted
    // (reuse distance past the capacity). Dirty lines still resident at the end cost nothing
    // in this launch (the guide: a dirty victim is written back when it is replaced).
    uint64_t Evict(int core, uint64_t own);
    // The cores that share HBM/L2 bandwidth and whose traffic ages L2 lines: min(block_num,
    // aiv_cores) after Reset; LimitActive(n) lowers it to the n cores that transfer (n >= 1).
    int Active() const { return active_; }
    void LimitActive(int n) { active_ = std::max(1, std::min(active_, n)); }
    // The cores' data caches meet here: which core holds which line dirty (dcache.h).
    DataCacheDirectory& Directory() { return dir_; }

private:
    struct Stamp {
        double time;
        uint64_t own;
        int32_t core;
        bool dirty;
    };
    std::unordered_map<uint64_t, Stamp> lines_;
    std::unordered_map<int, std::deque<std::pair<uint64_t, uint64_t>>> dirty_;  // core -> (line, own)
    double capacity_ = 0;
    uint64_t line_ = 512;
    int active_ = 1;
    DataCacheDirectory dir_;
};

// Pipe-level timing model of one AI core. The scalar unit issues instructions in program
// order to asynchronous pipes; each pipe executes its instructions in order. Ordering
// between pipes comes only from SyncSet/SyncWait (queues, flags) and barriers.
class TimingModel {
public:
    TimingModel(const SocParams& soc, int block_idx, int block_num, L2Model* l2);
    // The kernel was compiled with the compiler's automatic synchronisation (race.h).
    void SetAutoSync(bool on) { race_.SetAutoSync(on); }
    // The core is an AIC (cube) core: its scalar data cache has the AIC capacity (scalar_gm.cpp).
    void SetCubeCore(bool aic);
    void Issue(const Instr& ins);
    void SyncSet(Pipe src, Pipe dst, uint64_t key);
    void SyncWait(Pipe src, Pipe dst, uint64_t key);
    void Barrier(Pipe p);
    void EndOfPipe();  // TPipe destroyed: all pipes drained (race bookkeeping only)
    // Cross-core barrier: time at which this core arrives / all cores leave.
    double ArriveAll();
    void LeaveAll(double t);
    // Cross-core flag: a set is a token on `pipe` (returned: when that pipe's earlier work is
    // done); a wait consumes this core's oldest token and holds `pipe` (S or ALL: the whole core)
    // until `release`, the time the counter went up, plus the flag latency.
    double CrossSet(Pipe pipe, uint64_t key);
    void CrossWait(Pipe pipe, uint64_t key, double release);
    double Now() const { return now_; }
    // The core has moved GM data by DMA (MTE2/MTE3/FIX with a GM side, > 0 bytes): it takes a
    // share of HBM/L2 bandwidth (L2Model::Active).
    bool Transfers() const { return transfers_; }
    CoreStats Finish();

private:
    struct Cost {
        double busy = 0;     // pipe occupancy
        double latency = 0;  // extra cycles until the result is visible to other pipes
    };
    Cost Price(const Instr& ins);
    Cost VecSplit(double full) const;
    Cost DmaCost(const Instr& ins);
    double VecCost(const Instr& ins);
    double VecPerRepeat(const Instr& ins);
    double BankConflictCycles(const Instr& ins) const;
    void MergeIssue(int p);
    // Scalar GM access through the data cache, DataCacheCleanAndInvalid, and what DMA on this
    // core does to the cache's lines (scalar_gm.cpp).
    double ScalarGmCost(const Instr& ins);
    double DataCacheMaintCost(const Instr& ins);
    void DmaMeetsDataCache(const Instr& ins, uint64_t dev, uint64_t len, uint64_t stride, uint32_t bursts,
                           bool write);
    void OtherCoreDirty(const Instr& ins, uint64_t line, int owner, char how);
    void Record(char kind, int pipe, int dst, const char* name, double a, double b);

    const SocParams& soc_;
    int block_idx_;
    int block_num_;
    L2Model* l2_;
    // cached parameters
    double scalar_issue_, vec_startup_, vec_rep_[16], rr_pen_, rw_pen_, scalar_ub_;
    double gm_hit_, gm_miss_, dcci_, dcci_walk_;  // scalar GM through the data cache
    DataCache dcache_;
    double dma_issue_, dma_burst_, dma_latency_, core_ddr_, core_l2_, hbm_share_, l2_share_, line_;
    double mte1_startup_, l1_l0a_, l1_l0b_, l1_ub_, ub_l1_, fix_startup_, fix_rate_;
    double cube_startup_, cube_per_fractal_, sync_all_, barrier_cycles_, vec_drain_;
    double cross_flag_;
    // per-API cycles per repeat (SoC keys "vec_rep.<API>[.<element bytes>]"), by API name and
    // element size; a negative entry means "the instruction class's figure"
    std::unordered_map<std::string, std::array<double, 9>> vec_api_;

    double now_ = 0;                          // scalar unit issue time
    double free_at_[int(Pipe::COUNT)] = {};  // when each pipe can start its next instruction
    double done_[int(Pipe::COUNT)] = {};     // when each pipe's issued work is complete
    double wait_[int(Pipe::COUNT)] = {};     // earliest start imposed by waits
    double busy_to_[int(Pipe::COUNT)] = {};  // end of the pipe's in-flight interval counted as busy
    struct Token {
        double time;
        VClock vc;
    };
    std::unordered_map<uint64_t, std::deque<Token>> tokens_;
    uint64_t l2_own_ = 0;
    bool transfers_ = false;
    // The core's GM bandwidth channel, shared by MTE2/MTE3/FIX: busy intervals (sorted). A
    // transfer fills the earliest idle time from its ready time on (fluid sharing), so a later
    // copy-in can use bandwidth left idle while an earlier-issued copy-out waits for its data.
    std::vector<std::pair<double, double>> chan_;
    double PlaceOnChannel(double ready, double dur);

    // race detection
    VClock vc_[kRacePipes];
    VClock issue_vc_;  // what the scalar unit has waited for: inherited by everything it issues
    uint32_t issue_epoch_ = 1;
    uint32_t merged_epoch_[kRacePipes] = {};
    // Per pipe: its own instructions up to this sequence are known complete at its next issue
    // (a PipeBarrier on it or PIPE_ALL since, or a wait on a token whose clock covers them).
    uint32_t self_done_[kRacePipes] = {};
    void Joined(int p, const VClock& vc) {
        if (vc.c[p] > self_done_[p]) self_done_[p] = vc.c[p];
    }
    void Drain(int p);  // PipeBarrier<p>: the pipe's next instruction waits for all its earlier ones
    RaceTracker race_;
    std::vector<Access> acc_;  // Issue's accesses as the race check sees them (reused)

    CoreStats stats_;
    std::unordered_map<const char*, size_t> instr_index_[int(Pipe::COUNT)];
};

}  // namespace ao::rt
