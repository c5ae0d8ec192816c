// Runner side of the sandbox (ascendopt/backends/sim/sandbox.py, issue 18).
//
// When the driver runs the runner in the sandbox (environment ASCENDOPT_SANDBOX=1), main()
// opens every file it will write (result, outputs, trace), then, before any candidate code it
// calls (host tiling, kernel), installs a seccomp filter that traps execve/execveat and every
// open for writing (bwrap's filter already traps process creation, sockets, ptrace, ...). The SIGSYS
// handler writes a `sandbox_violation` result naming the call and its argument (path, socket
// family, clone flags) to the pre-opened result file and exits.
#pragma once

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ao::sandbox {

inline int g_result_fd = -1;

inline bool Enabled() {
    const char* e = std::getenv("ASCENDOPT_SANDBOX");
    return e != nullptr && e[0] == '1';
}

// An fd opened for writing before the filter, or -1 (outside the sandbox: callers fopen).
inline int OpenForWrite(const std::string& path) {
    if (!Enabled() || path.empty()) return -1;
    return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

inline FILE* Reopen(int fd, const std::string& path, const char* mode) {
    return fd >= 0 ? fdopen(fd, mode) : fopen(path.c_str(), mode);
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
        case SYS_ptrace: return "ptrace";
        case SYS_process_vm_readv: return "process_vm_readv";
        case SYS_process_vm_writev: return "process_vm_writev";
        case SYS_mount: return "mount";
        case SYS_unshare: return "unshare";
        case SYS_setns: return "setns";
        case SYS_bpf: return "bpf";
        case SYS_perf_event_open: return "perf_event_open";
        case SYS_memfd_create: return "memfd_create";
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

inline void OnSigsys(int, siginfo_t* si, void* ctx) {
    const ucontext_t* uc = static_cast<const ucontext_t*>(ctx);
    long nr = si->si_syscall;
    const char* name = Name(nr);
    Buf b;
    b.Put("the candidate called ");
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
        const char* p = reinterpret_cast<const char*>(Arg(uc, calls[i].path_arg));
        b.Put("(\\\"");
        if (p) b.PutEscaped(p, 200);
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
    } else if (nr == SYS_clone) {
        b.Put("(flags ");
        b.PutHex(Arg(uc, 0));
        b.Put(": a new process)");
    }
    b.Put(", which the sandbox forbids");
    b.data[b.n] = 0;
    static const char head[] = "{\"status\": \"runtime_error\", \"error_kind\": \"sandbox_violation\", \"message\": \"";
    static const char tail[] = "\"}\n";
    if (g_result_fd >= 0) {
        if (ftruncate(g_result_fd, 0) == 0) {
            ssize_t w = pwrite(g_result_fd, head, sizeof head - 1, 0);
            w = w < 0 ? 0 : w;
            ssize_t w2 = pwrite(g_result_fd, b.data, b.n, w);
            w2 = w2 < 0 ? 0 : w2;
            ssize_t w3 = pwrite(g_result_fd, tail, sizeof tail - 1, w + w2);
            (void)w3;
        }
    }
    static const char pre[] = "ascendopt-sandbox: ";
    ssize_t r = write(2, pre, sizeof pre - 1);
    r = write(2, b.data, b.n);
    r = write(2, "\n", 1);
    (void)r;
    _exit(5);
}

// Installs the SIGSYS reporter and the exec/open filter (all threads). False on failure.
inline bool Install(int result_fd, std::string& err) {
    g_result_fd = result_fd;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = OnSigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, nullptr) != 0) {
        err = "sigaction(SIGSYS) failed";
        return false;
    }
#if defined(__x86_64__)
    const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned arch = AUDIT_ARCH_AARCH64;
#else
    err = "no seccomp filter for this architecture";
    return false;
#endif
    // Traps: execve, execveat, openat2 and creat always; open/openat when the flags ask to
    // write, create or truncate (reads are confined by the mount namespace: glibc itself reads
    // /sys files, e.g. malloc counting CPUs when threads start).
    const unsigned kWrite = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    enum Label { kAllow = -1, kTrap = -2, kOpen = -3, kOpenat = -4 };
    struct Ins {
        sock_filter f;
        int jt, jf;  // labels (< 0) or 0 = next
    };
    std::vector<Ins> code;
    auto stmt = [&](sock_filter x) { code.push_back({x, 0, 0}); };
    auto jump = [&](unsigned short op, unsigned k, int jt, int jf) {
        code.push_back({BPF_JUMP(op, k, 0, 0), jt, jf});
    };
    stmt(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    jump(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, -5);  // -5: kill
    stmt(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, kTrap, 0);  // x32 calls
    long always[] = {SYS_execve,
#ifdef SYS_execveat
                     SYS_execveat,
#endif
#ifdef SYS_openat2
                     SYS_openat2,
#endif
#ifdef SYS_creat
                     SYS_creat,
#endif
    };
    for (long nr : always) jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(nr), kTrap, 0);
#ifdef SYS_open
    jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(SYS_open), kOpen, 0);
#endif
    jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(SYS_openat), kOpenat, 0);
    stmt(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    size_t at_open = code.size();  // flags: low word of args[1] (little-endian)
    stmt(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])));
    jump(BPF_JMP | BPF_JSET | BPF_K, kWrite, kTrap, kAllow);
    size_t at_openat = code.size();  // flags: args[2]
    stmt(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[2])));
    jump(BPF_JMP | BPF_JSET | BPF_K, kWrite, kTrap, kAllow);
    size_t at_allow = code.size();  // every jump goes forward
    stmt(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    size_t at_trap = code.size();
    stmt(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    size_t at_kill = code.size();
    stmt(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    auto target = [&](int label) -> size_t {
        return label == kAllow ? at_allow : label == kTrap ? at_trap : label == kOpen ? at_open
                                          : label == kOpenat ? at_openat : at_kill;
    };
    std::vector<sock_filter> f;
    for (size_t i = 0; i < code.size(); ++i) {
        sock_filter x = code[i].f;
        if (code[i].jt < 0) x.jt = uint8_t(target(code[i].jt) - i - 1);
        if (code[i].jf < 0) x.jf = uint8_t(target(code[i].jf) - i - 1);
        f.push_back(x);
    }
    sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        err = "prctl(PR_SET_NO_NEW_PRIVS) failed";
        return false;
    }
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        err = std::string("seccomp(SECCOMP_SET_MODE_FILTER) failed: ") + std::strerror(errno);
        return false;
    }
    return true;
}

}  // namespace ao::sandbox

namespace ao::sandbox {

// main()'s one call, after it read its inputs: in the sandbox, opens the result, output and
// trace files and installs the filter; their fds go to `out_fds` / `trace_fd` (-1 outside).
inline bool Begin(const std::string& result_path, const std::vector<std::string>& output_paths,
                  const std::string& trace_path, std::vector<int>& out_fds, int& trace_fd, std::string& err) {
    out_fds.assign(output_paths.size(), -1);
    trace_fd = -1;
    if (!Enabled()) return true;
    for (size_t i = 0; i < output_paths.size(); ++i) out_fds[i] = OpenForWrite(output_paths[i]);
    trace_fd = OpenForWrite(trace_path);
    int rfd = OpenForWrite(result_path);
    if (rfd < 0) {
        err = "cannot open " + result_path;
        return false;
    }
    return Install(rfd, err);
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
