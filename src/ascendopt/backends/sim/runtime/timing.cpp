// AscendOptimizer simulator: pipe-level timing model, shared L2 model, race-check hooks.
// See docs/timing-model.md for the model and socs/*.toml for every parameter and its source.
#include "timing.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ao::rt {

// ---------------------------------------------------------------------------------- tracing
namespace {
bool g_trace_on = false;
std::atomic<uint64_t> g_trace_kept{0}, g_trace_dropped{0}, g_flag_kept{0};
}  // namespace
void SetTraceEnabled(bool on) { g_trace_on = on; }
bool TraceEnabled() { return g_trace_on; }
uint64_t TraceDropped() { return g_trace_dropped.load(); }
void ResetTrace() {
    g_trace_kept = 0;
    g_trace_dropped = 0;
    g_flag_kept = 0;
}

// ------------------------------------------------------------------------------ timing model
TimingModel::TimingModel(const SocParams& soc, int block_idx, int block_num, L2Model* l2)
    : soc_(soc), block_idx_(block_idx), block_num_(block_num), l2_(l2) {
    scalar_issue_ = soc.Get("scalar_issue_cycles", 2);
    scalar_ub_ = soc.Get("scalar_ub_cycles", 5);
    SetCubeCore(false);
    vec_startup_ = soc.Get("vec_startup_cycles", 24);
    for (double& v : vec_rep_) v = soc.Get("vec_elementwise_cycles_per_repeat", 1);
    vec_rep_[int(OpClass::VecTranscend)] = soc.Get("vec_transcend_cycles_per_repeat", 4);
    vec_rep_[int(OpClass::VecReduce)] = soc.Get("vec_reduce_cycles_per_repeat", 2);
    vec_rep_[int(OpClass::VecCast)] = soc.Get("vec_cast_cycles_per_repeat", 1);
    vec_rep_[int(OpClass::VecGather)] = soc.Get("vec_gather_cycles_per_repeat", 4);
    rr_pen_ = soc.Get("ub_rr_conflict_cycles", 1.0);
    rw_pen_ = soc.Get("ub_rw_conflict_cycles", 0.8);
    dma_issue_ = soc.Get("dma_issue_cycles", 12);
    dma_burst_ = soc.Get("dma_burst_cycles", 0.5);
    dma_latency_ = soc.Get("dma_latency_cycles", 128);
    core_ddr_ = soc.Get("core_hbm_bytes_per_cycle", 32);
    core_l2_ = soc.Get("core_l2_bytes_per_cycle", 110);
    int active = l2_ != nullptr ? l2_->Active() : std::max(1, block_num);
    hbm_share_ = soc.Get("hbm_bytes_per_cycle", 810) / active;
    l2_share_ = soc.Get("l2_bytes_per_cycle", 3550) / active;
    line_ = soc.Get("l2_line_bytes", 512);
    mte1_startup_ = soc.Get("mte1_startup_cycles", 16);
    l1_l0a_ = soc.Get("l1_to_l0a_bytes_per_cycle", 512);
    l1_l0b_ = soc.Get("l1_to_l0b_bytes_per_cycle", 256);
    l1_ub_ = soc.Get("l1_to_ub_bytes_per_cycle", 128);
    ub_l1_ = soc.Get("ub_to_l1_bytes_per_cycle", 256);
    fix_startup_ = soc.Get("fix_startup_cycles", 16);
    fix_rate_ = soc.Get("l0c_out_bytes_per_cycle", 512);
    cube_startup_ = soc.Get("cube_startup_cycles", 32);
    cube_per_fractal_ = soc.Get("cube_cycles_per_fractal", 1);
    sync_all_ = soc.Get("sync_all_cycles", 1000);
    cross_flag_ = soc.Get("cross_core_flag_cycles", 100);
    barrier_cycles_ = soc.Get("barrier_cycles", 4);
    // The part of a vector instruction's fixed cost that a following independent V instruction
    // overlaps (pipeline drain); never more than the start-up itself.
    vec_drain_ = std::max(0.0, std::min(soc.Get("vec_drain_cycles", 0), vec_startup_));
    // "vec_rep.<API>" (every element size) and "vec_rep.<API>.<bytes>" (one size, wins).
    const std::string pre = "vec_rep.";
    for (int pass = 0; pass < 2; ++pass)
        for (const auto& [key, val] : soc.values) {
            if (key.compare(0, pre.size(), pre) != 0) continue;
            std::string api = key.substr(pre.size());
            int bytes = -1;
            size_t dot = api.rfind('.');
            if (dot != std::string::npos) {
                bytes = std::atoi(api.c_str() + dot + 1);
                api.resize(dot);
                if (bytes < 0 || bytes > 8) continue;
            }
            if ((pass == 0) != (bytes < 0)) continue;  // API-wide figures first, then per size
            auto [it, fresh] = vec_api_.try_emplace(api);
            if (fresh) it->second.fill(-1);  // sizes without a figure use the class's
            if (pass == 0) it->second.fill(val);
            else it->second[bytes] = val;
        }
}

