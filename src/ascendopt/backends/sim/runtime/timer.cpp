// AscendOptimizer simulator: the timer executable (issue 18; stream.h describes the protocol).
//
//   timer MANIFEST
//
// MANIFEST is written by the Python driver (never by the runner):
//   soc <name>
//   param <key> <number>       SoC parameter
//   result <path>              where the timing result (JSON) goes
//   trace <path>               optional: per-instruction trace CSV
//   stream <event_fd> <reply_fd>
//   confine <as_bytes> <cpu_s>   optional: confine the timer (below)
//   probe open <path> | socket | fork   test only: a call the confinement must refuse
// It reads the runner's event stream, replays it through the timing model, L2 model and race
// detector, and writes {"status": "ok", "block_dim", timing fields, "warnings": [races], "cores"}.
// A stream that is not one the runtime writes (bad header, unknown opcode or enum, a count, id
// or size out of range, events in an impossible order, bytes after the end record) gives
// {"status": "malformed", "message": "forged or malformed timing stream: ..."}; a stream that
// stops early (the runner failed or was cut short) gives "incomplete". It is built from our
// runtime sources only. Confined (`confine`), it runs without a file system namespace of its own:
// it runs only our code and its one untrusted input is the stream, so before its first read of
// the stream it sets its limits (address space, CPU time, no core), opens its result and trace
// files, and installs a seccomp filter that allows only calls on the fds it holds, memory,
// futex, time and exit (sandbox_rt.h, InstallTimerFilter). Any other call (open, socket, fork,
// exec, kill, ...) traps and is reported in its result as {"status": "sandbox_violation"}.
#include <signal.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "diag.h"
#include "sandbox_rt.h"
#include "stream.h"
#include "stream_reader.h"
#include "timer_report.h"
#include "timing.h"

namespace ao::rt {

thread_local Core* g_core = nullptr;
uint64_t GmDeviceAddr(uint64_t addr) { return addr; }  // the stream carries device addresses

namespace {

using namespace replay;  // Reader, Bad and the exceptions a replay ends with (stream_reader.h)

uint64_t g_position = 0;
std::string g_label;

class Replayer {
public:
    // `after` >= -1: a batch's stream, whose case index must follow `after`; -2: one run's.
    // `share_cores` > 0: HBM/L2 bandwidth is shared by that many cores (the launch's
    // transferring cores, from a first replay), not by every launched core. `reply_fd` < 0:
    // GetSystemCycle is not answered (the runner had its answer from the first replay).
    Replayer(const SocParams& soc, Reader& in, int reply_fd, int after = -2, int share_cores = 0)
        : soc_(soc), in_(in), reply_fd_(reply_fd), after_(after), share_cores_(share_cores) {}
    void Run();
    // Launched cores that moved GM data by DMA, and the cores the bandwidth was shared by.
    int Transferring() const { return transferring_; }
    int SharedBy() const { return l2_.Active(); }
    int case_index = -1;  // in a batch: the case this stream said it times (-1 before its header)
    std::vector<CoreStats> stats;
    // The kernel was compiled with --cce-auto-sync (manifest line from the driver, which read the
    // operator's build files; never from the stream). The compiler inserts nothing on the cube
    // side, so an AIC core of a mixed kernel is timed without it.
    bool auto_sync = false;
    uint32_t Cores() const { return uint32_t(cores_.size()); }

private:
    struct Slot {
        int state = 0;  // 0 not begun, 1 running, 2 at a SyncAll (arrived), 3 finished
        std::unique_ptr<TimingModel> model;
        std::string label;
        Core stub;
    };
    Slot& Running(const char* what);
    double Time(uint64_t id, const char* what) {
        if (id >= times_.size()) Bad("%s names time id %" PRIu64 " of %zu", what, id, times_.size());
        return times_[id];
    }
    Pipe PipeOf(uint8_t v, const char* what) {
        if (v >= uint8_t(Pipe::COUNT)) Bad("%s: pipe %u out of range", what, v);
        return Pipe(v);
    }
    void OnIssue();
    void Switch(uint32_t core);

