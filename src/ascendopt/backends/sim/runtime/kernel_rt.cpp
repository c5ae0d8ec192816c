// AscendOptimizer simulator: kernel-side runtime — cores, deterministic scheduling, typed
// failures, and the bridge from emulated APIs to the timing model: in the runner, the timing
// stream to the timer (stream.h); in unit tests, the in-process model. The GM registry is
// gm_alloc.cpp.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <sys/mman.h>
#include <unistd.h>

#include "ascendopt_kernel/testing.h"
#include "core_role.h"
#include "diag.h"
#include "kernel_operator.h"
#include "sim_config.h"
#include "stream.h"
#include "timing.h"

namespace ao::rt {

thread_local Core* g_core = nullptr;

// ---------------------------------------------------------------------------------- config
namespace {
SocParams g_soc;
FailHook g_fail_hook = nullptr;
L2Model g_l2;  // shared by all cores of one launch (see timing.h)
LaunchPlan g_plan;  // the cores of the current launch and their roles (core_role.h)
// "block 3" / "AIV block 3" for messages from the current core.
std::string CoreLabel() { return g_plan.Label(g_core->sim_idx); }
}  // namespace

const SocParams& Soc() { return g_soc; }
void SetSoc(const SocParams& soc) { g_soc = soc; }
void SetFailHook(FailHook hook) { g_fail_hook = hook; }

void Fail(ErrorKind kind, const char* fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[2200];
    if (g_core != nullptr) snprintf(full, sizeof full, "%s: %s", CoreLabel().c_str(), msg);
    else snprintf(full, sizeof full, "%s", msg);
    if (Stream().On()) Stream().Drain();  // the timer reports the races up to here
    if (g_fail_hook != nullptr) g_fail_hook(ErrorKindName(kind), full);
    fprintf(stderr, "ascendopt-error: %s: %s\n", ErrorKindName(kind), full);
    fflush(stderr);
    _exit(3);
}

std::string CurrentCoreLabel() { return g_core != nullptr ? CoreLabel() : std::string(); }
uint64_t WarnPosition() { return Stream().Records(); }

void Printf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (g_core != nullptr) fprintf(stderr, "[%s] ", CoreLabel().c_str());
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

uint64_t SysWorkspaceSize() { return uint64_t(g_soc.Get("lib_api_workspace_bytes", 16 * 1024 * 1024)); }

void CopyTiling(void* dst, const void* src, uint64_t bytes, uint64_t) {
    if (src == nullptr) Fail(ErrorKind::InvalidArgument, "GET_TILING_DATA: tiling pointer is null");
    CheckGm(src, bytes, "GET_TILING_DATA (kernel tiling struct larger than the tiling data the host wrote)");
    std::memcpy(dst, GmData(static_cast<const uint8_t*>(src)), bytes);
}

// ------------------------------------------------------------------------------ core memory
namespace {
struct CoreBox {
    Core core;
    uint8_t* mem[int(Space::COUNT)] = {};  // mappings of MapLocalSpace (gm_guard.cpp)
    uint64_t bytes[int(Space::COUNT)] = {};
    std::unique_ptr<TimingModel> model;
    CoreBox() = default;
    CoreBox(const CoreBox&) = delete;
    CoreBox& operator=(const CoreBox&) = delete;
    ~CoreBox() { Unmap(); }
    // The spaces' mappings go (gm_guard.cpp keeps a list of them): call it while the core still
    // has the turn, as the next core's SetupCore adds to that list.
    void Unmap() {
        UnmapLocalSpaces(this, mem, bytes, int(Space::COUNT));
        for (auto& m : mem) m = nullptr;
    }
};

uint64_t SpaceBytes(Space s) {
    switch (s) {
        case Space::UB: return uint64_t(g_soc.Get("ub_bytes", 196608));
        case Space::L1: return uint64_t(g_soc.Get("l1_bytes", 524288));
        case Space::L0A: return uint64_t(g_soc.Get("l0a_bytes", 65536));
        case Space::L0B: return uint64_t(g_soc.Get("l0b_bytes", 65536));
        case Space::L0C: return uint64_t(g_soc.Get("l0c_bytes", 131072));
        case Space::BT: return uint64_t(g_soc.Get("bt_bytes", 1024));
        case Space::FB: return uint64_t(g_soc.Get("fb_bytes", 2048));
        default: return 0;
    }
}

void SetupCore(CoreBox& box, int idx, int num, uint64_t tiling_key, uint8_t* workspace) {
    const CoreRole& role = g_plan.cores[size_t(idx)];
    box.core.sim_idx = idx;
    box.core.block_idx = role.block_idx;
    box.core.block_num = num;
    box.core.core_type = role.type;
    box.core.sub_block_idx = role.sub_idx;
    box.core.sub_block_num = role.sub_num;
    box.core.task_ratio = role.ratio;
    box.core.tiling_key = tiling_key;
    box.core.workspace = workspace;
    for (int s = 1; s < int(Space::COUNT); ++s) {
        uint64_t n = SpaceBytes(Space(s));
        // Page-aligned, as the device's spaces start at address 0: GetPhyAddr() values (host
        // addresses into the kernel's mapping of this memory) keep the alignment of the space's
        // byte addresses.
        box.bytes[s] = n + 64;
        box.mem[s] = MapLocalSpace(&box, s, box.bytes[s], &box.core.kmem[s]);
        std::memset(box.mem[s], 0x7f, box.bytes[s]);  // stale on-chip contents
        box.core.mem[s] = box.mem[s];
        box.core.cap[s] = n;
    }
    if (!Stream().On()) {  // else: the timer's
        box.model.reset(new TimingModel(g_soc, idx, int(g_plan.cores.size()), &g_l2));
        box.model->SetCubeCore(role.type == kCoreAic);
        // No driver to say how the kernel was compiled (unit harnesses): as the toolkit builds it,
        // with --cce-auto-sync (oprepo.AUTO_SYNC_DEFAULT), which inserts nothing on an AIC.
        box.model->SetAutoSync(box.core.core_type != 1);
    }
    box.core.model = box.model.get();
}

TimingModel& Model() { return *static_cast<TimingModel*>(g_core->model); }

// The later of two model times. Streaming, the runner holds the timer's ids of times, never
// times: the timer computes the maximum (stream.h).
double LaterTime(double a, double b) { return Stream().On() ? Stream().Max(a, b) : std::max(a, b); }

// Deterministic scheduler: exactly one core runs at a time; a core gives up its turn only in
// SyncAll or a cross-core flag wait. Results therefore never depend on host thread scheduling.
// Cores are the emulated cores of the launch plan (AICs and AIVs of a mixed kernel each count).
constexpr int kBarrierClasses = 3;  // SyncAll among the AICs, among the AIVs, among all (core_role.h)
struct Scheduler {
    std::mutex mu;
    std::condition_variable cv;
    int num = 0;
    int turn = 0;
    std::vector<int> state;  // 0 runnable, 1 waiting at SyncAll, 2 finished, 3 waiting on a cross-core flag
    std::vector<int> barrier_of;  // barrier class a core waits at (state 1)
    // The time a released core leaves its barrier at, set for every member when the last one
    // arrives: a released core may take its turn only after a lower core has already reached
    // the next SyncAll of the class, so it must not read the class's running maximum then.
    std::vector<double> leave_time;
    int waiting[kBarrierClasses] = {};
    double barrier_time[kBarrierClasses] = {};  // latest arrival at the class's open barrier
    uint64_t generation[kBarrierClasses] = {};
    bool active = false;
} g_sched;

void PassTurnLocked(int self) {
    // Next runnable core after `self`, in index order.
    for (int k = 1; k <= g_sched.num; ++k) {
        int c = (self + k) % g_sched.num;
        if (g_sched.state[c] == 0) {
            g_sched.turn = c;
            g_sched.cv.notify_all();
            return;
        }
    }
    g_sched.turn = -1;
    g_sched.cv.notify_all();
}

// ------------------------------------------------------------------- cross-core flags
constexpr uint32_t kCrossFlagIds = 16;  // flag ids 0..15
constexpr size_t kCrossFlagMaxSets = 16;  // unconsumed sets of one flag on one core
struct CrossFlags {
    // counter[core][id]: one entry per increment not yet consumed by a wait (the time it went up)
    std::vector<std::vector<std::deque<double>>> counter;
    // round[mode][id][core]: set times of this core not yet matched by the other participants
    std::vector<std::vector<std::deque<double>>> round[3];
    std::vector<int> waits_on;  // flag id a core waits on, -1 when none
    void Reset(int cores) {
        counter.assign(cores, std::vector<std::deque<double>>(kCrossFlagIds));
        for (auto& r : round) r.assign(kCrossFlagIds, std::vector<std::deque<double>>(cores));
        waits_on.assign(cores, -1);
    }
} g_flags;

uint64_t CrossFlagKey(uint32_t id) { return (uint64_t(4) << 40) | id; }

// What every blocked core waits for, for a deadlock message (called with g_sched.mu held).
std::string BlockedCoresLocked() {
    std::string out;
    int finished = 0;
    for (int c = 0; c < g_sched.num; ++c) {
        if (g_sched.state[c] == 2) ++finished;
        if (g_sched.state[c] != 1 && g_sched.state[c] != 3) continue;
        char buf[128];
        std::string who = g_plan.Label(c);
        if (g_sched.state[c] == 1) snprintf(buf, sizeof buf, "%s%s at SyncAll", out.empty() ? "" : ", ", who.c_str());
        else snprintf(buf, sizeof buf, "%s%s in CrossCoreWaitFlag(%d)", out.empty() ? "" : ", ", who.c_str(),
                      g_flags.waits_on[c]);
        out += buf;
    }
    char tail[96];
    snprintf(tail, sizeof tail, "; %d of %d %s finished", finished, g_sched.num,
             g_plan.kernel_type >= 0 ? "cores" : "blocks");
    return out + tail;
}

// After `self` blocked or finished: no core can run any more while some wait -> deadlock.
void CheckProgressLocked(std::unique_lock<std::mutex>& lk) {
    if (g_sched.turn != -1) return;
    bool blocked = false;
    for (int st : g_sched.state) blocked |= (st == 1 || st == 3);
    if (!blocked) return;
    std::string what = BlockedCoresLocked();
    lk.unlock();
    Fail(ErrorKind::Deadlock, "no block can make progress: %s; the device would hang", what.c_str());
}

void CrossFlagIncrementLocked(int core, uint32_t id, double when) {
    auto& q = g_flags.counter[core][id];
    if (q.size() >= kCrossFlagMaxSets)
        Fail(ErrorKind::InvalidArgument,
             "CrossCoreSetFlag: flag %u of %s set more than %zu times without a CrossCoreWaitFlag", id,
             g_plan.Label(core).c_str(), kCrossFlagMaxSets);
    q.push_back(when);
    if (g_sched.active && g_sched.state[core] == 3 && g_flags.waits_on[core] == int(id)) {
        g_sched.state[core] = 0;
        g_flags.waits_on[core] = -1;
    }
}
}  // namespace

void CrossCoreSet(int mode, Pipe pipe, uint32_t flag_id) {
    FlushRawGm();
    if (flag_id >= kCrossFlagIds)
        Fail(ErrorKind::InvalidArgument, "CrossCoreSetFlag: flag id %u outside 0..%u", flag_id, kCrossFlagIds - 1);
    double t = Stream().On() ? Stream().CrossSet(pipe, CrossFlagKey(flag_id)) : Model().CrossSet(pipe, CrossFlagKey(flag_id));
    std::unique_lock<std::mutex> lk(g_sched.mu);
    int self = g_core->sim_idx;
    std::vector<int> participants, targets;
    FlagRound(g_plan, mode, self, participants, targets);
    auto& r = g_flags.round[mode][flag_id];
    r[self].push_back(t);
    for (int c : participants)
        if (r[c].empty()) return;  // the round is not complete yet
    double release = 0;
    for (int c : participants) {
        release = LaterTime(release, r[c].front());
        r[c].pop_front();
    }
    for (int c : targets) CrossFlagIncrementLocked(c, flag_id, release);
}

void CrossCoreWait(int mode, Pipe pipe, uint32_t flag_id) {
    FlushRawGm();
    (void)mode;  // the wait only reads this core's counter
    if (flag_id >= kCrossFlagIds)
        Fail(ErrorKind::InvalidArgument, "CrossCoreWaitFlag: flag id %u outside 0..%u", flag_id, kCrossFlagIds - 1);
    std::unique_lock<std::mutex> lk(g_sched.mu);
    int self = g_core->sim_idx;
    auto& q = g_flags.counter[self][flag_id];
    if (q.empty()) {
        if (!g_sched.active) {
            lk.unlock();
            Fail(ErrorKind::Deadlock, "CrossCoreWaitFlag(%u): the flag was never set; the device would hang", flag_id);
        }
        g_sched.state[self] = 3;
        g_flags.waits_on[self] = int(flag_id);
        PassTurnLocked(self);
        CheckProgressLocked(lk);
        g_sched.cv.wait(lk, [&] { return g_sched.turn == self; });
    }
    double release = q.front();
    q.pop_front();
    lk.unlock();
    if (Stream().On()) Stream().CrossWait(pipe, CrossFlagKey(flag_id), release);
    else Model().CrossWait(pipe, CrossFlagKey(flag_id), release);
}

namespace {
// A core of barrier class `cls` finished while others of the class wait: they never meet.
void FailBarrierLocked(std::unique_lock<std::mutex>& lk, int cls) {
    int members = 0;
    for (int c = 0; c < g_sched.num; ++c) members += InBarrierClass(g_plan, c, cls);
    int waiting = g_sched.waiting[cls];
    lk.unlock();
    Fail(ErrorKind::Deadlock,
         "SyncAll: %d of %d cores wait at the barrier but some cores already finished without calling it; "
         "the device would hang",
         waiting, members);
}
}  // namespace

void SyncAllCores(bool aiv_only) {
    FlushRawGm();
    if (!g_sched.active) {  // single-core unit tests
        Model().LeaveAll(Model().ArriveAll());
        return;
    }
    std::unique_lock<std::mutex> lk(g_sched.mu);
    int self = g_core->sim_idx;
    int cls = BarrierClassOf(g_plan, self, aiv_only);
    double t = Stream().On() ? Stream().Arrive() : Model().ArriveAll();
    g_sched.barrier_time[cls] = LaterTime(g_sched.barrier_time[cls], t);
    g_sched.state[self] = 1;
    g_sched.barrier_of[self] = cls;
    g_sched.waiting[cls] += 1;
    uint64_t gen = g_sched.generation[cls];
    int members = 0;
    bool someone_finished = false;
    for (int c = 0; c < g_sched.num; ++c) {
        if (!InBarrierClass(g_plan, c, cls)) continue;
        ++members;
        someone_finished |= (g_sched.state[c] == 2);
    }
    if (g_sched.waiting[cls] == members) {
        // Everybody arrived: release the class at the latest arrival, the lowest runnable core
        // goes on, and the class's next barrier starts from no arrival (time id 0 is time 0).
        for (int c = 0; c < g_sched.num; ++c)
            if (InBarrierClass(g_plan, c, cls) && g_sched.state[c] == 1 && g_sched.barrier_of[c] == cls) {
                g_sched.state[c] = 0;
                g_sched.leave_time[c] = g_sched.barrier_time[cls];
            }
        g_sched.barrier_time[cls] = 0;
        g_sched.waiting[cls] = 0;
        g_sched.generation[cls] += 1;
        PassTurnLocked(g_sched.num - 1);
    } else {
        if (someone_finished) FailBarrierLocked(lk, cls);
        PassTurnLocked(self);
        CheckProgressLocked(lk);
    }
    g_sched.cv.wait(lk, [&] { return g_sched.generation[cls] != gen && g_sched.turn == self; });
    double bt = g_sched.leave_time[self];
    lk.unlock();
    if (Stream().On()) Stream().Leave(bt);
    else Model().LeaveAll(bt);
}

LaunchResult LaunchKernel(uint32_t block_dim, uint64_t tiling_key, void (*entry)(uint8_t** args), uint8_t** args,
                          uint8_t* workspace) {
    g_plan = PlanLaunch(block_dim, tiling_key);
    const uint32_t n = uint32_t(g_plan.cores.size());
    LaunchResult result;
    result.cores.resize(n);
    g_sched.num = int(n);
    g_sched.turn = 0;
    g_sched.state.assign(n, 0);
    g_sched.barrier_of.assign(n, -1);
    g_sched.leave_time.assign(n, 0);
    for (int c = 0; c < kBarrierClasses; ++c) {
        g_sched.waiting[c] = 0;
        g_sched.barrier_time[c] = 0;
        g_sched.generation[c] = 0;
    }
    g_sched.active = true;
    g_flags.Reset(int(n));
    g_l2.Reset(g_soc, int(n));
    if (Stream().On()) Stream().Launch(n, n);
    ArmGmGuard();
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            {
                std::unique_lock<std::mutex> lk(g_sched.mu);
                g_sched.cv.wait(lk, [&] { return g_sched.turn == int(i); });
            }
            CoreBox box;
            SetupCore(box, int(i), int(block_dim), tiling_key, workspace);
            g_core = &box.core;
            if (Stream().On()) Stream().Begin(int(i), n, CurrentCoreLabel().c_str());
            entry(args);
            FlushRawGm();
            if (Stream().On()) Stream().Mark(ts::kFinish);
            else result.cores[i] = box.model->Finish();
            std::unique_lock<std::mutex> lk(g_sched.mu);
            g_sched.state[i] = 2;
            for (int c = 0; c < kBarrierClasses; ++c)
                if (g_sched.waiting[c] > 0 && InBarrierClass(g_plan, int(i), c)) FailBarrierLocked(lk, c);
            g_core = nullptr;
            box.Unmap();
            PassTurnLocked(int(i));
            CheckProgressLocked(lk);
        });
    }
    for (auto& t : threads) t.join();
    DisarmGmGuard();
    g_sched.active = false;
    return result;
}

