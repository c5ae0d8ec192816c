"""The simulator backend: build with g++ against the emulation, run in a child process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ascendopt.backends.base import Backend, BuildResult, Launch, RunResult, Status
from ascendopt.backends.sim import batch
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.backends.sim.confine import Confinement
from ascendopt.backends.sim.scratch import RESULT_MAX_BYTES, read_scratch, tail
from ascendopt.sandbox import VIOLATION, VIOLATION_STDERR, Sandbox, current
from ascendopt.sandbox.cputime import RunDeadline
from ascendopt.hw.soc import DEFAULT_SOC, Soc, load_soc
from ascendopt.backends.sim.timer import FINISH_GRACE_S, TIMING_KEYS, Timing, TimerOptions, TimerRun
from ascendopt.cases import Case, group_params
from ascendopt.operator import Operator
from ascendopt.runner_manifest import manifest_tail, tensor_line

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_BYTES = 8 << 30
#: Cases one runner process takes at most in :meth:`SimBackend.run_batch`.
BATCH_CASES = 64

_SIGNALS = {signal.SIGSEGV: "segfault", signal.SIGBUS: "bus_error", signal.SIGFPE: "arithmetic_exception",
            signal.SIGABRT: "abort", signal.SIGILL: "illegal_instruction", signal.SIGKILL: "killed",
            signal.SIGSYS: "sandbox_violation"}


class SimBackend(Backend):
    """Builds operators with :class:`SimBuilder` and runs cases on emulated AI cores.

    Args:
        soc: SoC name (``socs/<name>.toml``).
        builder: Shared builder (its cache); a default one is made if omitted.
        memory_bytes: Address-space limit of each runner process.
        noise_pct: Standard deviation (percent) of seeded multiplicative noise added to the
            modeled task duration, to exercise noise handling; 0 keeps the model exact.
        noise_seed: Seed of the noise generator (each backend owns its generator).
        sandbox: The policy its compiles and runs go through (default: the one in force when
            the backend is made, :func:`~ascendopt.sandbox.configure`). It is part
            of the backend, so worker processes it is shipped to use the same policy.
    """

    name = "sim"
    supports_tiling = True

    def __init__(self, soc: str = DEFAULT_SOC, builder: SimBuilder | None = None,
                 memory_bytes: int = DEFAULT_MEMORY_BYTES, noise_pct: float = 0.0, noise_seed: int = 0,
                 sandbox: Sandbox | None = None):
        if noise_pct < 0:
            raise ValueError("noise_pct must be >= 0")
        self.soc: Soc = load_soc(soc)
        self.noise_pct = noise_pct
        self._noise = np.random.default_rng(noise_seed)
        self.sandbox = sandbox if sandbox is not None else current()
        self.builder = builder or SimBuilder(sandbox=self.sandbox)
        self.memory_bytes = memory_bytes
        self._signatures: dict[Path, dict[str, Any]] = {}

    @property
    def toolchain_key(self) -> str:
        return self.builder.toolchain_key

    def build(self, op: Operator, dtypes: dict[str, str]) -> BuildResult:
        return self.builder.build(op, dtypes, sandbox=self.sandbox)

    def signature(self, build: BuildResult) -> dict[str, Any]:
        """The OpDef registered in a built runner (inputs, outputs, attrs, kernel arity)."""
        assert build.artifact is not None
        if build.artifact not in self._signatures:
            cache = build.artifact.with_name("signature.json")
            sig = None
            if cache.exists():
                try:
                    sig = json.loads(cache.read_text())
                except (OSError, json.JSONDecodeError):
                    sig = None
            if sig is None:
                sig = self._read_signature(build.artifact)
                if "error" not in sig:  # atomically: other threads/processes read it concurrently
                    tmp = cache.with_name(f".signature.{os.getpid()}.{threading.get_ident()}.tmp")
                    tmp.write_text(json.dumps(sig))
                    os.replace(tmp, cache)
            self._signatures[build.artifact] = sig
        return self._signatures[build.artifact]

    def _read_signature(self, artifact: Path) -> dict[str, Any]:
        """Runs ``runner --signature`` (the candidate's static initializers run here first:
        a violation in one is reported as such, with ``"violation": True``)."""
        with self.sandbox.run_command([str(artifact), "--signature"], self.memory_bytes, None) as cmd:
            try:
                out = subprocess.run(cmd.argv, capture_output=True, text=True, errors="replace", timeout=30,
                                     stdin=subprocess.DEVNULL, preexec_fn=cmd.preexec, pass_fds=cmd.pass_fds,
                                     process_group=0)
            except subprocess.TimeoutExpired:  # e.g. a looping static initializer
                return {"error": "the runner did not report its signature within 30 s", "timeout": True}
        code = self.sandbox.exit_status(out.returncode)
        said = [_unescape(ln[len(VIOLATION_STDERR):]) for ln in out.stderr.splitlines()
                if ln.startswith(VIOLATION_STDERR)]
        if said or code == -signal.SIGSYS:
            return {"error": said[-1] if said else "the runner was killed by SIGSYS (a system call the sandbox "
                                                   "forbids) before it reported its signature", "violation": True}
        if code != 0 or not out.stdout.strip():
            return {"error": out.stderr.strip()[-4000:] or f"runner exited with {code}"}
        try:
            return json.loads(out.stdout)
        except json.JSONDecodeError:
            return {"error": "the runner printed an unreadable signature"}

    def run(self, build: BuildResult, op: Operator, case: Case, inputs: dict[str, np.ndarray],
            timeout_s: float = DEFAULT_TIMEOUT_S, trace_path: str | Path | None = None) -> RunResult:
        """Runs one case; outputs come back by tensor key (the name; ``name[i]`` for the
        tensors of a list). Never raises for a bad candidate.

        The runner (candidate code) streams its timing events to a timer process
        (:mod:`~ascendopt.backends.sim.timer`): cycles, statistics, races and the trace come
        only from the timer. With ``trace_path`` the timer writes the instruction /
        synchronisation trace CSV, which is kept at ``trace_path`` and named in
        ``profile["trace_path"]``.
        """
        t0 = time.perf_counter()
        sig = self.signature(build)
        if "error" in sig:
            return _signature_failure(sig, time.perf_counter() - t0)
        work = Path(tempfile.mkdtemp(prefix="aorun-"))
        try:
            with TimerRun(self.builder.timer_exe(self.sandbox), self.soc, self.sandbox, self.memory_bytes,
                          TimerOptions(trace=trace_path is not None, cpu_s=timeout_s + FINISH_GRACE_S,
                                       auto_sync=op.auto_sync)) as timer:
                try:
                    proc = self._invoke(build, sig, case, inputs, work, timeout_s, [], timer)
                except subprocess.TimeoutExpired:
                    return RunResult(Status.TIMEOUT, "timeout",
                                     f"the run did not finish within {timeout_s:g} s (kernel loop or hang?)",
                                     seconds=time.perf_counter() - t0)
                timing = timer.finish()
                result = self._collect(work, proc, case, time.perf_counter() - t0, timing)
                if trace_path is not None and result.status == Status.OK and timer.trace_path is not None \
                        and timer.trace_path.exists():
                    Path(trace_path).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(timer.trace_path, trace_path)
                    result.profile["trace_path"] = str(trace_path)
            return result
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def run_batch(self, build: BuildResult, op: Operator, items: Sequence[tuple[Case, dict[str, np.ndarray]]],
                  timeout_s: float = DEFAULT_TIMEOUT_S, stop_at_failure: bool = False) -> list[RunResult]:
        """Runs several cases of one build in one runner process timed by one timer process
        (``runner --batch``), instead of a runner and a timer per case: the results :meth:`run`
        gives for each, in order (each case starts from a fresh runtime state and its own GM;
        ``runtime/main.cpp``). A case that fails (a typed error, a crash, a timeout: the
        timeout and the memory limit apply to each case) is reported for that case, and a case
        after it runs in a fresh runner, as does a case after one that left state behind
        in the candidate's globals; with ``stop_at_failure`` none does (the results end with the
        first that failed). Never raises for a bad candidate."""

        items = list(items)
        if len(items) <= 1:
            return [self.run(build, op, case, inputs, timeout_s) for case, inputs in items]
        t0 = time.perf_counter()
        sig = self.signature(build)
        if "error" in sig:
            return [_signature_failure(sig, time.perf_counter() - t0) for _ in items[:1 if stop_at_failure else None]]
        results: list[RunResult] = []
        while len(results) < len(items):
            results += batch.run_once(self, build, op, sig, items[len(results):len(results) + BATCH_CASES], timeout_s)
            if stop_at_failure and results[-1].status != Status.OK:
                break
        return results

    def tiling(self, build: BuildResult, op: Operator, case: Case, inputs: dict[str, np.ndarray],
               timeout_s: float = DEFAULT_TIMEOUT_S) -> Launch:
        """Runs only the host tiling of one case (manifest line ``tiling_only``) and returns the
        launch it asks for. Never raises for a bad candidate."""
        sig = self.signature(build)
        if "error" in sig:
            return Launch(Status.TIMEOUT if sig.get("timeout") else
                          Status.RUNTIME_ERROR if sig.get("violation") else Status.TILING_ERROR, sig["error"])
        work = Path(tempfile.mkdtemp(prefix="aotiling-"))
        try:
            try:
                proc = self._invoke(build, sig, case, inputs, work, timeout_s, ["tiling_only"])
            except subprocess.TimeoutExpired:
                return Launch(Status.TIMEOUT, f"the tiling did not finish within {timeout_s:g} s")
            try:
                res = json.loads(read_scratch(work / "result.json", RESULT_MAX_BYTES))
            except (OSError, ValueError):
                tail = "\n".join(proc.stderr.strip().splitlines()[-3:])
                return Launch(Status.RUNTIME_ERROR, f"the tiling run exited with {proc.returncode} without a "
                                                    f"result\n{tail}".strip())
            if res.get("status") != "tiling":
                if res.get("status") == "tiling_error":
                    return Launch(Status.TILING_ERROR, _with_host_output(str(res.get("message", "")), proc))
                return Launch(Status.RUNTIME_ERROR, str(res.get("message", "")))
            keep = ("block_dim", "tiling_key", "workspace_bytes", "workspace_sizes", "schedule_mode",
                    "inferred_output_shapes", "infer_shape_note", "tiling_data")
            return Launch(Status.OK, fields=tuple((k, res.get(k)) for k in keep))
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # ----------------------------------------------------------------------------- helpers
    def _invoke(self, build: BuildResult, sig: dict[str, Any], case: Case, inputs: dict[str, np.ndarray],
                work: Path, timeout_s: float, extra: list[str], timer: TimerRun | None = None
                ) -> subprocess.CompletedProcess:
        """Writes the manifest (plus ``extra`` lines) into ``work`` and runs the runner on it,
        bounded, streaming its timing to ``timer`` (started first). Raises
        subprocess.TimeoutExpired at the timeout."""
        manifest = self._manifest(work, sig, case, inputs)
        if timer is not None:
            extra = [*extra, timer.manifest_line]
        if extra:
            with manifest.open("a") as mf:
                mf.write("".join(line + "\n" for line in extra))
        writable = [work / f"out{i}.bin" for i in range(len(case.outputs))]
        if timer is not None:
            timer.start()
        return _run_bounded([str(build.artifact), str(manifest)], work, timeout_s,
                            Confinement(self.memory_bytes, dict(build.run_env), self.sandbox, writable,
                                        pass_fds=timer.runner_fds if timer else (),
                                        started=timer.runner_started if timer else None))

    def _manifest(self, work: Path, sig: dict[str, Any], case: Case, inputs: dict[str, np.ndarray]) -> Path:
        """The runner's manifest: inputs in the OpDef's order, the tensors of a list parameter
        one ``dyn_input`` (``dyn_output``) line each, in list order; data files beside it. A case
        output that the OpDef does not declare but has as an input (in-place operators) is a
        ``ref_output``: the runner returns that input's final contents."""
        lines = [f"soc {self.soc.name}"]
        lines += [f"param {k} {v!r}" for k, v in self.soc.params.items()]
        by_name = {name: tensors for name, tensors, _ in group_params(case.inputs)}
        order = [p["name"] for p in sig.get("inputs", [])]
        if not order or not all(n in by_name for n in order if n):
            order = list(by_name)
        files = 0
        for name in order:
            if name not in by_name:
                lines.append(f"input {name} 0 2 0 -")
                continue
            for spec in by_name[name]:
                arr = np.ascontiguousarray(inputs[spec.key], dtype=spec.np_dtype)
                path = work / f"in{files}.bin"
                files += 1
                path.write_bytes(arr.tobytes())
                lines.append(tensor_line("dyn_input" if spec.dynamic else "input", spec, path))
        lines += manifest_tail(work, case, {p["name"] for p in sig.get("outputs", [])},
                               {p["name"] for p in sig.get("inputs", [])})
        path = work / "manifest.txt"
        path.write_text("\n".join(lines) + "\n")
        return path

    def _collect(self, work: Path, proc: subprocess.CompletedProcess, case: Case, seconds: float,
                 timing: Timing | None = None) -> RunResult:
        """The run's result: outputs, status and typed errors from the runner's files; cycles,
        statistics and races only from the ``timing`` its timer reported (issue 18)."""
        res: dict[str, Any] = {}
        unreadable = ""
        try:
            res = json.loads(read_scratch(work / "result.json", RESULT_MAX_BYTES))
        except FileNotFoundError:
            pass
        except OSError as e:  # a symlink, FIFO or device the candidate put there, or oversized
            unreadable = f"the result file is unreadable: {e.strerror or e}"
        except ValueError:  # not JSON (or not UTF-8)
            res = {}
        if not isinstance(res, dict):
            res = {}
        common = dict(block_dim=_int(res.get("block_dim")), tiling_key=_int(res.get("tiling_key")),
                      seconds=seconds, warnings=_warnings(res, timing))
        if timing is not None and timing.status in ("malformed", VIOLATION):  # whatever the runner says
            return RunResult(Status.RUNTIME_ERROR, VIOLATION, timing.message, **common)
        if proc.returncode < 0:
            sig = -proc.returncode
            kind = _SIGNALS.get(signal.Signals(sig), f"signal_{sig}") if sig in signal.Signals._value2member_map_ else f"signal_{sig}"
            msg = f"the kernel process died with {kind}"
            if sig == signal.SIGKILL or "std::bad_alloc" in proc.stderr:
                msg += " (memory limit?)"
            tail = proc.stderr.strip().splitlines()[-3:]
            return RunResult(Status.RUNTIME_ERROR, kind, msg + ("\n" + "\n".join(tail) if tail else ""), **common)
        status = res.get("status")
        if status == "tiling_error":
            return RunResult(Status.TILING_ERROR, "tiling", _with_host_output(res.get("message", ""), proc), **common)
        if status == "runtime_error":
            return RunResult(Status.RUNTIME_ERROR, res.get("error_kind", "runtime"), res.get("message", ""), **common)
        if status != "ok":
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            kind = "bad_alloc" if "bad_alloc" in proc.stderr else "runner"
            why = f" ({unreadable})" if unreadable else ""
            return RunResult(Status.RUNTIME_ERROR, kind,
                             f"runner exited with code {proc.returncode} without a result{why}\n{tail}".strip(),
                             **common)
        # The runner says it finished: its timing must have come through the timer, complete.
        if timing is not None and timing.status == "timeout":
            return RunResult(Status.TIMEOUT, "timeout", timing.message, **common)
        if timing is None or timing.status != "ok":
            why = timing.message if timing is not None else "no timer priced the run"
            return RunResult(Status.RUNTIME_ERROR, VIOLATION, "forged or malformed timing stream: the runner "
                             f"reported a result, but {why}", **common)
        outputs = {}
        for i, spec in enumerate(case.outputs):
            want = int(np.prod(spec.shape, dtype=np.int64)) * np.dtype(spec.np_dtype).itemsize
            try:
                raw = read_scratch(work / f"out{i}.bin", want)
            except OSError as e:
                return RunResult(Status.RUNTIME_ERROR, "runner", f"output {spec.key} is unreadable: "
                                                                 f"{e.strerror or e}", **common)
            if len(raw) != want:
                return RunResult(Status.RUNTIME_ERROR, "runner", f"output {spec.key} has {len(raw)} bytes, "
                                                                 f"expected {want}", **common)
            outputs[spec.key] = np.frombuffer(raw, dtype=spec.np_dtype).reshape(spec.shape).copy()
        profile = {k: timing.data[k] for k in TIMING_KEYS if k in timing.data}
        passed_on = ("workspace_bytes", "tiling_bytes", "inferred_output_shapes", "infer_shape_note")
        profile.update({k: res[k] for k in passed_on if k in res})
        duration = float(timing.data.get("task_duration_us", 0.0))
        if self.noise_pct > 0:
            profile["modeled_task_duration_us"] = duration
            duration *= max(0.01, 1.0 + self._noise.normal(0.0, self.noise_pct / 100.0))
        return RunResult(Status.OK, outputs=outputs, task_duration_us=duration, profile=profile, **common)


