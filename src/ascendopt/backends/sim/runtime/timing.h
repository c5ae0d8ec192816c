// AscendOptimizer simulator: per-core timing model interface.
#pragma once
#include <unordered_map>
#include "ascendopt_kernel/runtime.h"
#include "sim_config.h"

namespace ao::rt {

// Pipe-level timing model of one AI core. The scalar unit issues instructions in program
// order to asynchronous pipes; each pipe executes its instructions in order. Ordering
// between pipes comes only from SyncSet/SyncWait (queues, flags) and barriers.
class TimingModel {
public:
    TimingModel(const SocParams& soc, int block_idx, int block_num);
    void Issue(const Instr& ins);
    void SyncSet(Pipe src, Pipe dst, uint64_t key);
    void SyncWait(Pipe src, Pipe dst, uint64_t key);
    void Barrier(Pipe p);
    // Cross-core barrier: time at which this core arrives / all cores leave.
    double ArriveAll();
    void LeaveAll(double t);
    double Now() const { return now_; }
    CoreStats Finish();

private:
    double Cost(const Instr& ins) const;
    const SocParams& soc_;
    int block_num_;
    double now_ = 0;                        // scalar unit issue time
    double free_at_[int(Pipe::COUNT)] = {};  // when each pipe finishes its last instruction
    double wait_[int(Pipe::COUNT)] = {};     // earliest start imposed by waits
    std::unordered_map<uint64_t, double> tokens_;
    CoreStats stats_;
    std::unordered_map<std::string, size_t> instr_index_;
};

}  // namespace ao::rt