void RunOnOneCore(void (*fn)(void*), void* arg) {
    CoreBox box;
    g_plan = LaunchPlan{};
    g_plan.cores.assign(1, CoreRole{});
    g_l2.Reset(g_soc, 1);
    g_flags.Reset(1);
    SetupCore(box, 0, 1, 0, nullptr);
    g_core = &box.core;
    fn(arg);
    FlushRawGm();
    box.model->Finish();
    g_core = nullptr;
}

// ----------------------------------------------------------------------- hooks from headers
void Issue(Instr& ins) {
    FlushRawGm();  // the core's raw GM accesses since its last instruction come first
    if (Stream().On()) Stream().Issue(ins);
    else Model().Issue(ins);
}
void SyncSet(Pipe src, Pipe dst, uint64_t key) {
    if (Stream().On()) Stream().Sync(ts::kSyncSet, src, dst, key);
    else Model().SyncSet(src, dst, key);
}
void SyncWait(Pipe src, Pipe dst, uint64_t key) {
    if (Stream().On()) Stream().Sync(ts::kSyncWait, src, dst, key);
    else Model().SyncWait(src, dst, key);
}
void Barrier(Pipe p) {
    if (Stream().On()) Stream().Barrier(p);
    else Model().Barrier(p);
}

}  // namespace ao::rt

