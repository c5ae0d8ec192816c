// Runner side of the sandbox (ascendopt/backends/sim/sandbox.py, issue 18).
//
// The driver runs the runner under bubblewrap, which loads a first seccomp filter (process
// creation, sockets, ptrace, ...) just before it execs the runner. This header adds the rest
// at the first instruction of the runner that is ours: `PreInit`, a `.preinit_array` entry of
// main.o. main.o is linked before the candidate's objects, so PreInit runs before every
// `.preinit_array` / `.init_array` entry of the candidate (its static initializers and
// constructors of any priority) and before main; ifunc resolvers, which the dynamic loader
// runs even earlier, are refused at link time (sandbox.ifunc_resolvers). When the environment
// says ASCENDOPT_SANDBOX=1, PreInit
//   * applies the resource limits: RLIMIT_AS = ASCENDOPT_SANDBOX_AS bytes, no core files;
//   * opens the only files the runner may write: ASCENDOPT_SANDBOX_REPORT (the result file,
//     where a violation is reported) and ASCENDOPT_SANDBOX_WRITE (newline-separated paths);
//   * installs the SIGSYS reporter and a filter (all threads) that traps execve/execveat,
//     creat/openat2 and every open/openat asking to write, create or truncate (reads are
//     confined by the mount namespace: glibc reads /sys itself).
// It uses system calls and static buffers only (libstdc++ is not initialized yet) and exits
// with status 2 if any step fails. The SIGSYS handler writes a `sandbox_violation` result
// naming the call and its argument (path, socket family or address, clone flags) and exits
// with 5.
#pragma once

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ao::sandbox {

constexpr int kMaxFiles = 4096;
inline int g_result_fd = -1;
inline bool g_active = false;      // PreInit installed the filter
inline char g_paths[1 << 17];      // copy of ASCENDOPT_SANDBOX_WRITE, split in place
inline const char* g_file_path[kMaxFiles];
inline int g_file_fd[kMaxFiles];
inline int g_files = 0;
// Who a violation is reported of, and the result file's JSON up to the message.
inline const char* g_who = "the candidate";
inline const char* g_violation_head =
    "{\"status\": \"runtime_error\", \"error_kind\": \"sandbox_violation\", \"message\": \"";

// True when the driver asked for the sandbox (whether or not PreInit ran).
inline bool Requested() {
    const char* e = std::getenv("ASCENDOPT_SANDBOX");
    return e != nullptr && e[0] == '1';
}

// True when PreInit installed the filter: files are then written only through WriteFd.
inline bool Active() { return g_active; }

// The fd PreInit opened for `path`, or -1.
inline int WriteFd(const std::string& path) {
    for (int i = 0; i < g_files; ++i)
        if (path == g_file_path[i]) return g_file_fd[i];
    return -1;
}

// A FILE* for writing `path`: through its pre-opened fd in the sandbox (nullptr when the
// driver did not make it writable), by fopen outside.
inline FILE* Reopen(int fd, const std::string& path, const char* mode) {
    if (Active()) return fd >= 0 ? fdopen(fd, mode) : nullptr;
    return fopen(path.c_str(), mode);
}

struct Buf {
    char data[1024];
    size_t n = 0;
    void Put(const char* s) {
        for (; *s && n < sizeof data - 8; ++s) data[n++] = *s;
    }
    void PutEscaped(const char* s, size_t max) {  // a JSON string body
        for (size_t i = 0; i < max && s[i] && n < sizeof data - 16; ++i) {
            unsigned char c = static_cast<unsigned char>(s[i]);
            if (c == '"' || c == '\\') {
                data[n++] = '\\';
                data[n++] = char(c);
            } else if (c < 0x20 || c >= 0x7f) {
                data[n++] = '?';
            } else {
                data[n++] = char(c);
            }
        }
    }
    void PutHex(unsigned long v) {
        char t[24];
        int k = 0;
        do {
            t[k++] = "0123456789abcdef"[v & 15];
            v >>= 4;
        } while (v && k < 20);
        Put("0x");
        while (k) data[n++] = t[--k];
    }
    void PutDec(long v) {
        char t[24];
        int k = 0;
        bool neg = v < 0;
        unsigned long u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
        do {
            t[k++] = char('0' + u % 10);
            u /= 10;
        } while (u && k < 22);
        if (neg) data[n++] = '-';
        while (k) data[n++] = t[--k];
    }
};

// name, index of the path argument (-1: none), kind of detail
struct CallInfo {
    long nr;
    const char* name;
    int path_arg;
};

inline const CallInfo* Calls(size_t& count) {
    static const CallInfo calls[] = {
#ifdef SYS_open
        {SYS_open, "open", 0},
#endif
#ifdef SYS_creat
        {SYS_creat, "creat", 0},
#endif
        {SYS_openat, "openat", 1},
#ifdef SYS_openat2
        {SYS_openat2, "openat2", 1},
#endif
        {SYS_execve, "execve", 0},
#ifdef SYS_execveat
        {SYS_execveat, "execveat", 1},
#endif
        // directory entries (bwrap's filter): the driver reads what the runner leaves in scratch
#ifdef SYS_unlink
        {SYS_unlink, "unlink", 0},
#endif
        {SYS_unlinkat, "unlinkat", 1},
#ifdef SYS_rename
        {SYS_rename, "rename", 0},
#endif
#ifdef SYS_renameat
        {SYS_renameat, "renameat", 1},
#endif
#ifdef SYS_renameat2
        {SYS_renameat2, "renameat2", 1},
#endif
#ifdef SYS_symlink
        {SYS_symlink, "symlink", 1},
#endif
        {SYS_symlinkat, "symlinkat", 2},
#ifdef SYS_link
        {SYS_link, "link", 1},
#endif
        {SYS_linkat, "linkat", 3},
#ifdef SYS_mknod
        {SYS_mknod, "mknod", 0},
#endif
        {SYS_mknodat, "mknodat", 1},
#ifdef SYS_mkdir
        {SYS_mkdir, "mkdir", 0},
#endif
        {SYS_mkdirat, "mkdirat", 1},
#ifdef SYS_rmdir
        {SYS_rmdir, "rmdir", 0},
#endif
    };
    count = sizeof calls / sizeof calls[0];
    return calls;
}

inline const char* Name(long nr) {  // calls bwrap's filter traps, for the message
    switch (nr) {
#ifdef SYS_fork
        case SYS_fork: return "fork";
#endif
#ifdef SYS_vfork
        case SYS_vfork: return "vfork";
#endif
        case SYS_clone: return "clone";
        case SYS_socket: return "socket";
        case SYS_socketpair: return "socketpair";
        case SYS_connect: return "connect";
        case SYS_bind: return "bind";
        case SYS_listen: return "listen";
        case SYS_accept: return "accept";
        case SYS_accept4: return "accept4";
        case SYS_sendto: return "sendto";
        case SYS_sendmsg: return "sendmsg";
        case SYS_sendmmsg: return "sendmmsg";
        case SYS_ptrace: return "ptrace";
        case SYS_process_vm_readv: return "process_vm_readv";
        case SYS_process_vm_writev: return "process_vm_writev";
        case SYS_mount: return "mount";
        case SYS_unshare: return "unshare";
        case SYS_setns: return "setns";
        case SYS_bpf: return "bpf";
        case SYS_perf_event_open: return "perf_event_open";
        case SYS_memfd_create: return "memfd_create";
        case SYS_io_uring_setup: return "io_uring_setup";
        case SYS_ioctl: return "ioctl";
        default: break;
    }
    size_t n = 0;
    const CallInfo* c = Calls(n);
    for (size_t i = 0; i < n; ++i)
        if (c[i].nr == nr) return c[i].name;
    return nullptr;
}

inline unsigned long Arg(const ucontext_t* uc, int i) {
#if defined(__x86_64__)
    static const int regs[] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
    return (unsigned long)uc->uc_mcontext.gregs[regs[i]];
#elif defined(__aarch64__)
    return (unsigned long)uc->uc_mcontext.regs[i];
#else
    (void)uc;
    (void)i;
    return 0;
#endif
}

// Copies up to n bytes of the candidate's memory at src; how many could be read (0 when none).
// Through a pipe, so that a bad pointer is EFAULT rather than a crash inside the handler.
inline size_t SafeCopy(void* dst, const void* src, size_t n) {
    int p[2];
    if (src == nullptr || n == 0 || pipe2(p, O_CLOEXEC) != 0) return 0;
    size_t got = 0;
    ssize_t w = write(p[1], src, n);
    if (w > 0) {
        ssize_t r = read(p[0], dst, size_t(w));
        got = r > 0 ? size_t(r) : 0;
    }
    close(p[0]);
    close(p[1]);
    return got;
}

// "(127.0.0.1:80)", "([0:0:0:0:0:0:0:1]:80)", "(/path)", "(@abstract)" for a socket address.
inline void PutAddress(Buf& b, const void* addr, unsigned long len) {
    unsigned char sa[112];
    size_t k = SafeCopy(sa, addr, len < sizeof sa ? size_t(len) : sizeof sa);
    if (k < sizeof(sa_family_t)) return;
    sa_family_t fam;
    std::memcpy(&fam, sa, sizeof fam);
    if (fam == AF_INET && k >= 8) {
        b.Put("(");
        for (int i = 0; i < 4; ++i) {
            if (i) b.Put(".");
            b.PutDec(sa[4 + i]);
        }
        b.Put(":");
        b.PutDec((sa[2] << 8) | sa[3]);
        b.Put(")");
    } else if (fam == AF_INET6 && k >= 24) {
        b.Put("([");
        for (int i = 0; i < 8; ++i) {
            if (i) b.Put(":");
            unsigned long g = (unsigned long)((sa[8 + 2 * i] << 8) | sa[9 + 2 * i]);
            char t[8];
            int m = 0;
            do {
                t[m++] = "0123456789abcdef"[g & 15];
                g >>= 4;
            } while (g);
            while (m) {
                char c[2] = {t[--m], 0};
                b.Put(c);
            }
        }
        b.Put("]:");
        b.PutDec((sa[2] << 8) | sa[3]);
        b.Put(")");
    } else if (fam == AF_UNIX && k > 2) {
        char path[112] = {0};
        size_t n = k - 2;
        std::memcpy(path, sa + 2, n);
        b.Put("(");
        if (path[0] == 0) {
            b.Put("@");
            b.PutEscaped(path + 1, n - 1);
        } else {
            b.PutEscaped(path, n);
        }
        b.Put(")");
    }
}

inline void Say(const char* s, size_t n) {
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= size_t(w);
    }
}

