// AscendOptimizer simulator: GM accesses outside the AscendC APIs (issue 30).
//
// The emulation defines `__gm__` as nothing, so a kernel that reads or writes GM through a raw
// pointer (`*p`, `p[i]`, memcpy on a `__gm__` pointer, a GlobalTensor's GetPhyAddr()) would get
// its data for free, and a candidate could buy speed by moving traffic off the timed APIs. On the
// device such an access is a scalar load or store through the scalar data cache: a scalar GM
// access. So every GM allocation the runner makes is mapped twice (one set of shared pages): the
// kernel gets addresses in the first mapping, which is without access while a kernel runs, and the
// APIs move data through the second (GmData, after their CheckGm). A raw access faults: the
// SIGSEGV handler records it (address, read or write from the page-fault error code), opens the
// page and single-steps the faulting instruction (x86-64 trap flag); the SIGTRAP that follows
// closes the page again. The recorded accesses are issued as scalar GM instructions of the running
// core at its next API call (FlushRawGm: never from the handler, which may not allocate), and a
// warning `raw_gm_access` names the first.
//
// What it does not see: the kernel binary's own constant `__gm__` tables (RegisterImageGm: part
// of the executable image, not guarded), and a kernel that changes the protection itself. A fault
// outside the guarded ranges keeps its old meaning: the previous handler runs (default: the
// runner dies with SIGSEGV, reported as `segfault`). Without the trap flag (other architectures)
// GM is not guarded and raw accesses stay untimed.
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "ascendopt_kernel/runtime.h"
#include "sim_config.h"