// ------------------------------------------------------------------- AscendC out-of-line bits
namespace AscendC {

namespace {
uint32_t g_next_queue_uid = 1;
}  // namespace

uint32_t NextQueueUid() { return g_next_queue_uid++; }
void ResetQueueUids() { g_next_queue_uid = 1; }

TPipe::TPipe() { ao::rt::Cur().tpipe = this; }
TPipe::~TPipe() {
    // Releasing the pipe's buffers ends their use: the library synchronises all pipes here.
    if (ao::rt::g_core != nullptr && ao::rt::Stream().On()) ao::rt::Stream().Mark(ao::ts::kEndOfPipe);
    else if (ao::rt::g_core != nullptr && ao::rt::g_core->model != nullptr) ao::rt::Model().EndOfPipe();
    if (ao::rt::g_core != nullptr && ao::rt::Cur().tpipe == this) ao::rt::Cur().tpipe = nullptr;
}

// The device's InitBuffer hands out the next addresses without checking them against the memory's
// size (only the CPU-debug build asserts): a buffer placed past the end is harmless until an
// instruction touches it, and then that access is the overflow (LocalTensor::CheckBytes). Kernels
// rely on this when they size temporaries for their widest dtype and never use them on the others.
uint64_t TPipe::Take(ao::rt::Space sp, uint32_t len, const char* /*what*/) {
    uint64_t off = cursor_[int(sp)];
    cursor_[int(sp)] = off + len;
    return off;
}

TPipe* GetTPipePtr() { return static_cast<TPipe*>(ao::rt::Cur().tpipe); }

// The system counter runs at 50 MHz (AscendC GetSystemCycle docs: 50 ticks per microsecond).
int64_t GetSystemCycle() {
    if (ao::rt::Stream().On()) return ao::rt::Stream().Query();  // the timer answers
    double ghz = ao::rt::Soc().Get("clock_ghz", 1.85);
    return int64_t(ao::rt::Model().Now() / (ghz * 1000.0) * 50.0);
}

}  // namespace AscendC