inline void OnSigsys(int, siginfo_t* si, void* ctx) {
    const ucontext_t* uc = static_cast<const ucontext_t*>(ctx);
    long nr = si->si_syscall;
    const char* name = Name(nr);
    Buf b;
    b.Put(g_who);
    b.Put(" called ");
    if (name) {
        b.Put(name);
    } else {
        b.Put("system call ");
        b.PutDec(nr);
    }
    size_t n = 0;
    const CallInfo* calls = Calls(n);
    for (size_t i = 0; i < n; ++i) {
        if (calls[i].nr != nr) continue;
        char path[201];
        size_t k = SafeCopy(path, reinterpret_cast<const void*>(Arg(uc, calls[i].path_arg)), 200);
        path[k] = 0;
        b.Put("(\\\"");
        b.PutEscaped(path, k);
        b.Put("\\\")");
    }
    if (nr == SYS_socket || nr == SYS_socketpair) {
        long fam = long(Arg(uc, 0));
        b.Put(fam == 2 ? "(AF_INET)" : fam == 10 ? "(AF_INET6)" : fam == 1 ? "(AF_UNIX)" : fam == 16 ? "(AF_NETLINK)" : "");
        if (fam != 2 && fam != 10 && fam != 1 && fam != 16) {
            b.Put("(family ");
            b.PutDec(fam);
            b.Put(")");
        }
    } else if (nr == SYS_ioctl) {
        unsigned long req = Arg(uc, 1);
        b.Put(req == 0x5412 ? "(TIOCSTI: typing into a terminal)" : req == 0x541C ? "(TIOCLINUX)" : "");
    } else if (nr == SYS_connect || nr == SYS_bind) {
        PutAddress(b, reinterpret_cast<const void*>(Arg(uc, 1)), Arg(uc, 2));
    } else if (nr == SYS_sendto) {
        PutAddress(b, reinterpret_cast<const void*>(Arg(uc, 4)), Arg(uc, 5));
    } else if (nr == SYS_clone) {
        b.Put("(flags ");
        b.PutHex(Arg(uc, 0));
        b.Put(": a new process)");
    }
    b.Put(", which the sandbox forbids");
    b.data[b.n] = 0;
    const char* head = g_violation_head;
    static const char tail[] = "\"}\n";
    if (g_result_fd >= 0) {
        if (ftruncate(g_result_fd, 0) == 0) {
            ssize_t w = pwrite(g_result_fd, head, std::strlen(head), 0);
            w = w < 0 ? 0 : w;
            ssize_t w2 = pwrite(g_result_fd, b.data, b.n, w);
            w2 = w2 < 0 ? 0 : w2;
            ssize_t w3 = pwrite(g_result_fd, tail, sizeof tail - 1, w + w2);
            (void)w3;
        }
    }
    static const char pre[] = "ascendopt-sandbox: ";
    Say(pre, sizeof pre - 1);
    Say(b.data, b.n);
    Say("\n", 1);
    _exit(5);
}

