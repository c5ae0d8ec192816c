"""Builds runner executables for the simulator backend.

One executable per (operator sources, dtype combination, toolchain): the emulation runtime
(``runtime/*.cpp``) is compiled once into a static library, and beside it the timer executable
(:mod:`~ascendopt.backends.sim.timer`: our runtime sources only, no candidate code); each host source is its own
object; the kernel is compiled through a generated wrapper (:mod:`~ascendopt.backends.sim.kernel_tu`)
that includes the tiling headers in kernel mode, renames the ``extern "C"`` entry, and adds a
launcher. Every artifact is
cached under a content hash that includes the compiler identity and flags; failed builds are
cached too.

An operator in a repository with shared code (``Operator.repo``, :mod:`ascendopt.oprepo`) is
built the way that repository's build does it: its include directories go before the
simulator's headers in host compiles (its own copies of shared headers win) and after the
operator's directories in the kernel compile, its compile definitions are set, and the shared
sources it links into the tiling library are compiled too (one cached object each, shared by
every operator that uses them). Build keys cover the external files the operator uses.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from ascendopt.backends.base import BuildResult
from ascendopt.sandbox import VIOLATION, Sandbox, annotate_compile_error, current, ifunc_resolvers
from ascendopt.host_sources import graph_level_sources
from ascendopt.operator import Operator
from ascendopt.backends.sim import host_library, host_packages, kernel_pch, kernel_tu
from ascendopt.backends.sim.build_repo import RepoBuild
from ascendopt.oprepo import OpRepo
from ascendopt.slots import ENV_VAR, SLOT_HEADER, HostSlots

from ascendopt.backends.sim.toolchain import (  # noqa: F401 (re-exported: the builder's constants)
    SIM_DIR,
    INCLUDE_DIR,
    RUNTIME_DIR,
    RUNTIME_SOURCES,
    TIMER_SOURCES,
    TIMER_RUNTIME,
    TIMER,
    RUNNER_MAIN,
    CAND_MARKS,
    KERNEL_RUNTIME_SOURCES,
    BASE_FLAGS,
    RUNTIME_FLAGS,
    USER_FLAGS,
    HOST_FLAGS,
    LINK_FLAGS,
    SLOTS_FAILED,
    BUILD_TIMEOUT_S,
    BUILD_MEMORY_BYTES,
    COMPILER_TIMEOUT,
    HOST_PCH_HEADERS,
    _hash,
    _tree_hash,
    _tree_state,
    default_cache_dir,
    _Job,
)


class SimBuilder(RepoBuild):
    """Compiles and links runner executables, with a content-addressed cache.

    Kernel compiles read a precompiled kernel_operator.h (:mod:`kernel_pch`) unless
    ``kernel_pch`` is set False (on the class or an instance).

    Args:
        cache_dir: Where objects and executables are kept.
        cxx: The C++ compiler.
        timeout_s: Wall-clock limit for one compiler invocation (killed with its children).
        memory_bytes: Address-space limit (RLIMIT_AS) of every compiler/linker process.
        host_pch: Force-include a precompiled header of the host emulation headers into host
            compiles (same flags; falls back to plain includes if it cannot be built).
        knob_slots: Share one host build across the knob values of slotted candidates
            (:mod:`ascendopt.slots`); False always compiles the literal sources.
        sandbox: The policy compiles go through (default: the one in force at each build;
            :meth:`build` may be given another).
    """

    kernel_pch = True

    def __init__(self, cache_dir: Path | None = None, cxx: str = "g++", timeout_s: float = BUILD_TIMEOUT_S,
                 memory_bytes: int = BUILD_MEMORY_BYTES, host_pch: bool = True, knob_slots: bool = True,
                 sandbox: Sandbox | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.cxx = cxx
        self.timeout_s = timeout_s
        self.memory_bytes = memory_bytes
        self.host_pch = host_pch
        self.knob_slots = knob_slots
        self.sandbox = sandbox
        self._pch: Path | None | bool = None  # None: not tried; False: unavailable
        self._toolchain: str | None = None
        self._tree: tuple | None = None
        self._runtime: Path | None = None

    # ------------------------------------------------------------------ toolchain & runtime
    @property
    def toolchain_key(self) -> str:
        """Hash of compiler identity, flags and the emulation sources.

        Re-hashed whenever an emulation source changed since the last call (a long-running
        process must not store objects built from edited headers under the old key: that
        poisoned the shared cache for every later process)."""
        state = _tree_state(INCLUDE_DIR, RUNTIME_DIR)
        if state != self._tree:
            self._toolchain, self._runtime, self._pch = None, None, None
            self._tree = state
        if self._toolchain is None:
            try:
                ver = subprocess.run([self.cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.TimeoutExpired) as e:
                raise RuntimeError(f"C++ compiler {self.cxx!r} is not usable: {e}") from e
            # The source lists too: a process started before a runtime source was added builds
            # the library from its own (older) list, which must not land under the new tree's key.
            self._toolchain = _hash(ver, " ".join(BASE_FLAGS + RUNTIME_FLAGS + USER_FLAGS + HOST_FLAGS + LINK_FLAGS),
                                    " ".join(RUNTIME_SOURCES + TIMER_SOURCES), _tree_hash(INCLUDE_DIR, RUNTIME_DIR),
                                    host_packages.describe())
        return self._toolchain

    def runtime_lib(self, sandbox: Sandbox | None = None) -> Path:
        """Builds (once) the static library holding the emulation runtime, and beside it the
        runner's main object (:meth:`runner_main`) and the timer (:meth:`timer_exe`)."""
        if self._runtime is not None:
            return self._runtime
        out_dir = self.cache_dir / "runtime" / self.toolchain_key
        lib = out_dir / "libaosim.a"
        if not lib.exists():
            tmp = Path(tempfile.mkdtemp(prefix="rt-", dir=self._mkdir(self.cache_dir / "tmp")))
            jobs = [
                _Job([self.cxx, *BASE_FLAGS, *RUNTIME_FLAGS, "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR), "-c",
                      str(RUNTIME_DIR / src), "-o", str(tmp / (src + ".o"))], tmp / (src + ".o"))
                for src in RUNTIME_SOURCES + TIMER_SOURCES
            ]
            jobs += [_Job([self.cxx, *BASE_FLAGS, *RUNTIME_FLAGS, *(["-DAO_MARK_END"] if i else []), "-c",
                           str(RUNTIME_DIR / "cand_mark.cpp"), "-o", str(tmp / mark)], tmp / mark)
                     for i, mark in enumerate(CAND_MARKS)]
            err = self._run_jobs(jobs, sandbox)
            if not err:
                objs = [str(tmp / (src + ".o")) for src in TIMER_SOURCES + TIMER_RUNTIME]
                err = self._run_jobs([_Job([self.cxx, *BASE_FLAGS, *objs, "-o", str(tmp / TIMER)], tmp / TIMER)],
                                     sandbox)
            if err:
                raise RuntimeError(f"building the simulator runtime failed:\n{err}")
            subprocess.run(["ar", "rcs", str(tmp / "libaosim.a"),
                            *[str(tmp / (src + ".o")) for src in RUNTIME_SOURCES if src != RUNNER_MAIN]], check=True)
            self._publish(tmp, out_dir)
        self._runtime = lib
        return lib

    def runner_main(self, sandbox: Sandbox | None = None) -> Path:
        """The runner's main object (built with :meth:`runtime_lib`)."""
        return self.runtime_lib(sandbox).with_name(RUNNER_MAIN + ".o")

    def timer_exe(self, sandbox: Sandbox | None = None) -> Path:
        """The timer executable (built with :meth:`runtime_lib`)."""
        return self.runtime_lib(sandbox).with_name(TIMER)

    # ------------------------------------------------------------------------ operator build
    def build(self, op: Operator, dtypes: dict[str, str], sandbox: Sandbox | None = None) -> BuildResult:
        """Builds the runner for `op` with `dtypes` (tensor name -> msopst dtype name), compiling
        under `sandbox` (default: the builder's policy, else the one in force).

        A candidate carrying knob slots (:mod:`ascendopt.slots`) that render to exactly its
        host files shares one host build with every other value of those knobs; the runner
        then receives the values through :attr:`BuildResult.run_env`. If the parameterized
        source does not compile, the literal sources are built instead (and that is
        remembered).
        """
        t0 = time.perf_counter()
        policy = sandbox or self.sandbox or current()
        self.runtime_lib(policy)
        slots = op.slots if self.knob_slots else None
        if slots is not None and slots.matches({k: op.files[k] for k in op.host_files()}):
            res = self._build(op, dtypes, slots, t0, policy)
            if res is not None:
                return res
        res = self._build(op, dtypes, None, t0, policy)
        assert res is not None
        return res

    def _build(self, op: Operator, dtypes: dict[str, str], slots: HostSlots | None, t0: float,
               policy: Sandbox) -> BuildResult | None:
        """One build; with `slots`, None when the parameterized host source fails to compile."""
        pch = self.host_prelude(policy)
        host_files = dict(slots.files) if slots else {k: op.files[k] for k in op.host_files()}
        ext = ("external=" + op.external_fingerprint,) if op.external_fingerprint else ()
        built = ",".join(k for k in sorted(host_files) if self._built_by_repo(op, k))
        host_key = _hash(self.toolchain_key, "host", f"pch={bool(pch)}", "slots" if slots else "", *ext, built,
                         *(k + "\0" + host_files[k] for k in sorted(host_files)))
        if op.repo is not None and op.repo.host_own_groups:  # linked as separate libraries (host_targets)
            host_key = _hash(host_key, "libraries", *(",".join(g) for g in op.repo.host_own_groups))
        outside = self._outside_include_flags(op)
        if outside:  # only then: the keys of operators without such includes stay as they were
            ext += (" ".join(outside),)
            host_key = _hash(host_key, *ext)
        kernel_defines = kernel_tu.kernel_defines(op, dtypes)
        # --cce-auto-sync changes what the device compiler emits (the synchronisation it inserts);
        # the simulator applies it when timing the run (TimerRun), and keys the kernel by it so
        # that an operator whose option changed is never taken for the one built before.
        auto_sync = ("cce-auto-sync",) if op.auto_sync else ()
        kernel_key = _hash(self.toolchain_key, "kernel", " ".join(kernel_defines), *ext, *auto_sync,
                           " ".join(kernel_tu.kernel_repo_flags(op)), kernel_tu.wrapper(op, Path("/")),
                           *(k + "\0" + op.files[k] for k in sorted(kernel_tu.kernel_inputs(op))))
        exe_key = _hash(host_key, kernel_key)
        if op.repo is not None and op.repo.host_library_kept:  # linked whole (host_library.link_keeping)
            exe_key = _hash(exe_key, "library-kept")
        exe_dir = self.cache_dir / "bin" / exe_key
        host_dir = self.cache_dir / "host" / host_key
        env = ((ENV_VAR, slots.env_value()),) if slots else ()
        if slots and (host_dir / SLOTS_FAILED).exists():
            return None
        if (exe_dir / "runner").exists():
            return BuildResult(exe_dir / "runner", key=exe_key, cached=True, run_env=env)
        if (exe_dir / "error.txt").exists():
            return BuildResult(None, error=(exe_dir / "error.txt").read_text(), key=exe_key, cached=True)

        src_dir = self._materialize(op)
        kern_dir = self.cache_dir / "kernel" / kernel_key
        host_jobs: list[_Job] = []
        kern_jobs: list[_Job] = []
        host_tmp = kern_tmp = None
        host_objs: dict[str, Path] = {}  # op_host source -> its object
        if not (host_dir / "ok").exists():
            host_tmp = Path(tempfile.mkdtemp(prefix="host-", dir=self._mkdir(self.cache_dir / "tmp")))
            host_src = self._materialize(Operator.from_files(op.name, {**op.files, **host_files})) if slots else src_dir
            graph = graph_level_sources(host_files)  # aclnn / level-0 sources: not tiling code
            for i, rel in enumerate(k for k in sorted(host_files) if k.endswith((".cpp", ".cc", ".cxx"))
                                    and k not in graph and self._built_by_repo(op, k)):
                out = host_tmp / f"h{i}.o"
                host_objs[rel] = out
                extra = (["-include", SLOT_HEADER] if slots else []) + outside
                host_jobs.append(_Job(self.host_compile_cmd(host_src / rel, out, extra, op.repo), out))
        shared, pending = self._shared_objects(op)
        shared_jobs = [j for j, _ in pending]
        library, lib_pending = self._library_objects(op)
        if not (kern_dir / "ok").exists():
            kern_tmp = Path(tempfile.mkdtemp(prefix="kern-", dir=self._mkdir(self.cache_dir / "tmp")))
            wrapper = kern_tmp / "kernel_wrapper.cpp"
            wrapper.write_text(kernel_tu.wrapper(op, src_dir))
            out = kern_tmp / "kernel.o"
            rest = ["-I", str(src_dir / "op_kernel"), "-I", str(src_dir / "op_host"),
                    *kernel_tu.kernel_repo_flags(op), *outside, *kernel_defines]
            kern_jobs.append(_Job([self.cxx, *BASE_FLAGS, *USER_FLAGS, *self._kernel_pch(policy, rest),
                                   "-I", str(INCLUDE_DIR), *rest, "-c", str(wrapper), "-o", str(out)], out))
        errs = self._run_each(host_jobs + shared_jobs + [j for j, _ in lib_pending] + kern_jobs, policy)
        n_host = len(host_jobs) + len(shared_jobs)
        for (job, obj), e in zip(lib_pending, errs[n_host:n_host + len(lib_pending)]):
            obj.last_error = e  # a library source that does not compile is left out (host_library)
            host_library.record(obj, job.out.parent, e, self._publish, cacheable=COMPILER_TIMEOUT not in e)
        del errs[n_host:n_host + len(lib_pending)]
        for (job, dest), e in zip(pending, errs[len(host_jobs):n_host]):
            if not e:  # a shared object is published as soon as it built (other operators use it)
                (job.out.parent / "ok").write_text("")
                self._publish(job.out.parent, dest)
        host_err = "\n".join(e for e in errs[:n_host] if e)
        kern_err = "\n".join(e for e in errs[n_host:] if e)
        if kern_tmp and not kern_err:
            (kern_tmp / "ok").write_text("")
            self._publish(kern_tmp, kern_dir)
            kern_tmp = None
        if slots and host_err and COMPILER_TIMEOUT not in host_err:
            assert host_tmp is not None
            for f in host_tmp.iterdir():
                f.unlink()
            (host_tmp / SLOTS_FAILED).write_text(host_err[-4000:])
            self._publish(host_tmp, host_dir)
            return None
        err = "\n".join(e for e in (host_err, kern_err) if e)
        if not err and host_tmp and op.repo is not None and op.repo.host_own_groups:
            err = self._separate_libraries(op.repo.host_own_groups, host_objs, [d / "shared.o" for d in shared],
                                           host_tmp)
        if err:
            timed_out = COMPILER_TIMEOUT in err
            err = self._clean_error(err, src_dir, op)
            if not timed_out:  # a timeout may be load-dependent: never cache it
                self._store_error(exe_dir, err)
            for d in (host_tmp, kern_tmp, *(j.out.parent for j in shared_jobs)):
                if d:
                    shutil.rmtree(d, ignore_errors=True)
            return BuildResult(None, error=err, key=exe_key, seconds=time.perf_counter() - t0, timed_out=timed_out)
        if host_tmp:
            (host_tmp / "ok").write_text("")
            self._publish(host_tmp, host_dir)
        link_tmp = Path(tempfile.mkdtemp(prefix="link-", dir=self._mkdir(self.cache_dir / "tmp")))
        objs = (sorted(str(p) for p in host_dir.glob("h*.o")) + [str(d / "shared.o") for d in shared]
                + [str(kern_dir / "kernel.o")])
        lib_a, err = host_library.archive(self.cache_dir, library, self._publish, self._mkdir)
        tail = [str(lib_a)] if lib_a else []  # after every object that may reference it
        begin, end = (str(self.runner_main(policy).with_name(m)) for m in CAND_MARKS)

        def link(kept: list[Path]) -> str:
            def run(flags: tuple[str, ...]) -> str:
                return self._run_jobs([_Job([self.cxx, *BASE_FLAGS, *flags, str(self.runner_main(policy)), begin,
                                             *objs, *map(str, kept), *tail, end, str(self.runtime_lib(policy)),
                                             "-o", str(link_tmp / "runner")], link_tmp / "runner")], policy)

            # A failed fast link is redone with the default linker: its messages are the ones
            # reported (and read by link_keeping), whichever linker is installed.
            return (run(LINK_FLAGS) and run(())) if LINK_FLAGS else run(())

        kept = host_library.kept_objects(library, op.repo.host_library_kept) if op.repo is not None else []
        err = err or host_library.link_keeping(link, kept)
        if not err:
            err = self._early_code(link_tmp / "runner")
        err = host_library.explain_link_error(err, library) if err else err
        if err:
            timed_out = COMPILER_TIMEOUT in err
            err = self._clean_error(err, src_dir, op)
            if not timed_out:
                self._store_error(exe_dir, err)
            shutil.rmtree(link_tmp, ignore_errors=True)
            return BuildResult(None, error=err, key=exe_key, seconds=time.perf_counter() - t0, timed_out=timed_out)
        self._publish(link_tmp, exe_dir)
        return BuildResult(exe_dir / "runner", key=exe_key, seconds=time.perf_counter() - t0, run_env=env)

    # ------------------------------------------------------------------- host precompiled header
    def host_prelude(self, sandbox: Sandbox | None = None) -> Path | None:
        """The force-included host prelude header (its ``.gch`` beside it), built once per
        toolchain key; None when disabled or when it could not be built."""
        if not self.host_pch:
            return None
        if self._pch is None:
            out_dir = self.cache_dir / "pch" / self.toolchain_key
            header = out_dir / "host_prelude.h"
            if not (out_dir / "ok").exists() and not (out_dir / "failed").exists():
                tmp = Path(tempfile.mkdtemp(prefix="pch-", dir=self._mkdir(self.cache_dir / "tmp")))
                (tmp / "host_prelude.h").write_text(
                    "// generated by ascendopt: host emulation headers, precompiled\n"
                    + "".join(f'#include "{h}"\n' for h in HOST_PCH_HEADERS))
                err = self._run_jobs([_Job([self.cxx, *BASE_FLAGS, *HOST_FLAGS, "-I", str(INCLUDE_DIR),
                                            *host_packages.include_flags(), "-x", "c++-header", str(tmp / "host_prelude.h"),
                                            "-o", str(tmp / "host_prelude.h.gch")], tmp / "host_prelude.h.gch")],
                                     sandbox)
                (tmp / ("failed" if err else "ok")).write_text(err)
                self._publish(tmp, out_dir)
            self._pch = header if (out_dir / "ok").exists() else False
        return self._pch or None

    def host_compile_cmd(self, src: Path, out: Path, extra: list[str] | tuple[str, ...] = (),
                         repo: OpRepo | None = None) -> list[str]:
        """The compiler command for one op_host source (identical flags to the PCH's). With
        the operator's `repo`, its include directories come first (its own copies of shared
        headers win over the simulator's, as they do over the toolkit's in the real build)
        and its compile definitions are set."""
        pch = self.host_prelude()
        inc: list[str] = []
        if repo is not None:
            for d in repo.host_include_dirs:
                inc += ["-I", str(d)]
            inc += [f"-D{x}" for x in repo.host_defines]
        return [self.cxx, *BASE_FLAGS, *HOST_FLAGS, *inc, "-I", str(INCLUDE_DIR),
                *host_packages.include_flags(), "-I", str(src.parent),
                *(["-include", str(pch)] if pch else []), *extra, "-c", str(src), "-o", str(out)]

    # ------------------------------------------------------------------------------ helpers
    def _kernel_pch(self, policy: Sandbox, rest: list[str]) -> list[str]:
        """The include option of the precompiled kernel_operator.h (:mod:`kernel_pch`) for a kernel
        compile with the options ``rest``; [] when it is off, unavailable or could be shadowed."""
        if not self.kernel_pch:
            return []
        flags = [*BASE_FLAGS, *USER_FLAGS, "-DASCENDOPT_KERNEL_SIDE=1", *(f"-D{k}={v}" for k, v in kernel_tu.GE_MACROS.items())]
        return kernel_pch.pch_flags(kernel_pch.prelude_dir(self, policy, flags, INCLUDE_DIR), rest, INCLUDE_DIR)

    def _materialize(self, op: Operator) -> Path:
        d = self.cache_dir / "src" / op.digest[:24]
        if not (d / ".ok").exists():
            tmp = Path(tempfile.mkdtemp(prefix="src-", dir=self._mkdir(self.cache_dir / "tmp")))
            for rel, text in op.files.items():
                p = tmp / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            (tmp / ".ok").write_text("")
            self._publish(tmp, d)
        return d

    @staticmethod
    def _early_code(runner: Path) -> str:
        """A violation when the linked runner holds code that would run before the sandbox's
        filter (ifunc resolvers: :func:`~ascendopt.sandbox.ifunc_resolvers`), else "".
        Checked whatever the policy: the cache is shared between policies."""
        try:
            found = ifunc_resolvers(runner)
        except (OSError, ValueError, IndexError) as e:  # struct.error is a ValueError
            return f"cannot read the linked runner {runner.name}: {e}"
        if not found:
            return ""
        return (f"{VIOLATION}: the candidate defines ifunc resolver(s) {', '.join(sorted(set(found)))}: code the "
                f"dynamic loader would run before the sandbox's filter (ifuncs are not allowed)")

    def _run_jobs(self, jobs: list[_Job], sandbox: Sandbox | None = None) -> str:
        """Runs compiler jobs concurrently; their errors joined ("" when all succeeded)."""
        return "\n".join(e for e in self._run_each(jobs, sandbox) if e)

    def _run_each(self, jobs: list[_Job], sandbox: Sandbox | None = None) -> list[str]:
        """Runs compiler jobs concurrently, each in its own process group under RLIMIT_AS; at
        the deadline the whole group (driver, cc1plus, as, ld) is killed. One error text per
        job ("" on success)."""
        policy = sandbox or self.sandbox or current()
        procs = []
        for j in jobs:
            argv, preexec = policy.compile_argv(j.cmd, self.memory_bytes)
            procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                          errors="replace", start_new_session=True, preexec_fn=preexec))
        errors = []
        deadline = time.monotonic() + self.timeout_s
        for p in procs:
            try:
                out, _ = p.communicate(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.communicate()
                errors.append(f"{COMPILER_TIMEOUT} after {self.timeout_s:g} s (killed)")
                continue
            errors.append("" if p.returncode == 0 else (out.strip() or f"compiler exited with {p.returncode}"))
        return errors

    @staticmethod
    def _clean_error(err: str, src_dir: Path, op: Operator) -> str:
        err = err.replace(str(src_dir) + "/", str(op.root) + "/")
        keep = [ln for ln in err.splitlines() if "kernel_wrapper.cpp" not in ln or "error" in ln]
        text = "\n".join(keep)
        if len(text) > 20000:  # the first errors say what is wrong; the last ones how it ended
            text = f"{text[:16000]}\n[... {len(text) - 20000} characters cut ...]\n{text[-4000:]}"
        return annotate_compile_error(text)

    def _store_error(self, exe_dir: Path, err: str) -> None:
        tmp = Path(tempfile.mkdtemp(prefix="err-", dir=self._mkdir(self.cache_dir / "tmp")))
        (tmp / "error.txt").write_text(err)
        self._publish(tmp, exe_dir)

    @staticmethod
    def _mkdir(p: Path) -> Path:
        p.mkdir(parents=True, exist_ok=True)
        return p

    @staticmethod
    def _publish(tmp: Path, final: Path) -> None:
        """Atomically moves a finished temp dir into place (another process may have won)."""
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(tmp, final)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
