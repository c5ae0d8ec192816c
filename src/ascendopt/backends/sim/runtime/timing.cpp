// AscendOptimizer simulator: a first pipe-level timing model (to be calibrated).
#include "timing.h"

#include <algorithm>
#include <cmath>

namespace ao::rt {

TimingModel::TimingModel(const SocParams& soc, int, int block_num) : soc_(soc), block_num_(block_num) {}

double TimingModel::Cost(const Instr& ins) const {
    switch (ins.cls) {
        case OpClass::CopyIn:
        case OpClass::CopyOut: {
            double startup = soc_.Get("dma_startup_cycles", 400);
            double per_core = soc_.Get("dma_bytes_per_cycle", 64);
            double hbm = soc_.Get("hbm_bytes_per_cycle", 880) / std::max(1, block_num_);
            double bw = std::min(per_core, hbm);
            return startup + double(ins.bytes) / bw + ins.bursts * soc_.Get("dma_burst_cycles", 2);
        }
        case OpClass::CopyLocal:
            return soc_.Get("vec_startup_cycles", 12) + double(ins.bytes) / 128.0;
        case OpClass::VecTranscend:
            return soc_.Get("vec_startup_cycles", 12) + ins.repeats * 4.0;
        case OpClass::VecReduce:
            return soc_.Get("vec_startup_cycles", 12) + ins.repeats * 2.0;
        case OpClass::ScalarGm:
            return soc_.Get("scalar_gm_cycles", 200);
        case OpClass::ScalarLocal:
            return soc_.Get("scalar_ub_cycles", 6);
        case OpClass::CubeMmad:
            return 20 + ins.repeats * 1.0;
        case OpClass::Sync:
            return 0;
        default:
            return soc_.Get("vec_startup_cycles", 12) + ins.repeats * 1.0;
    }
}

void TimingModel::Issue(const Instr& ins) {
    int p = int(ins.pipe);
    double cost = Cost(ins);
    if (ins.pipe == Pipe::S) {
        now_ = std::max(now_, wait_[p]) + cost;
        free_at_[p] = now_;
    } else {
        double start = std::max({now_, free_at_[p], wait_[p]});
        free_at_[p] = start + cost;
        now_ += 1;  // issue slot
    }
    stats_.pipes[p].busy_cycles += cost;
    stats_.pipes[p].instrs += 1;
    if (ins.cls == OpClass::CopyIn) stats_.gm_bytes_in += ins.bytes;
    if (ins.cls == OpClass::CopyOut) stats_.gm_bytes_out += ins.bytes;
    std::string key = ins.name;
    auto it = instr_index_.find(key);
    if (it == instr_index_.end()) {
        instr_index_[key] = stats_.instrs.size();
        stats_.instrs.push_back({key, p, 1, cost});
    } else {
        stats_.instrs[it->second].count += 1;
        stats_.instrs[it->second].cycles += cost;
    }
}

void TimingModel::SyncSet(Pipe src, Pipe, uint64_t key) {
    double t = src == Pipe::S ? now_ : std::max(free_at_[int(src)], now_);
    tokens_[key] = t;
}

void TimingModel::SyncWait(Pipe, Pipe dst, uint64_t key) {
    auto it = tokens_.find(key);
    if (it == tokens_.end()) return;  // waiting on a flag never set: model as no wait
    int d = int(dst);
    if (dst == Pipe::S) now_ = std::max(now_, it->second);
    else wait_[d] = std::max(wait_[d], it->second);
}

void TimingModel::Barrier(Pipe p) {
    if (p == Pipe::ALL) {
        double t = now_;
        for (double f : free_at_) t = std::max(t, f);
        now_ = t;
        for (double& w : wait_) w = std::max(w, t);
    }
}

double TimingModel::ArriveAll() {
    Barrier(Pipe::ALL);
    return now_;
}

void TimingModel::LeaveAll(double t) {
    now_ = std::max(now_, t) + soc_.Get("sync_all_cycles", 500);
    for (double& w : wait_) w = std::max(w, now_);
}

CoreStats TimingModel::Finish() {
    Barrier(Pipe::ALL);
    stats_.total_cycles = now_;
    return stats_;
}

}  // namespace ao::rt