// One rule of a filter: system call `nr` gets `action` (a SECCOMP_RET_* value); with `arg`
// >= 0, only when the low word of that argument has a bit of `mask` set (else the default).
struct Rule {
    long nr;
    unsigned action;
    int arg = -1;
    unsigned mask = 0;
};

// Installs the SIGSYS reporter and a filter (all threads): each call gets its first matching
// rule's action, others `dflt`; calls of another ABI (x32) trap, another architecture kills.
// nullptr on success, else what failed. The runner's filter (Install: allow but for exec
// and writing opens) and the timer's (InstallTimerFilter: allow only what it uses) are two
// rule lists of this one builder.
inline const char* InstallFilter(const Rule* rules, size_t n, unsigned dflt) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = OnSigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, nullptr) != 0) return "sigaction(SIGSYS) failed";
#if defined(__x86_64__)
    const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned arch = AUDIT_ARCH_AARCH64;
#else
    return "no seccomp filter for this architecture";
#endif
    // Layout: header (6), one JEQ per rule, RET dflt, then one block per rule (every jump
    // goes forward): RET action, or LD arg; JSET mask; RET action; RET dflt.
    static sock_filter f[256];
    size_t nc = 0;
    const size_t head = 6, blocks = head + n + 1;
    size_t need = blocks;
    for (size_t i = 0; i < n; ++i) need += rules[i].arg >= 0 ? 4 : 1;
    if (need > sizeof f / sizeof f[0]) return "seccomp filter too long";
    f[nc++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    f[nc++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0);
    f[nc++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[nc++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
    f[nc++] = BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // x32 calls
    f[nc++] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    size_t at = blocks;  // where rule i's block starts
    for (size_t i = 0; i < n; ++i) {
        size_t off = at - nc - 1;
        if (off > 255) return "seccomp filter too long";
        f[nc++] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unsigned(rules[i].nr), uint8_t(off), 0);
        at += rules[i].arg >= 0 ? 4 : 1;
    }
    f[nc++] = BPF_STMT(BPF_RET | BPF_K, dflt);
    for (size_t i = 0; i < n; ++i) {
        if (rules[i].arg >= 0) {  // the low word of args[arg] (little-endian)
            f[nc++] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                               unsigned(offsetof(seccomp_data, args) + 8 * size_t(rules[i].arg)));
            f[nc++] = BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, rules[i].mask, 0, 1);
            f[nc++] = BPF_STMT(BPF_RET | BPF_K, rules[i].action);
            f[nc++] = BPF_STMT(BPF_RET | BPF_K, dflt);
        } else {
            f[nc++] = BPF_STMT(BPF_RET | BPF_K, rules[i].action);
        }
    }
    sock_fprog prog{static_cast<unsigned short>(nc), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return "prctl(PR_SET_NO_NEW_PRIVS) failed";
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
        return "seccomp(SECCOMP_SET_MODE_FILTER) failed";
    return nullptr;
}