void TimingModel::Record(char kind, int pipe, int dst, const char* name, double a, double b) {
    if (!g_trace_on) return;
    if (kind == 'i') {
        if (g_trace_kept.fetch_add(1) >= kTraceCap) {
            g_trace_kept.fetch_sub(1);
            g_trace_dropped.fetch_add(1);
            return;
        }
    } else if (g_flag_kept.fetch_add(1) >= kTraceCap) {
        return;
    }
    TraceEvent ev;
    ev.kind = kind;
    ev.pipe = int8_t(pipe);
    ev.dst = int8_t(dst);
    ev.name = name;
    ev.start = a;
    ev.end = b;
    stats_.trace.push_back(ev);
}

TimingModel::Cost TimingModel::DmaCost(const Instr& ins) {
    // Returns the bandwidth-bound part in `busy` (the channel time) and the fixed part in
    // `latency`; Issue() combines them with the per-core HBM channel.
    Cost c;
    const Access* gm = nullptr;
    for (int k = 0; k < ins.n_access; ++k)
        if (ins.access[k].space == Space::GM) gm = &ins.access[k];
    uint32_t bursts = std::max<uint32_t>(1, ins.bursts);
    uint64_t len = ins.burst_bytes ? ins.burst_bytes : (ins.bytes + bursts - 1) / bursts;
    if (gm == nullptr) {
        c.busy = double(ins.bytes) / core_ddr_;
        return c;
    }
    uint64_t dev = GmDeviceAddr(gm->begin);
    uint64_t span = gm->end - gm->begin;
    uint64_t stride = bursts > 1 && span > len ? (span - len) / (bursts - 1) : len;
    bool write = gm->write, bypass = ins.l2_policy != 0;
    transfers_ |= ins.bytes > 0;
    DmaMeetsDataCache(ins, dev, len, stride, bursts, write);
    if (l2_ == nullptr) {
        c.busy = double(ins.bytes) / core_ddr_;
        return c;
    }
    L2Model::Result res;
    uint64_t extra = 0, L = uint64_t(line_);
    for (uint32_t i = 0; i < bursts; ++i) {
        uint64_t a = dev + uint64_t(i) * stride;
        l2_->Touch(block_idx_, now_, l2_own_, a, len, write, bypass, res);
        uint64_t spanned = (a + len - 1) / L - a / L + 1, minimal = (len + L - 1) / L;
        if (spanned > minimal) extra += (spanned - minimal) * L;  // unaligned: one more transaction
    }
    uint64_t wb = 0;
    if (!bypass) {  // traffic through L2 ages its lines; around-L2 traffic does not
        l2_own_ += ins.bytes;
        wb = l2_->Evict(block_idx_, l2_own_);  // dirty victims this allocation pushed out
    }
    double hbm = std::min(core_ddr_, hbm_share_), l2 = std::min(core_l2_, l2_share_);
    // A misalignment transaction goes where the access goes: to HBM when any of it does, else
    // to L2. It is counted where it is charged, so HBM bytes / HBM bandwidth stays a lower
    // bound of the time (an L2-served extra line counted as HBM traffic broke it).
    bool at_hbm = res.miss_bytes + wb > 0;
    c.busy = double(res.miss_bytes + wb) / hbm + double(res.hit_bytes) / l2 + double(extra) / (at_hbm ? hbm : l2);
    stats_.l2_hit_bytes += res.hit_bytes + (at_hbm ? 0 : extra);
    stats_.hbm_bytes += res.miss_bytes + wb + (at_hbm ? extra : 0);
    return c;
}