namespace ao::rt {
namespace {

#if defined(__x86_64__)
constexpr bool kCanGuard = true;
constexpr greg_t kTrapFlag = 0x100;  // EFLAGS.TF
#else
constexpr bool kCanGuard = false;
#endif
constexpr uintptr_t kPage = 4096;

struct Alias {
    uintptr_t lo = 0, hi = 0;  // an allocation's kernel mapping
    intptr_t delta = 0;        // + delta: the same byte in the APIs' mapping
};
struct Raw {
    uintptr_t addr = 0;
    bool write = false;
    int8_t space = -1;  // -1 GM; else the on-chip space whose kernel view was accessed
    uint64_t offset = 0;  // byte address in that space
};
struct LocalView {
    uintptr_t lo = 0, hi = 0;  // the kernel view's pages
    Space space = Space::UB;
    const void* owner = nullptr;  // the core state it belongs to
};

// State of the running core's thread. Cores run one at a time (the scheduler's mutex orders
// them) and the handlers run on the faulting thread, so plain globals suffice.
std::vector<Alias> g_aliases;        // every guardable allocation's two mappings
std::vector<LocalView> g_local;      // every live core's on-chip kernel views (always guarded)
bool g_handlers = false;             // the fault handlers are installed
constexpr size_t kMaxRaw = 1 << 14;  // recorded between two flushes; beyond: counted only
Raw g_raw[kMaxRaw];
size_t g_nraw = 0;
uint64_t g_raw_overflow = 0;
uintptr_t g_step[4];                 // pages the single-stepped instruction opened
int g_nstep = 0;
volatile sig_atomic_t g_armed = 0;
struct sigaction g_old_segv {}, g_old_trap {};
bool g_flushing = false;

bool Guarded(uintptr_t a) {
    for (const Alias& r : g_aliases)
        if (a >= r.lo && a < r.hi) return true;
    return false;
}

const LocalView* LocalOf(uintptr_t a) {
    for (const LocalView& v : g_local)
        if (a >= v.lo && a < v.hi) return &v;
    return nullptr;
}

void Protect(uintptr_t page, uintptr_t end, bool open) {
    mprotect(reinterpret_cast<void*>(page), end - page, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

#if defined(__x86_64__)
void OnSegv(int sig, siginfo_t* si, void* ctx) {
    auto a = reinterpret_cast<uintptr_t>(si->si_addr);
    const LocalView* local = si->si_code == SEGV_ACCERR ? LocalOf(a) : nullptr;
    if (si->si_code == SEGV_ACCERR && (local != nullptr || (g_armed && Guarded(a))) && g_nstep < 4) {
        auto* uc = static_cast<ucontext_t*>(ctx);
        bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // page-fault error code: W/R
        Raw r{a, write, -1, 0};
        if (local != nullptr) r.space = int8_t(local->space), r.offset = a - local->lo;
        if (g_nraw < kMaxRaw) g_raw[g_nraw++] = r;
        else ++g_raw_overflow;
        uintptr_t page = a & ~(kPage - 1);
        Protect(page, page + kPage, true);
        g_step[g_nstep++] = page;
        uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
        return;
    }
    // Not a guarded page: what the fault meant before (the previous handler, or death by SIGSEGV).
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    if (g_old_segv.sa_flags & SA_SIGINFO) {
        if (g_old_segv.sa_sigaction != nullptr) g_old_segv.sa_sigaction(sig, si, ctx);
    }  // SIG_DFL / a plain handler: returning re-executes the access, which faults under it
}

void OnTrap(int sig, siginfo_t* si, void* ctx) {
    auto* uc = static_cast<ucontext_t*>(ctx);
    if (g_nstep > 0) {
        for (int i = 0; i < g_nstep; ++i) Protect(g_step[i], g_step[i] + kPage, false);
        g_nstep = 0;
        uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
        return;
    }
    sigaction(SIGTRAP, &g_old_trap, nullptr);
    if ((g_old_trap.sa_flags & SA_SIGINFO) && g_old_trap.sa_sigaction != nullptr) g_old_trap.sa_sigaction(sig, si, ctx);
    else raise(SIGTRAP);
}
#endif

// One raw access as the scalar GM instruction it is on the device (`track`: with its byte for
// the race tracker).
void IssueRaw(const Raw& r, bool track) {
    Instr ins;
    ins.pipe = Pipe::S;
    ins.dtype_bytes = 1;
    ins.elems = 1;
    ins.bytes = 1;
    if (r.space < 0) {
        ins.name = r.write ? "raw GM write" : "raw GM read";
        ins.cls = OpClass::ScalarGm;
        ins.gm_addr = r.addr;
        if (track) ins.Add({Space::GM, r.addr, r.addr + 1, r.write});
    } else {  // as LocalTensor::GetValue/SetValue
        ins.name = r.write ? "raw local write" : "raw local read";
        ins.cls = OpClass::ScalarLocal;
        if (track) ins.Add({Space(r.space), r.offset, r.offset + 1, r.write});
    }
    Issue(ins);
}

void InstallHandlers() {
#if defined(__x86_64__)
    if (g_handlers) return;
    struct sigaction sa {};
    sa.sa_sigaction = OnSegv;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sa.sa_sigaction = OnTrap;
    sigaction(SIGTRAP, &sa, &g_old_trap);
    g_handlers = true;
#endif
}

void RemoveHandlers() {
#if defined(__x86_64__)
    if (!g_handlers || !g_local.empty() || g_armed) return;
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGTRAP, &g_old_trap, nullptr);
    g_handlers = false;
#endif
}

}  // namespace

void ArmGmGuard() {
    if (!kCanGuard) return;
    g_nraw = 0;
    g_raw_overflow = 0;
    g_nstep = 0;
    InstallHandlers();
    for (const Alias& r : g_aliases) Protect(r.lo, r.hi, false);
    g_armed = 1;
}

void DisarmGmGuard() {
    if (!g_armed) return;
    g_armed = 0;
    for (const Alias& r : g_aliases) Protect(r.lo, r.hi, true);
    RemoveHandlers();
}

uint8_t* MapLocalSpace(const void* owner, int space, uint64_t bytes, uint8_t** kernel_view) {
    const uint64_t len = (bytes + kPage - 1) / kPage * kPage;
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    void* k = p == MAP_FAILED ? MAP_FAILED : mremap(p, 0, len, MREMAP_MAYMOVE);
    if (p == MAP_FAILED || k == MAP_FAILED) {
        fprintf(stderr, "ascendopt: cannot map %llu bytes of on-chip memory\n", (unsigned long long)len);
        _exit(4);
    }
    if (kCanGuard) {
        mprotect(k, len, PROT_NONE);
        InstallHandlers();
    }
    auto lo = reinterpret_cast<uintptr_t>(k);
    g_local.push_back({lo, lo + len, Space(space), owner});
    *kernel_view = static_cast<uint8_t*>(k);
    return static_cast<uint8_t*>(p);
}

void UnmapLocalSpaces(const void* owner, uint8_t* const* api_views, uint64_t const* bytes, int count) {
    for (int s = 0; s < count; ++s) {
        if (api_views[s] == nullptr) continue;
        munmap(api_views[s], (bytes[s] + kPage - 1) / kPage * kPage);
    }
    for (size_t i = g_local.size(); i-- > 0;)
        if (g_local[i].owner == owner) {
            munmap(reinterpret_cast<void*>(g_local[i].lo), g_local[i].hi - g_local[i].lo);
            g_local.erase(g_local.begin() + long(i));
        }
    RemoveHandlers();
}

void AddGmAlias(const void* kernel_view, const void* api_view, uint64_t bytes) {
    auto lo = reinterpret_cast<uintptr_t>(kernel_view);
    g_aliases.push_back({lo, lo + bytes, reinterpret_cast<intptr_t>(api_view) - intptr_t(lo)});
}

void ClearGmAliases() { g_aliases.clear(); }

const uint8_t* GmAlias(const void* p) {
    auto a = reinterpret_cast<uintptr_t>(p);
    for (const Alias& r : g_aliases)
        if (a >= r.lo && a < r.hi) return reinterpret_cast<const uint8_t*>(a + r.delta);
    return static_cast<const uint8_t*>(p);
}

void FlushRawGm() {
    if (g_nraw == 0 || g_flushing || g_core == nullptr) return;
    g_flushing = true;
    size_t n = g_nraw;
    uint64_t extra = g_raw_overflow;
    g_nraw = 0;
    g_raw_overflow = 0;
    for (size_t i = 0; i < n; ++i) IssueRaw(g_raw[i], true);
    for (uint64_t i = 0; i < extra; ++i) IssueRaw(g_raw[n - 1], false);  // beyond the record: the last again
    const Raw* gm = nullptr;
    for (size_t i = 0; i < n && gm == nullptr; ++i)
        if (g_raw[i].space < 0) gm = &g_raw[i];
    g_flushing = false;
    if (gm == nullptr) return;  // on-chip memory through a pointer: a scalar access like GetValue
    const Raw& first = *gm;
    Warn(ErrorKind::RawGmAccess, first.write ? "write" : "read",
         "GM %s through a raw pointer outside the AscendC APIs (device address 0x%llx): timed as a scalar GM "
         "access (GlobalTensor::GetValue/SetValue); DataCopy moves GM in bulk",
         first.write ? "written" : "read", (unsigned long long)GmDeviceAddr(first.addr));
}

}  // namespace ao::rt