    const SocParams& soc_;
    Reader& in_;
    int reply_fd_;
    int after_;
    int share_cores_;
    std::vector<bool> transfers_;  // per core: has moved GM data by DMA
    int transferring_ = 0;
    std::deque<std::string> names_;  // stable storage: instruction names are compared by address
    std::vector<Slot> cores_;
    std::vector<double> times_{0.0};
    L2Model l2_;
    bool launched_ = false;
    int cur_ = -1;
    uint64_t records_ = 0;
    uint64_t names_bytes_ = 0;
};

Replayer::Slot& Replayer::Running(const char* what) {
    if (cur_ < 0) Bad("%s before any core began", what);
    Slot& s = cores_[size_t(cur_)];
    if (s.state != 1) Bad("%s on core %d, which is %s", what, cur_, s.state == 2 ? "at a SyncAll" : "finished");
    return s;
}

void Replayer::Switch(uint32_t core) {
    if (core >= cores_.size() || cores_[core].state == 0 || cores_[core].state == 3)
        Bad("switch to core %u, which is not running", core);
    cur_ = int(core);
    g_core = &cores_[core].stub;
    g_label = cores_[core].label;
}

void Replayer::OnIssue() {
    ts::IssueRec r;
    in_.Need(&r, sizeof r);
    Slot& s = Running("instruction");
    if (r.name >= names_.size()) Bad("instruction name id %u unknown", r.name);
    if (r.pipe >= uint8_t(Pipe::COUNT) || r.cls > uint8_t(OpClass::DataCacheMaint) || r.n_access > kMaxAccess ||
        r.l2_policy > 1)
        Bad("instruction with pipe %u, class %u, %u accesses, L2 policy %u", r.pipe, r.cls, r.n_access, r.l2_policy);
    constexpr uint64_t kMaxSpan = uint64_t(1) << 40;
    constexpr uint64_t kMaxScalarSpan = uint64_t(1) << 24;  // 16 MiB: far above any scalar copy
    if (r.bytes > kMaxSpan || r.burst_bytes > kMaxSpan || r.elems > kMaxSpan)
        Bad("instruction moving %" PRIu64 " bytes", r.bytes);
    // Bounded work per instruction: the L2 model visits every line of every burst.
    double line = std::max(32.0, soc_.Get("l2_line_bytes", 512));
    uint64_t bursts = std::max<uint32_t>(1, r.bursts);
    uint64_t len = r.burst_bytes ? r.burst_bytes : (r.bytes + bursts - 1) / bursts;
    if (double(bursts) * (double(len) / line + 2) > double(uint64_t(1) << 28))
        Bad("instruction of %" PRIu64 " bursts of %" PRIu64 " bytes", bursts, len);
    Instr ins;
    ins.name = names_[r.name].c_str();
    ins.pipe = Pipe(r.pipe);
    ins.cls = OpClass(r.cls);
    ins.dtype_bytes = r.dtype_bytes;
    ins.repeats = r.repeats;
    ins.elems = r.elems;
    ins.bytes = r.bytes;
    ins.bursts = r.bursts;
    ins.burst_bytes = r.burst_bytes;
    ins.gm_addr = r.gm_addr;
    ins.l2_policy = r.l2_policy;
    ins.ub_stride_conflicts = r.ub_stride_conflicts;
    for (int k = 0; k < r.n_access; ++k) {
        ts::AccessRec a;
        in_.Need(&a, sizeof a);
        if (a.space >= uint8_t(Space::COUNT) || a.write > 1 || a.end < a.begin || a.end - a.begin > kMaxSpan)
            Bad("access to space %u [%" PRIu64 ", %" PRIu64 ")", a.space, a.begin, a.end);
        // Bounded work: the data cache visits every 64-byte line of a scalar access.
        if (ins.cls == OpClass::ScalarGm && a.end - a.begin > kMaxScalarSpan)
            Bad("scalar GM access of %" PRIu64 " bytes", a.end - a.begin);
        Access acc;
        acc.space = Space(a.space);
        acc.write = a.write != 0;
        acc.begin = a.begin;
        acc.end = a.end;
        acc.stride = a.stride;  // TimingModel::Issue bounds the pieces it makes of it
        acc.len = a.len;
        ins.Add(acc);
    }
    s.model->Issue(ins);
    if (!transfers_[size_t(cur_)] && s.model->Transfers()) {
        transfers_[size_t(cur_)] = true;
        // Every core the bandwidth is shared by transfers: a second replay would change nothing.
        if (++transferring_ >= l2_.Active()) in_.StopTape();
    }
}

void Replayer::Run() {
    uint32_t head[2];
    if (!in_.Get(head, sizeof head)) {
        if (after_ >= -1) throw EndOfBatch{};
        throw Incomplete{"the runner wrote no timing stream"};
    }
    if (head[0] != ts::kMagic || head[1] != ts::kVersion) Bad("bad header %08x %u", head[0], head[1]);
    if (after_ >= -1) {  // a batch: the case's index, then its stream as a run's
        uint8_t op;
        uint32_t index;
        in_.Need(&op, 1);
        in_.Need(&index, sizeof index);
        if (op != ts::kCase || int64_t(index) <= after_ || index > (1u << 20))
            Bad("batch stream without its case index after case %d", after_);
        case_index = int(index);
    }
    uint32_t max_cores = uint32_t(std::max(1.0, soc_.Get("max_block_dim", 65535))) * 3;  // AIC + 2 AIV
    for (;;) {
        uint8_t op;
        g_position = records_;
        if (!in_.Get(&op, 1))
            throw Incomplete{"the timing stream ended without its end record after " + std::to_string(records_) +
                             " records"};
        ++records_;
        switch (op) {
            case ts::kName: {
                uint32_t id;
                uint16_t len;
                in_.Need(&id, sizeof id);
                in_.Need(&len, sizeof len);
                if (id != names_.size() || len > ts::kMaxNameBytes) Bad("name id %u (expected %zu), %u bytes", id,
                                                                        names_.size(), len);
                names_bytes_ += len + 32;
                if (names_bytes_ > (uint64_t(64) << 20)) Bad("more than 64 MiB of names");
                std::string s(len, '\0');
                in_.Need(s.data(), len);
                for (char c : s)  // API names and core labels: printable ASCII
                    if (c < 0x20 || c > 0x7e) Bad("name %u holds byte 0x%02x", id, unsigned(uint8_t(c)));
                names_.push_back(std::move(s));
                break;
            }
            case ts::kLaunch: {
                ts::LaunchRec r;
                in_.Need(&r, sizeof r);
                if (launched_) Bad("a second launch");
                if (r.cores == 0 || r.cores > max_cores || r.l2_blocks == 0 || r.l2_blocks > max_cores)
                    Bad("launch of %u cores (L2 for %u)", r.cores, r.l2_blocks);
                launched_ = true;
                cores_.resize(r.cores);
                stats.resize(r.cores);
                transfers_.assign(r.cores, false);
                l2_.Reset(soc_, int(r.l2_blocks));
                if (share_cores_ > 0) l2_.LimitActive(share_cores_);
                if (l2_.Active() <= 1) in_.StopTape();
                break;
            }
            case ts::kBegin: {
                ts::BeginRec r;
                in_.Need(&r, sizeof r);
                if (!launched_ || r.core >= cores_.size() || cores_[r.core].state != 0)
                    Bad("begin of core %u (launched: %d)", r.core, int(launched_));
                if (r.model_num == 0 || r.model_num > max_cores || r.label >= names_.size())
                    Bad("begin of core %u for %u cores, label %u", r.core, r.model_num, r.label);
                Slot& s = cores_[r.core];
                s.state = 1;
                s.label = names_[r.label];
                s.stub.block_idx = int32_t(r.core);
                s.model.reset(new TimingModel(soc_, int(r.core), int(r.model_num), &l2_));
                bool aic = s.label.compare(0, 4, "AIC ") == 0;
                s.model->SetAutoSync(auto_sync && !aic);
                s.model->SetCubeCore(aic);
                Switch(r.core);
                break;
            }
            case ts::kSwitch: {
                uint32_t c;
                in_.Need(&c, sizeof c);
                Switch(c);
                break;
            }
            case ts::kIssue: OnIssue(); break;
            case ts::kSyncSet:
            case ts::kSyncWait: {
                ts::SyncRec r;
                in_.Need(&r, sizeof r);
                Slot& s = Running("flag");
                Pipe src = PipeOf(r.src, "flag"), dst = PipeOf(r.dst, "flag");
                if (op == ts::kSyncSet) s.model->SyncSet(src, dst, r.key);
                else s.model->SyncWait(src, dst, r.key);
                break;
            }
            case ts::kBarrier: {
                uint8_t p;
                in_.Need(&p, 1);
                Running("barrier").model->Barrier(PipeOf(p, "barrier"));
                break;
            }
            case ts::kEndOfPipe: Running("end of TPipe").model->EndOfPipe(); break;
            case ts::kArrive: {
                Slot& s = Running("SyncAll arrival");
                times_.push_back(s.model->ArriveAll());
                s.state = 2;
                break;
            }
            case ts::kLeave: {
                uint64_t t;
                in_.Need(&t, sizeof t);
                if (cur_ < 0 || cores_[size_t(cur_)].state != 2) Bad("SyncAll leave without an arrival");
                Slot& s = cores_[size_t(cur_)];
                s.state = 1;
                s.model->LeaveAll(Time(t, "SyncAll leave"));
                break;
            }
            case ts::kCrossSet: {
                uint8_t p;
                uint64_t key;
                in_.Need(&p, 1);
                in_.Need(&key, sizeof key);
                times_.push_back(Running("cross-core set").model->CrossSet(PipeOf(p, "cross-core set"), key));
                break;
            }
            case ts::kCrossWait: {
                uint8_t p;
                uint64_t key, t;
                in_.Need(&p, 1);
                in_.Need(&key, sizeof key);
                in_.Need(&t, sizeof t);
                Slot& s = Running("cross-core wait");
                s.model->CrossWait(PipeOf(p, "cross-core wait"), key, Time(t, "cross-core wait"));
                break;
            }
            case ts::kMax: {
                uint64_t v[2];
                in_.Need(v, sizeof v);
                double a = Time(v[0], "max"), b = Time(v[1], "max");
                times_.push_back(a > b ? a : b);
                break;
            }
            case ts::kFinish: {
                Slot& s = Running("finish");
                stats[size_t(cur_)] = s.model->Finish();
                s.model.reset();
                s.state = 3;
                break;
            }
            case ts::kQuery: {
                Slot& s = Running("GetSystemCycle");
                double ghz = soc_.Get("clock_ghz", 1.85);
                int64_t v = int64_t(s.model->Now() / (ghz * 1000.0) * 50.0);
                if (reply_fd_ >= 0) {
                    ssize_t w = write(reply_fd_, &v, sizeof v);  // a runner that stopped listening: ignored
                    (void)w;
                }
                break;
            }
            case ts::kEnd: {
                uint64_t n;
                in_.Need(&n, sizeof n);
                if (n != records_ - 1) Bad("end record counts %" PRIu64 " records, %" PRIu64 " came", n, records_ - 1);
                if (!launched_) Bad("end record without a launch");
                for (size_t c = 0; c < cores_.size(); ++c)
                    if (cores_[c].state != 3) Bad("end record while core %zu has not finished", c);
                uint8_t extra;
                if (after_ < -1 && in_.Get(&extra, 1)) Bad("bytes after the end record");
                return;
            }
            default: Bad("unknown record type %u at byte %" PRIu64, op, in_.Offset() - 1);
        }
    }
}

struct Manifest {
    SocParams soc;
    std::string result, trace, probe, probe_arg;
    int ev = -1, reply = -1;
    bool confine = false, auto_sync = false, batch = false;
    unsigned long long as_bytes = 0, cpu_s = 0;
};

bool ParseManifest(const char* path, Manifest& m) {
    std::ifstream f(path);
    if (!f) return false;
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string tag;
        if (!(in >> tag)) continue;
        if (tag == "soc") in >> m.soc.name;
        else if (tag == "param") {
            std::string k;
            double v;
            if (in >> k >> v) m.soc.values[k] = v;
        } else if (tag == "result") in >> m.result;
        else if (tag == "trace") in >> m.trace;
        else if (tag == "stream") in >> m.ev >> m.reply;
        else if (tag == "confine") m.confine = bool(in >> m.as_bytes >> m.cpu_s);
        else if (tag == "probe") in >> m.probe >> m.probe_arg;
        else if (tag == "auto_sync") m.auto_sync = true;
        else if (tag == "batch") m.batch = true;
    }
    return !m.result.empty() && m.ev >= 0;
}

// Limits, the result and trace files, the filter: everything the timer needs to open is open
// before its first read of the stream. nullptr or what failed.
const char* Confine(const Manifest& m, FILE*& trace) {
    if (const char* err = sandbox::SetLimits(m.as_bytes, m.cpu_s)) return err;
    sandbox::g_result_fd = open(m.result.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (sandbox::g_result_fd < 0) return "cannot open the result file";
    if (!m.trace.empty()) {
        int fd = open(m.trace.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        trace = fd >= 0 ? fdopen(fd, "w") : nullptr;
        if (trace == nullptr) return "cannot open the trace file";
        static char buf[1 << 16];  // stdio's own allocation would fstat after the filter
        setvbuf(trace, buf, _IOFBF, sizeof buf);
    }
    return sandbox::InstallTimerFilter();
}

// Test hook (manifest line from the driver, never from the stream): a call the filter refuses.
void Probe(const Manifest& m) {
    if (m.probe == "open") {
        int fd = open(m.probe_arg.c_str(), O_RDONLY);
        if (fd >= 0) close(fd);
    } else if (m.probe == "socket") {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0) close(fd);
    } else if (m.probe == "fork") {
        if (fork() == 0) _exit(0);
    } else {
        return;
    }
    sandbox::Rewrite("{\"status\": \"unconfined\", \"message\": \"the probe call succeeded\"}\n");
    _exit(0);
}

void WriteFile(const std::string& path, const std::string& body) {
    if (sandbox::Rewrite(body)) return;  // confined: the pre-opened result file
    FILE* f = fopen(path.c_str(), "w");
    if (f == nullptr) return;
    fputs(body.c_str(), f);
    fclose(f);
}

// The stream recorded for a second replay is given up past this size (the launch is then timed
// with the bandwidth shared by every launched core, as before the second replay existed).
constexpr size_t kTapeCap = size_t(1) << 30;

// Runs one replay from a fresh warning list: "ok", or the status of a stream it refuses
// (`message` says why). EndOfBatch passes through.
std::string Replay(Replayer& r, std::string& message) {
    ResetWarnings();
    g_core = nullptr;
    g_label.clear();
    g_position = 0;
    message.clear();
    std::string status = "ok";
    try {
        r.Run();
    } catch (const Malformed& e) {
        status = "malformed";
        message = "forged or malformed timing stream: " + e.what;
    } catch (const Incomplete& e) {
        status = "incomplete";
        message = e.what;
    } catch (const std::bad_alloc&) {
        status = "malformed";
        message = "forged or malformed timing stream: it needs more memory than the timer may use";
    }
    g_core = nullptr;
    return status;
}

}  // namespace

std::string CurrentCoreLabel() { return g_core != nullptr ? g_label : std::string(); }
uint64_t WarnPosition() { return g_position; }

}  // namespace ao::rt