TimingModel::Cost TimingModel::Price(const Instr& ins) {
    Cost c;
    switch (ins.cls) {
        case OpClass::Scalar: c.busy = 1; break;
        case OpClass::ScalarLocal: c.busy = scalar_ub_; break;
        case OpClass::ScalarGm: c.busy = ScalarGmCost(ins); break;
        case OpClass::DataCacheMaint: c.busy = DataCacheMaintCost(ins); break;
        case OpClass::Sync: c.busy = 0; break;
        case OpClass::CubeMmad: c.busy = cube_startup_ + ins.repeats * cube_per_fractal_; break;
        case OpClass::CubeLoad: {
            double rate = l1_l0b_;
            for (int k = 0; k < ins.n_access; ++k)
                if (ins.access[k].write && ins.access[k].space == Space::L0A) rate = l1_l0a_;
            c.busy = mte1_startup_ + double(ins.bytes) / rate;
            break;
        }
        case OpClass::CopyLocal: {
            if (ins.pipe == Pipe::V) {
                c = VecSplit(VecCost(ins));
            } else {
                double rate = ins.pipe == Pipe::MTE3 ? ub_l1_ : ins.pipe == Pipe::FIX ? fix_rate_ : l1_ub_;
                for (int k = 0; k < ins.n_access; ++k) {
                    if (!ins.access[k].write) continue;
                    if (ins.access[k].space == Space::L0A) rate = l1_l0a_;
                    if (ins.access[k].space == Space::L0B) rate = l1_l0b_;
                }
                c.busy = (ins.pipe == Pipe::FIX ? fix_startup_ : mte1_startup_) + double(ins.bytes) / rate;
            }
            break;
        }
        default:
            if (ins.pipe == Pipe::V || int(ins.cls) >= int(OpClass::VecElementwise)) c = VecSplit(VecCost(ins));
            else c.busy = 1;
    }
    return c;
}

void TimingModel::MergeIssue(int p) {
    if (p < kRacePipes && merged_epoch_[p] != issue_epoch_) {
        vc_[p].Merge(issue_vc_);
        Joined(p, issue_vc_);
        merged_epoch_[p] = issue_epoch_;
    }
}