def _signature_failure(sig: dict[str, Any], seconds: float) -> RunResult:
    """The result of a run of a runner that did not report its signature."""
    if sig.get("timeout"):
        return RunResult(Status.TIMEOUT, "timeout", sig["error"], seconds=seconds)
    if sig.get("violation"):
        return RunResult(Status.RUNTIME_ERROR, VIOLATION, sig["error"], seconds=seconds)
    return RunResult(Status.TILING_ERROR, "registration", sig["error"], seconds=seconds)


def _unescape(body: str) -> str:
    """The runtime's violation message as printed (a JSON string body), as text."""
    try:
        return json.loads(f'"{body}"')
    except json.JSONDecodeError:
        return body


def _int(v: Any) -> int:
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        return 0


#: Warning kinds only the timer reports (it knows the kernel's --cce-auto-sync; the runner does not).
_TIMER_KINDS = ("race", "same_pipe_race")


def _warnings(res: dict[str, Any], timing: Timing | None = None) -> list[dict[str, Any]]:
    """The run's warning-level hazards, normalised to ``{"kind", "message", "count"}``: races
    from the timer only, the runner's other hazards (a GM read past a tensor), in the order
    they arose (their position in the timing stream)."""
    found = []
    sources = [[w for w in res.get("warnings") or () if isinstance(w, dict) and w.get("kind") not in _TIMER_KINDS]]
    sources.append(timing.warnings if timing is not None else [])
    for src, ws in enumerate(sources):
        for i, w in enumerate(ws):
            if isinstance(w, dict) and w.get("kind"):
                found.append(((_int(w.get("at")), src, i), {"kind": str(w["kind"]), "message": str(w.get("message", "")),
                                                            "count": _int(w.get("count", 1)) or 1}))
    return [w for _, w in sorted(found, key=lambda x: x[0])]