// ------------------------------------------------------------------------------ atomics
namespace ao::k {

namespace {
template <typename T>
void Combine(uint8_t* gm, const uint8_t* src, uint64_t bytes, int mode) {
    uint64_t n = bytes / sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, gm + i * sizeof(T), sizeof(T));
        std::memcpy(&b, src + i * sizeof(T), sizeof(T));
        T r;
        if (mode == 1) r = T(float(a) + float(b));
        else if (mode == 2) r = float(a) > float(b) ? a : b;
        else r = float(a) < float(b) ? a : b;
        std::memcpy(gm + i * sizeof(T), &r, sizeof(T));
    }
}
template <typename T>
void CombineInt(uint8_t* gm, const uint8_t* src, uint64_t bytes, int mode) {
    uint64_t n = bytes / sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, gm + i * sizeof(T), sizeof(T));
        std::memcpy(&b, src + i * sizeof(T), sizeof(T));
        T r = mode == 1 ? T(a + b) : mode == 2 ? (a > b ? a : b) : (a < b ? a : b);
        std::memcpy(gm + i * sizeof(T), &r, sizeof(T));
    }
}
}  // namespace

void AtomicStore(uint8_t* gm, const uint8_t* src, uint64_t bytes) {
    using ao::rt::DType;
    int mode = ao::rt::Cur().atomic_mode;
    switch (DType(ao::rt::Cur().atomic_dtype)) {
        case DType::F32: Combine<float>(gm, src, bytes, mode); break;
        case DType::F16: Combine<half>(gm, src, bytes, mode); break;
        case DType::BF16: Combine<bfloat16_t>(gm, src, bytes, mode); break;
        case DType::I32: CombineInt<int32_t>(gm, src, bytes, mode); break;
        case DType::I16: CombineInt<int16_t>(gm, src, bytes, mode); break;
        case DType::I8: CombineInt<int8_t>(gm, src, bytes, mode); break;
        default:
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "atomic operation on this dtype is not supported");
    }
}

}  // namespace ao::k

namespace AscendC {
void ResetQueueUids();
}  // namespace AscendC

namespace ao::rt {

void ResetCaseState() {
    FreeAllGm();
    ResetWarnings();
    AscendC::ResetQueueUids();
}

}  // namespace ao::rt
