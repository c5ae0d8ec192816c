// AscendOptimizer simulator: race detector (see race.h).
#include "race.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace ao::rt {

namespace {
const char* EventName(int src, int dst) {
    static const char* n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    static char buf[32];
    snprintf(buf, sizeof buf, "%s_%s", n[src], n[dst]);
    return buf;
}
}  // namespace

RaceTracker::Map::iterator RaceTracker::Cover(Map& m, uint64_t b, uint64_t e) {
    // Split the segment containing b (if any) so that a segment starts at b.
    auto it = m.upper_bound(b);
    if (it != m.begin()) {
        auto prev = std::prev(it);
        if (prev->first < b && prev->second.end > b) {
            Seg tail = prev->second;
            prev->second.end = b;
            it = m.emplace_hint(it, b, tail);
        }
    }
    // Walk [b, e): fill gaps with empty segments, split the last one at e.
    uint64_t pos = b;
    auto first = m.end();
    it = m.lower_bound(b);
    while (pos < e) {
        if (it == m.end() || it->first > pos) {
            Seg g;
            g.end = (it == m.end() || it->first > e) ? e : it->first;
            it = m.emplace_hint(it, pos, g);
        }
        if (first == m.end()) first = it;
        if (it->second.end > e) {
            Seg tail = it->second;
            it->second.end = e;
            m.emplace_hint(std::next(it), e, tail);
        }
        pos = it->second.end;
        ++it;
    }
    return first;
}

void RaceTracker::Coalesce(Map& m, uint64_t b, uint64_t e) {
    auto it = m.lower_bound(b);
    if (it != m.begin()) --it;
    while (it != m.end() && it->first <= e) {
        auto nx = std::next(it);
        if (nx == m.end()) break;
        if (it->second.end == nx->first && it->second.SameHistory(nx->second)) {
            it->second.end = nx->second.end;
            m.erase(nx);
        } else {
            it = nx;
        }
    }
}