_HOST_SAID_LINES = 3
_HOST_SAID_CHARS = 300


def _with_host_output(message: str, proc: subprocess.CompletedProcess) -> str:
    """A failed InferShape / TilingParse / tiling function's message, with what the host code
    printed on its way out, on the same line: operators report why they return GRAPH_FAILED
    through their own log macros (often ``std::printf`` to stdout; ours write ``[E]`` lines to
    stderr), and only the runner's message would otherwise reach the report. Nothing of the
    kernel has run when tiling fails, so everything printed is the host code's; the last few
    lines are kept."""
    said = [ln.strip() for ln in (proc.stdout or "").splitlines() if ln.strip()]
    said += [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.startswith(("[E]", "[W]"))]
    if not said:
        return message
    text = "; ".join(said[-_HOST_SAID_LINES:])
    if len(text) > _HOST_SAID_CHARS:
        text = text[: _HOST_SAID_CHARS - 3] + "..."
    return f"{message} (the operator printed: {text})"


def _run_bounded(cmd: list[str], work: Path, timeout_s: float, conf: Confinement) -> subprocess.CompletedProcess:
    """Runs candidate code: own process group (killed whole when it used `timeout_s` of CPU
    time: :class:`~ascendopt.sandbox.cputime.RunDeadline`), RLIMIT_AS, and
    stdout/stderr to files of which only the tail is read (a kernel printing garbage cannot
    flood the driver's memory or break decoding). In the sandbox the runner may write
    ``work/result.json`` and ``conf.writable`` only. It inherits ``conf.pass_fds`` (the timer's
    pipes); ``conf.started`` is called once it runs."""
    sandbox = conf.sandbox if conf.sandbox is not None else current()
    memory_bytes, env, writable, pass_fds, started = (conf.memory_bytes, conf.env, list(conf.writable),
                                                      conf.pass_fds, conf.started)
    with (work / "stdout.txt").open("wb") as so, (work / "stderr.txt").open("wb") as se, \
            sandbox.run_command(cmd, memory_bytes, work, env, writable, report=work / "result.json") as c:
        # Its own process group (killed whole at the timeout), not a new session: a session is a
        # new scheduler autogroup, a few ms per run on a loaded machine.
        p = subprocess.Popen(c.argv, stdout=so, stderr=se, stdin=subprocess.DEVNULL, process_group=0,
                             preexec_fn=c.preexec, pass_fds=(*c.pass_fds, *pass_fds),
                             env={**os.environ, **env} if env else None)
        c.close()
        if started is not None:
            started()
        fired, done = threading.Event(), threading.Event()
        deadline = RunDeadline(p.pid, timeout_s)

        def watch() -> None:  # beside p.wait(), not Popen.wait(timeout=), which polls with sleeps
            while not done.wait(deadline.wait_s()):
                if deadline.expired():
                    fired.set()
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            p.wait()
        finally:
            done.set()
            watcher.join()
        if fired.is_set():
            raise subprocess.TimeoutExpired(cmd, timeout_s)
    return subprocess.CompletedProcess(cmd, sandbox.exit_status(p.returncode), tail(work / "stdout.txt"),
                                       tail(work / "stderr.txt"))