void TimingModel::Issue(const Instr& ins) {
    int p = int(ins.pipe);
    if (p >= kRacePipes) p = int(Pipe::S);
    // ---- race check (program order) ----
    MergeIssue(p);
    uint32_t seq = ++vc_[p].c[p];
    // The accesses as the race check sees them: GM at device addresses, a strided footprint as
    // its pieces (Access::stride).
    std::vector<Access>& acc = acc_;
    acc.clear();
    for (int k = 0; k < ins.n_access; ++k) {
        Access a = ins.access[k];
        if (a.space == Space::GM) {
            uint64_t d = GmDeviceAddr(a.begin);
            a.end = d + (a.end - a.begin);
            a.begin = d;
        }
        uint64_t span = a.end > a.begin ? a.end - a.begin : 0;
        if (a.stride == 0 || a.len == 0 || a.len >= a.stride || span / a.stride >= kMaxStridePieces) {
            a.stride = a.len = 0;
            acc.push_back(a);
            continue;
        }
        for (uint64_t b = a.begin; b < a.end; b += a.stride) {
            Access piece = a;
            piece.begin = b;
            piece.end = std::min(a.end, b + a.len);
            piece.stride = piece.len = 0;
            acc.push_back(piece);
        }
    }
    const int n = int(acc.size());
    RaceTracker::Sync sync;
    race_.Check(ins, p, vc_[p], self_done_[p], acc.data(), n, sync);
    if (sync.drain) {
        // Compiler auto-sync: the PipeBarrier<PIPE_V> inserted before this instruction.
        double arrival = std::max({now_, free_at_[p], wait_[p]});
        Drain(p);
        self_done_[p] = seq - 1;  // (Drain counted this instruction already)
        Record('f', p, p, "", done_[p], std::max(done_[p], arrival));
        ++stats_.auto_barriers;
    }
    if (sync.any) {
        // Compiler auto-sync (race.h): the flag pair inserted between the conflicting accesses,
        // priced as SetFlag/WaitFlag are: this instruction starts once the first completed.
        vc_[p].Merge(sync.vc);
        Joined(p, sync.vc);
        if (p == int(Pipe::S)) {
            issue_vc_.Merge(sync.vc);
            ++issue_epoch_;
        }
        double arrival = p == int(Pipe::S) ? now_ : std::max({now_, free_at_[p], wait_[p]});
        if (p == int(Pipe::S)) now_ = std::max(now_, sync.done);
        else wait_[p] = std::max(wait_[p], sync.done);
        Record('f', sync.pipe, p, "", sync.done, std::max(sync.done, arrival));
        ++stats_.auto_syncs;
    }

    // ---- timing ----
    bool dma = ins.cls == OpClass::CopyIn || ins.cls == OpClass::CopyOut ||
               (ins.cls == OpClass::Fixpipe && [&] {
                   for (int k = 0; k < ins.n_access; ++k)
                       if (ins.access[k].space == Space::GM) return true;
                   return false;
               }());
    double start, end, busy, fin;  // fin: when the result is visible to other pipes
    double cost = -1;              // the instruction's own cycles (statistics), if not `busy`
    if (p == int(Pipe::S)) {
        Cost c = Price(ins);
        start = std::max(now_, wait_[p]);
        end = start + c.busy;
        busy = c.busy;
        now_ = end;
        free_at_[p] = done_[p] = end;
        fin = end;
    } else if (dma) {
        start = std::max({now_, free_at_[p], wait_[p]});
        uint32_t bursts = std::max<uint32_t>(1, ins.bursts);
        double fixed = dma_issue_ + bursts * dma_burst_ + (ins.cls == OpClass::Fixpipe ? fix_startup_ : 0);
        double xfer = DmaCost(ins).busy;
        // The core's share of HBM/L2 bandwidth is one channel used by MTE2, MTE3 and FIX.
        end = PlaceOnChannel(start + fixed, xfer);
        busy = end - start;
        free_at_[p] = end;
        done_[p] = std::max(done_[p], end + dma_latency_);
        fin = end + dma_latency_;
        now_ += scalar_issue_;
    } else {
        Cost c = Price(ins);
        start = std::max({now_, free_at_[p], wait_[p]});
        end = start + c.busy;
        free_at_[p] = end;
        done_[p] = std::max(done_[p], end + c.latency);
        fin = end + c.latency;
        // The pipe is busy while an instruction is in flight (issue to completion); overlapping
        // in-flight spans count once.
        busy = std::max(0.0, fin - std::max(start, busy_to_[p]));
        busy_to_[p] = std::max(busy_to_[p], fin);
        cost = c.busy + c.latency;
        now_ += scalar_issue_;
    }
    race_.Record(ins, p, seq, vc_[p], acc.data(), n, fin);
    Record('i', p, 0, ins.name, start, end);

    // ---- statistics ----
    PipeStats& ps = stats_.pipes[p];
    ps.busy_cycles += busy;
    ps.instrs += 1;
    ps.bytes += ins.bytes;
    if (ins.cls == OpClass::CopyIn) stats_.gm_bytes_in += ins.bytes;
    if (ins.cls == OpClass::CopyOut) stats_.gm_bytes_out += ins.bytes;
    if (p == int(Pipe::V) && int(ins.cls) >= int(OpClass::VecElementwise) && int(ins.cls) <= int(OpClass::VecGather))
        stats_.vector_elems += ins.elems;
    if (ins.cls == OpClass::CubeMmad) stats_.cube_fractals += ins.repeats;
    if (cost < 0) cost = busy;
    auto& index = instr_index_[p];
    auto it = index.find(ins.name);
    if (it == index.end()) {
        index.emplace(ins.name, stats_.instrs.size());
        stats_.instrs.push_back({ins.name, p, 1, cost});
    } else {
        stats_.instrs[it->second].count += 1;
        stats_.instrs[it->second].cycles += cost;
    }
}

double TimingModel::PlaceOnChannel(double ready, double dur) {
    // Drop intervals no future transfer can overlap (every later DMA is ready after now_).
    size_t keep = 0;
    while (keep < chan_.size() && chan_[keep].second < now_) ++keep;
    if (keep > 64) chan_.erase(chan_.begin(), chan_.begin() + long(keep));
    std::vector<std::pair<double, double>> add;
    double pos = ready, left = dur, end = ready;
    for (const auto& iv : chan_) {
        if (left <= 0) break;
        if (iv.second <= pos) continue;
        if (iv.first > pos) {
            double take = std::min(iv.first - pos, left);
            add.push_back({pos, pos + take});
            left -= take;
            end = pos + take;
        }
        pos = std::max(pos, iv.second);
    }
    if (left > 0) {
        add.push_back({pos, pos + left});
        end = pos + left;
    }
    if (dur <= 0) return ready;
    chan_.insert(chan_.end(), add.begin(), add.end());
    std::sort(chan_.begin(), chan_.end());
    std::vector<std::pair<double, double>> merged;
    for (const auto& iv : chan_) {
        if (!merged.empty() && iv.first <= merged.back().second + 1e-9) merged.back().second = std::max(merged.back().second, iv.second);
        else merged.push_back(iv);
    }
    chan_.swap(merged);
    return end;
}