// The runner's filter: execve, execveat, openat2 and creat trap; open/openat trap when the
// flags ask to write, create or truncate; everything else is allowed (bwrap's filter and the
// mount namespace confine the rest).
inline const char* Install() {
    const unsigned kWrite = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    static const Rule rules[] = {
        {SYS_execve, SECCOMP_RET_TRAP},
#ifdef SYS_execveat
        {SYS_execveat, SECCOMP_RET_TRAP},
#endif
#ifdef SYS_openat2
        {SYS_openat2, SECCOMP_RET_TRAP},
#endif
#ifdef SYS_creat
        {SYS_creat, SECCOMP_RET_TRAP},
#endif
#ifdef SYS_open
        {SYS_open, SECCOMP_RET_TRAP, 1, kWrite},
#endif
        {SYS_openat, SECCOMP_RET_TRAP, 2, kWrite},
    };
    return InstallFilter(rules, sizeof rules / sizeof rules[0], SECCOMP_RET_ALLOW);
}

// The timer's filter (no bwrap around it: this is its whole confinement besides its limits):
// only calls on the fds it already holds, memory, futex, time, signal return and exit are
// allowed; everything else (open/openat, socket, fork/clone/execve, ptrace, kill, ...) traps.
// pipe2 stays: the SIGSYS reporter reads the offending call's path through a pipe.
inline const char* InstallTimerFilter() {
    static const long allowed[] = {
        SYS_read, SYS_write, SYS_pwrite64, SYS_ftruncate, SYS_lseek, SYS_close, SYS_fstat,
        SYS_mmap, SYS_munmap, SYS_mremap, SYS_brk, SYS_madvise, SYS_mprotect, SYS_futex,
        SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_clock_gettime,
        SYS_pipe2,
#ifdef SYS_restart_syscall
        SYS_restart_syscall,
#endif
    };
    static Rule rules[sizeof allowed / sizeof allowed[0]];
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; ++i) rules[i] = {allowed[i], SECCOMP_RET_ALLOW};
    g_who = "the timer";
    g_violation_head = "{\"status\": \"sandbox_violation\", \"message\": \"";
    return InstallFilter(rules, sizeof rules / sizeof rules[0], SECCOMP_RET_TRAP);
}

