// AscendOptimizer simulator: the runner's side of the timing stream (see stream.h).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "sim_config.h"
#include "stream.h"

namespace ao::rt {

TimingStream& Stream() {
    static TimingStream s;
    return s;
}

void TimingStream::Open(int event_fd, int reply_fd, int case_index) {
    fd_ = event_fd;
    reply_fd_ = reply_fd;
    cur_core_ = nullptr;
    core_of_.clear();
    records_ = times_ = 0;
    next_name_ = 0;
    names_.clear();
    n_ = 0;
    const uint32_t head[2] = {ts::kMagic, ts::kVersion};
    Put(head, sizeof head);
    if (case_index >= 0) {
        const uint8_t op = ts::kCase;
        const uint32_t index = uint32_t(case_index);
        Put(&op, 1);
        Put(&index, sizeof index);
    }
}

void TimingStream::Flush() {
    const uint8_t* p = buf_;
    size_t left = n_;
    while (left > 0 && fd_ >= 0) {
        ssize_t w = write(fd_, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {  // the timer is gone: it reports why; the run cannot be timed
            fd_ = -2;
            break;
        }
        p += w;
        left -= size_t(w);
    }
    n_ = 0;
}

void TimingStream::Head(uint8_t op, size_t payload) {
    // Core events belong to the core whose thread has the turn (g_core); names, the launch and
    // the end to none.
    bool sw = g_core != cur_core_ && g_core != nullptr && op != ts::kBegin && op != ts::kLaunch &&
              op != ts::kName && op != ts::kEnd;
    size_t need = 1 + payload + (sw ? 1 + sizeof(uint32_t) : 0);
    if (n_ + need > sizeof buf_) Flush();
    if (sw) {
        auto it = core_of_.find(g_core);
        uint32_t c = it != core_of_.end() ? uint32_t(it->second) : UINT32_MAX;  // the timer refuses it
        uint8_t o = ts::kSwitch;
        Put(&o, 1);
        Put(&c, sizeof c);
        cur_core_ = g_core;
        ++records_;
    }
    Put(&op, 1);
    ++records_;
}

uint32_t TimingStream::NameId(const char* s) {
    auto it = names_.find(s);
    if (it != names_.end()) return it->second;
    uint32_t id = next_name_++;
    names_.emplace(s, id);
    const char* text = s != nullptr ? s : "";
    uint16_t len = uint16_t(std::min<size_t>(std::strlen(text), ts::kMaxNameBytes));
    Head(ts::kName, sizeof id + sizeof len + len);
    Put(&id, sizeof id);
    Put(&len, sizeof len);
    Put(text, len);
    return id;
}

void TimingStream::Launch(uint32_t cores, uint32_t l2_blocks) {
    ts::LaunchRec r{cores, l2_blocks};
    Head(ts::kLaunch, sizeof r);
    Put(&r, sizeof r);
    times_ = 0;
}

void TimingStream::Begin(int core, uint32_t model_num, const char* label) {
    // A label is sent anew for every core (its text is built per core): a fresh name id.
    uint32_t id = next_name_++;
    uint16_t len = uint16_t(std::min<size_t>(std::strlen(label), ts::kMaxNameBytes));
    Head(ts::kName, sizeof id + sizeof len + len);
    Put(&id, sizeof id);
    Put(&len, sizeof len);
    Put(label, len);
    ts::BeginRec r{uint32_t(core), model_num, id};
    Head(ts::kBegin, sizeof r);
    Put(&r, sizeof r);
    core_of_[g_core] = core;
    cur_core_ = g_core;
}

void TimingStream::Issue(const Instr& ins) {
    ts::IssueRec r;
    r.name = NameId(ins.name);
    r.pipe = uint8_t(ins.pipe);
    r.cls = uint8_t(ins.cls);
    r.n_access = uint8_t(ins.n_access);
    r.l2_policy = ins.l2_policy;
    r.dtype_bytes = ins.dtype_bytes;
    r.repeats = ins.repeats;
    r.bursts = ins.bursts;
    r.ub_stride_conflicts = ins.ub_stride_conflicts;
    r.elems = ins.elems;
    r.bytes = ins.bytes;
    r.burst_bytes = ins.burst_bytes;
    r.gm_addr = ins.gm_addr;
    Head(ts::kIssue, sizeof r + size_t(ins.n_access) * sizeof(ts::AccessRec));
    Put(&r, sizeof r);
    for (int k = 0; k < ins.n_access; ++k) {
        const Access& a = ins.access[k];
        ts::AccessRec ar{uint8_t(a.space), uint8_t(a.write ? 1 : 0), a.begin, a.end, a.stride, a.len};
        if (a.space == Space::GM) {  // the model sees device addresses (deterministic)
            ar.begin = GmDeviceAddr(a.begin);
            ar.end = ar.begin + (a.end - a.begin);
        }
        Put(&ar, sizeof ar);
    }
}

void TimingStream::Sync(uint8_t op, Pipe src, Pipe dst, uint64_t key) {
    ts::SyncRec r{uint8_t(src), uint8_t(dst), key};
    Head(op, sizeof r);
    Put(&r, sizeof r);
}

void TimingStream::Barrier(Pipe p) {
    uint8_t v = uint8_t(p);
    Head(ts::kBarrier, 1);
    Put(&v, 1);
}

void TimingStream::Mark(uint8_t op) { Head(op, 0); }

double TimingStream::Arrive() {
    Head(ts::kArrive, 0);
    return NextTime();
}

void TimingStream::Leave(double time_id) {
    uint64_t t = uint64_t(time_id);
    Head(ts::kLeave, sizeof t);
    Put(&t, sizeof t);
}

double TimingStream::CrossSet(Pipe pipe, uint64_t key) {
    uint8_t p = uint8_t(pipe);
    Head(ts::kCrossSet, 1 + sizeof key);
    Put(&p, 1);
    Put(&key, sizeof key);
    return NextTime();
}

void TimingStream::CrossWait(Pipe pipe, uint64_t key, double time_id) {
    uint8_t p = uint8_t(pipe);
    uint64_t t = uint64_t(time_id);
    Head(ts::kCrossWait, 1 + sizeof key + sizeof t);
    Put(&p, 1);
    Put(&key, sizeof key);
    Put(&t, sizeof t);
}

double TimingStream::Max(double a, double b) {
    if (a == b || b == 0) return a;  // id 0 is time 0, no later than any time
    if (a == 0) return b;
    uint64_t v[2] = {uint64_t(a), uint64_t(b)};
    Head(ts::kMax, sizeof v);
    Put(v, sizeof v);
    return NextTime();
}

int64_t TimingStream::Query() {
    Head(ts::kQuery, 0);
    Flush();
    int64_t v = 0;
    size_t got = 0;
    while (got < sizeof v && reply_fd_ >= 0) {
        ssize_t r = read(reply_fd_, reinterpret_cast<char*>(&v) + got, sizeof v - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) Fail(ErrorKind::Unsupported, "GetSystemCycle: the timer did not answer");
        got += size_t(r);
    }
    return v;
}

void TimingStream::End() {
    uint64_t n = records_;
    Head(ts::kEnd, sizeof n);
    Put(&n, sizeof n);
    Flush();
}

}  // namespace ao::rt