void TimingModel::SyncSet(Pipe src, Pipe dst, uint64_t key) {
    Token tok;
    if (src == Pipe::ALL || int(src) >= kRacePipes) {
        double t = now_;
        for (int i = 0; i < kRacePipes; ++i) {
            t = std::max({t, done_[i], wait_[i]});
            MergeIssue(i);
            tok.vc.Merge(vc_[i]);
        }
        tok.time = t;
    } else {
        int s = int(src);
        MergeIssue(s);
        tok.time = src == Pipe::S ? now_ : std::max({now_, done_[s], wait_[s]});
        tok.vc = vc_[s];
    }
    (void)dst;
    tokens_[key].push_back(tok);
}

void TimingModel::SyncWait(Pipe src, Pipe dst, uint64_t key) {
    auto it = tokens_.find(key);
    if (it == tokens_.end() || it->second.empty()) return;  // never set: no ordering, no wait
    Token tok = it->second.front();
    it->second.pop_front();
    auto apply = [&](int d) {
        double arrival = d == int(Pipe::S) ? now_ : std::max({now_, free_at_[d], wait_[d]});
        if (d == int(Pipe::S)) now_ = std::max(now_, tok.time);
        else wait_[d] = std::max(wait_[d], tok.time);
        MergeIssue(d);
        vc_[d].Merge(tok.vc);
        Joined(d, tok.vc);
        if (d == int(Pipe::S)) {
            issue_vc_.Merge(tok.vc);
            ++issue_epoch_;
        }
        Record('f', int(src) < kRacePipes ? int(src) : 0, d, "", tok.time, std::max(tok.time, arrival));
    };
    if (dst == Pipe::ALL || int(dst) >= kRacePipes) {
        for (int d = 0; d < kRacePipes; ++d) apply(d);
    } else {
        apply(int(dst));
    }
}

void TimingModel::EndOfPipe() {
    VClock m = issue_vc_;
    for (auto& v : vc_) m.Merge(v);
    for (auto& v : vc_) v = m;
    for (int i = 0; i < kRacePipes; ++i) self_done_[i] = m.c[i];
    issue_vc_ = m;
    ++issue_epoch_;
}

void TimingModel::Barrier(Pipe p) {
    if (p == Pipe::ALL || int(p) >= kRacePipes) {
        double t = now_;
        for (int i = 0; i < kRacePipes; ++i) t = std::max({t, done_[i], wait_[i]});
        now_ = t + barrier_cycles_;
        for (double& w : wait_) w = std::max(w, now_);
        EndOfPipe();
    } else {
        Drain(int(p));
    }
}

void TimingModel::Drain(int q) {
    // The pipe's next instruction starts once every earlier one has completed: for V the
    // vector pipeline's drain (vec_drain_cycles after the last one left the issue stage).
    wait_[q] = std::max(wait_[q], done_[q]);
    if (q < kRacePipes) {
        MergeIssue(q);
        self_done_[q] = vc_[q].c[q];
    }
}

double TimingModel::ArriveAll() {
    Barrier(Pipe::ALL);
    return now_;
}

void TimingModel::LeaveAll(double t) {
    now_ = std::max(now_, t) + sync_all_;
    for (double& w : wait_) w = std::max(w, now_);
}

double TimingModel::CrossSet(Pipe pipe, uint64_t key) {
    SyncSet(pipe, Pipe::ALL, key);
    return tokens_[key].back().time;
}

void TimingModel::CrossWait(Pipe pipe, uint64_t key, double release) {
    bool whole = pipe == Pipe::S || pipe == Pipe::ALL;
    SyncWait(Pipe::ALL, whole ? Pipe::ALL : pipe, key);
    double t = release + cross_flag_;
    if (whole) {
        now_ = std::max(now_, t);
        for (double& w : wait_) w = std::max(w, now_);
    } else {
        wait_[int(pipe)] = std::max(wait_[int(pipe)], t);
    }
}

CoreStats TimingModel::Finish() {
    double t = now_;
    for (int i = 0; i < kRacePipes; ++i) t = std::max({t, done_[i], free_at_[i]});
    now_ = t;
    stats_.total_cycles = now_;
    // Merge instruction stats whose names are equal strings at different addresses.
    std::vector<InstrStats> merged;
    std::unordered_map<std::string, size_t> by;
    for (auto& in : stats_.instrs) {
        std::string key = in.name + "\x1f" + std::to_string(in.pipe);
        auto it = by.find(key);
        if (it == by.end()) {
            by.emplace(key, merged.size());
            merged.push_back(in);
        } else {
            merged[it->second].count += in.count;
            merged[it->second].cycles += in.cycles;
        }
    }
    stats_.instrs = std::move(merged);
    return std::move(stats_);
}

}  // namespace ao::rt