inline const char* EnvValue(char** envp, const char* key) {  // key includes the '='
    size_t k = std::strlen(key);
    for (char** e = envp; e != nullptr && *e != nullptr; ++e)
        if (std::strncmp(*e, key, k) == 0) return *e + k;
    return nullptr;
}

inline int OpenForWrite(const char* path) {
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// No core files; RLIMIT_AS = as_bytes and RLIMIT_CPU = cpu_s when non-zero (the hard CPU
// limit one second above the soft one: SIGXCPU, then SIGKILL). nullptr or what failed.
inline const char* SetLimits(unsigned long long as_bytes, unsigned long long cpu_s) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return "setrlimit(RLIMIT_CORE) failed";
    if (as_bytes > 0) {
        struct rlimit lim = {rlim_t(as_bytes), rlim_t(as_bytes)};
        if (setrlimit(RLIMIT_AS, &lim) != 0) return "setrlimit(RLIMIT_AS) failed";
    }
    if (cpu_s > 0) {
        struct rlimit lim = {rlim_t(cpu_s), rlim_t(cpu_s + 1)};
        if (setrlimit(RLIMIT_CPU, &lim) != 0) return "setrlimit(RLIMIT_CPU) failed";
    }
    return nullptr;
}

// Limits, writable files, filter; nullptr on success, else what failed.
inline const char* Setup(char** envp) {
    unsigned long long bytes = 0;
    if (const char* as = EnvValue(envp, "ASCENDOPT_SANDBOX_AS=")) {
        char* end = nullptr;
        bytes = std::strtoull(as, &end, 10);
        if (end == as || *end != 0) return "ASCENDOPT_SANDBOX_AS is not a number";
    }
    if (const char* err = SetLimits(bytes, 0)) return err;
    if (const char* report = EnvValue(envp, "ASCENDOPT_SANDBOX_REPORT=")) {
        if (*report) {
            g_result_fd = OpenForWrite(report);
            if (g_result_fd < 0) return "cannot open the result file (ASCENDOPT_SANDBOX_REPORT)";
            g_file_path[g_files] = report;
            g_file_fd[g_files++] = g_result_fd;
        }
    }
    if (const char* w = EnvValue(envp, "ASCENDOPT_SANDBOX_WRITE=")) {
        size_t len = std::strlen(w);
        if (len >= sizeof g_paths) return "ASCENDOPT_SANDBOX_WRITE is too long";
        std::memcpy(g_paths, w, len + 1);
        char* p = g_paths;
        while (*p) {
            char* nl = std::strchr(p, '\n');
            if (nl) *nl = 0;
            if (*p) {
                if (g_files >= kMaxFiles) return "too many writable files";
                int fd = OpenForWrite(p);
                if (fd < 0) return "cannot open a writable file (ASCENDOPT_SANDBOX_WRITE)";
                g_file_path[g_files] = p;
                g_file_fd[g_files++] = fd;
            }
            if (!nl) break;
            p = nl + 1;
        }
    }
    if (const char* err = Install()) return err;
    g_active = true;
    return nullptr;
}

// The `.preinit_array` entry (defined in main.cpp, the runner's first object).
inline void PreInit(int, char**, char** envp) {
    const char* on = EnvValue(envp, "ASCENDOPT_SANDBOX=");
    if (on == nullptr || on[0] != '1') return;
    if (const char* err = Setup(envp)) {
        static const char pre[] = "ascendopt: sandbox: ";
        Say(pre, sizeof pre - 1);
        Say(err, std::strlen(err));
        Say("\n", 1);
        _exit(2);
    }
}

// WriteResult through the pre-opened result file; false outside the sandbox.
inline bool Rewrite(const std::string& body) {
    if (g_result_fd < 0) return false;
    if (ftruncate(g_result_fd, 0) == 0) {
        ssize_t w = pwrite(g_result_fd, body.data(), body.size(), 0);
        (void)w;
    }
    return true;
}

}  // namespace ao::sandbox