int main(int argc, char** argv) {
    using namespace ao::rt;
    Manifest m;
    if (argc != 2 || !ParseManifest(argv[1], m)) {
        fprintf(stderr, "usage: %s MANIFEST (soc, param, result, trace, stream, confine, auto_sync lines)\n", argv[0]);
        return 2;
    }
    const SocParams& soc = m.soc;
    signal(SIGPIPE, SIG_IGN);
    // A runner that asks GetSystemCycle and stops reading must not block the timer.
    if (m.reply >= 0) fcntl(m.reply, F_SETFL, fcntl(m.reply, F_GETFL) | O_NONBLOCK);
    SetTraceEnabled(!m.trace.empty());
    FILE* tf = nullptr;
    if (m.confine) {
        if (const char* err = Confine(m, tf)) {
            fprintf(stderr, "ascendopt-timer: sandbox: %s\n", err);
            return 2;
        }
        Probe(m);
    }
    // One run's stream, or a batch's (manifest line `batch`): one result line per case stream,
    // each replayed from a fresh state, until the runner's end or the first case whose stream is
    // not complete.
    std::unique_ptr<Reader> reader(new Reader(m.ev));
    std::vector<uint8_t> tape;
    std::string lines;
    int after = m.batch ? -1 : -2;
    for (;;) {
        reader->Tape(&tape, kTapeCap);
        std::unique_ptr<Replayer> r(new Replayer(soc, *reader, m.reply, after));
        r->auto_sync = m.auto_sync;
        std::string status, message;
        try {
            status = Replay(*r, message);
        } catch (const EndOfBatch&) {
            break;
        }
        // Launched cores that never moved GM data take no bandwidth: time the recorded stream
        // again with the bandwidth shared by the cores that did (docs/timing-model.md).
        if (status == "ok" && reader->Taped() && r->Transferring() > 0 && r->Transferring() < r->SharedBy()) {
            Reader again(&tape);
            int transferring = r->Transferring();
            r.reset();  // the first replay's models, statistics and trace go first
            r.reset(new Replayer(soc, again, -1, after, transferring));
            r->auto_sync = m.auto_sync;
            ResetTrace();
            status = Replay(*r, message);
        }
        reader->StopTape();
        g_core = nullptr;
        std::string body = "{\"status\": \"" + status + "\", \"message\": \"" + JsonEscape(message) +
                           "\", \"cores_timed\": " + std::to_string(r->Cores());
        if (m.batch) body += ", \"case\": " + std::to_string(r->case_index);
        if (status == "ok")
            body += TimingFields(r->stats, soc) + ", \"hbm_share_cores\": " + std::to_string(r->SharedBy());
        body += ", \"warnings\": " + WarningsJson() + "}\n";
        lines += body;
        WriteFile(m.result, lines);  // a batch's lines so far, whole
        if (!m.batch) {
            if (status == "ok" && !m.trace.empty()) {
                if (tf == nullptr) tf = fopen(m.trace.c_str(), "w");
                if (tf != nullptr) WriteTrace(tf, r->stats);
            }
            break;
        }
        if (status != "ok") break;
        after = r->case_index;
    }
    if (tf != nullptr) fclose(tf);
    return 0;
}