void RaceTracker::Report(const char* order, Space sp, const Rec& first, int first_pipe, const Instr& ins, int pipe,
                         uint64_t b, uint64_t e, bool write) {
    static const char* pn[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    const char* verb1 = order[0] == 'w' ? "wrote" : "read";
    // A race is a warning (the run goes on, computed in program order): working operators carry
    // some; the driver decides what it costs (--strict, candidates may not add one).
    char key[256];
    snprintf(key, sizeof key, "%s|%s|%s|%d|%s|%d", order, SpaceName(sp), first.name ? first.name : "?", first_pipe,
             ins.name, pipe);
    Warn(ErrorKind::Race, key,
         "unsynchronised %s access to %s: %s on pipe %s %s %s [%llu, %llu), then %s on pipe %s %s [%llu, %llu) "
         "with no queue operation (EnQue/DeQue, AllocTensor/FreeTensor), flag (SetFlag/WaitFlag<HardEvent::%s>) "
         "or PipeBarrier<PIPE_ALL> ordering the second after the first; on the device the %s pipe may run "
         "ahead and see or clobber the wrong data",
         order, SpaceName(sp), first.name ? first.name : "?", pn[first_pipe], verb1, SpaceName(sp),
         (unsigned long long)first.b, (unsigned long long)first.e, ins.name, pn[pipe], write ? "writes" : "reads",
         (unsigned long long)b, (unsigned long long)e, EventName(first_pipe, pipe), pn[pipe]);
}

bool CompilerSyncs(int first, int second) {
    auto vector_side = [](int p) { return p == int(Pipe::V) || p == int(Pipe::MTE2) || p == int(Pipe::MTE3); };
    return (first == int(Pipe::S) && vector_side(second)) || (second == int(Pipe::S) && vector_side(first));
}

void RaceTracker::Conflict(const char* order, Space sp, const Rec& first, int first_pipe, const Instr& ins,
                           int pipe, const ao::rt::Access& a, Sync& sync) {
    if (!auto_sync_ || !CompilerSyncs(first_pipe, pipe)) {
        Report(order, sp, first, first_pipe, ins, pipe, a.begin, a.end, a.write);
        return;
    }
    // The inserted set_flag on `first_pipe` after the first access and wait_flag on `pipe`
    // before this one: this pipe joins the first's clock as it was at that access and starts
    // once the access completed.
    const auto& h = history_[first_pipe];
    auto it = std::upper_bound(h.begin(), h.end(), first.seq,
                               [](uint32_t s, const std::pair<uint32_t, VClock>& e) { return s < e.first; });
    if (it != h.begin()) sync.vc.Merge(std::prev(it)->second);
    if (sync.vc.c[first_pipe] < first.seq) sync.vc.c[first_pipe] = first.seq;
    if (!sync.any || first.done > sync.done) {
        sync.done = first.done;
        sync.pipe = first_pipe;
    }
    sync.any = true;
}

void RaceTracker::SamePipe(const char* order, Space sp, const Rec& first, const Instr& ins, int pipe,
                           const ao::rt::Access& a, Sync& sync) {
    if (auto_sync_) {  // the compiler inserts PipeBarrier<PIPE_V> before this instruction
        sync.drain = true;
        return;
    }
    static const char* pn[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    char key[256];
    snprintf(key, sizeof key, "%s|%s|%s|%s|%d", order, SpaceName(sp), first.name ? first.name : "?", ins.name, pipe);
    Warn(ErrorKind::SamePipeRace, key,
         "unordered %s on pipe %s in %s: %s wrote %s [%llu, %llu), then %s %s [%llu, %llu) with no "
         "PipeBarrier<PIPE_%s> (or PIPE_ALL, or a flag chain) between them, and the kernel is built with "
         "--cce-auto-sync=off, so the compiler inserts none; in one pipe the next instruction may start before "
         "the previous one's writes are done, so it may %s",
         order, pn[pipe], SpaceName(sp), first.name ? first.name : "?", SpaceName(sp), (unsigned long long)first.b,
         (unsigned long long)first.e, ins.name, a.write ? "writes" : "reads", (unsigned long long)a.begin,
         (unsigned long long)a.end, pn[pipe], a.write ? "be overwritten by the older result" : "read stale data");
}

void RaceTracker::Check(const Instr& ins, int pipe, const VClock& vc, uint32_t self_done, const ao::rt::Access* acc,
                        int n, Sync& sync) {
    // An instruction's own accesses never conflict.
    for (int k = 0; k < n; ++k) {
        const ao::rt::Access& a = acc[k];
        if (a.end <= a.begin || int(a.space) >= int(Space::COUNT)) continue;
        Map& m = spaces_[int(a.space)];
        if (m.empty()) continue;
        auto it = m.upper_bound(a.begin);
        if (it != m.begin()) --it;
        for (; it != m.end() && it->first < a.end; ++it) {
            const Seg& s = it->second;
            if (s.end <= a.begin) continue;
            if (s.wpipe >= 0 && s.wpipe != pipe && vc.c[s.wpipe] < s.w.seq)
                Conflict(a.write ? "write-write" : "write-read", a.space, s.w, s.wpipe, ins, pipe, a, sync);
            else if (s.wpipe == pipe && pipe == int(Pipe::V) && self_done < s.w.seq && !sync.drain)
                SamePipe(a.write ? "write-write" : "write-read", a.space, s.w, ins, pipe, a, sync);
            if (a.write && s.rmask) {
                // A scalar load (pipe S, q == 0) has completed when the scalar unit moves on (it
                // needs the value), so it is ordered before everything issued afterwards.
                for (int q = 1; q < kRacePipes; ++q)
                    if ((s.rmask >> q & 1) && q != pipe && vc.c[q] < s.r[q].seq)
                        Conflict("read-write", a.space, s.r[q], q, ins, pipe, a, sync);
            }
        }
    }
}

void RaceTracker::Record(const Instr& ins, int pipe, uint32_t seq, const VClock& vc, const ao::rt::Access* acc, int n,
                         double done) {
    if (auto_sync_ && (pipe == int(Pipe::S) || CompilerSyncs(int(Pipe::S), pipe))) {  // pipes Conflict may join
        auto& h = history_[pipe];
        bool same = !h.empty();
        for (int i = 0; same && i < kRacePipes; ++i)
            if (i != pipe && h.back().second.c[i] != vc.c[i]) same = false;
        if (!same) h.emplace_back(seq, vc);
    }
    // Reads before writes, so an in-place operation leaves its write as the history.
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < n; ++k) {
            const ao::rt::Access& a = acc[k];
            if (a.end <= a.begin || int(a.space) >= int(Space::COUNT) || a.write != (pass == 1)) continue;
            Map& m = spaces_[int(a.space)];
            Rec rec{seq, ins.name, a.begin, a.end, done};
            for (auto it = Cover(m, a.begin, a.end); it != m.end() && it->first < a.end; ++it) {
                Seg& s = it->second;
                if (a.write) {
                    s.wpipe = int8_t(pipe);
                    s.w = rec;
                    s.rmask = 0;
                } else {
                    s.r[pipe] = rec;
                    s.rmask |= uint8_t(1u << pipe);
                }
            }
            Coalesce(m, a.begin, a.end);
        }
    }
}

}  // namespace ao::rt
