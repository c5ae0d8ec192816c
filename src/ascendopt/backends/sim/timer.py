"""The timer: the process that prices a run, apart from the candidate's code (issue 18, item 3).

The runner executable links the candidate's kernel, so anything in its memory or in the files it
writes can be forged: the timing model's state, its result file, its exit. The runner therefore
only emulates the kernel functionally and streams the events the timing model consumes over a
pipe (``runtime/stream.h``); the **timer** (``runtime/timer.cpp``, one executable per toolchain
built from our runtime sources only, beside the runtime library) replays that stream through the
timing model, the L2 model and the race detector, and writes cycles, per-core statistics, the
trace and the races to its own file in its own scratch directory, which the runner's sandbox
does not contain. A run's timing and races come only from there:

* the timer checks every record (enums in range, counts and sizes bounded, ids known, events in
  an order the runtime produces, the end record last): anything else is ``sandbox_violation``
  ("forged or malformed timing stream: ...");
* a runner that reports success without a complete stream (it wrote a result and left early)
  is a ``sandbox_violation`` whatever it wrote;
* the timer is confined without a bubblewrap namespace of its own (a second ``bwrap`` start per
  run cost more than the issue's 50 ms budget on a loaded machine): it runs only our code and its
  one untrusted input is the stream, so it needs no file system view. Under an active sandbox
  policy it starts with a scrubbed environment and, before its first read of the stream, sets
  its limits (address space, CPU time, no core files), opens its result and trace files and
  installs a seccomp allowlist (``runtime/sandbox_rt.h``: calls on the fds it holds, memory,
  futex, time, exit); any other call (open, socket, fork, exec, kill, ...) traps and the timer
  reports ``sandbox_violation`` naming it. It is killed at its deadline. Without a sandbox
  (``--unsafe-no-sandbox``) it runs under the resource limits only, as the runner does.

The one value that flows back to the runner is GetSystemCycle's answer, over a second pipe.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.sandbox import VIOLATION, Command, Sandbox
from ascendopt.sandbox.cputime import wait_cpu
from ascendopt.hw.soc import Soc

#: The timer's result file (in the timer's scratch directory).
TIMING_FILE = "timing.json"
#: Timing fields of a run's profile that come from the timer.
TIMING_KEYS = ("cores", "max_core_cycles", "clock_ghz", "gm_bytes_total", "l2_hit_bytes", "launch_overhead_us",
               "hbm_bytes_total", "task_cycles", "hbm_share_cores")
#: Seconds the timer may take after the runner ended (it prices what is left in the pipe).
FINISH_GRACE_S = 30.0
_RESULT_MAX_BYTES = 256 << 20
#: The confined timer's whole environment (it reads none; nothing of the user's reaches it).
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C"}


@dataclass
class Timing:
    """What the timer reported. ``status``: ``ok``; ``malformed`` (a forged or broken stream);
    ``incomplete`` (the stream stopped early: the runner failed or left); ``timeout``;
    ``sandbox_violation`` (the confined timer made a call its filter refuses); ``missing`` (the
    timer wrote no result)."""

    status: str
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return list(self.data.get("warnings") or ()) if self.status not in ("malformed", VIOLATION) else []


@dataclass(frozen=True)
class TimerOptions:
    """What a :class:`TimerRun` does besides timing.

    Attributes:
        trace: write the instruction trace (:attr:`TimerRun.trace_path`).
        cpu_s: the confined timer's CPU-time limit (0: none).
        probe: (tests only) a manifest ``probe`` line, a call the confined timer makes after
            its filter is in force.
        auto_sync: the kernel was compiled with ``--cce-auto-sync`` (the timer orders the
            conflicts the compiler synchronises instead of reporting them: ``runtime/race.h``).
        batch: the runner runs several cases (``runner --batch``), read with
            :meth:`TimerRun.finish_batch`.
    """

    trace: bool = False
    cpu_s: float = 0.0
    probe: str = ""
    auto_sync: bool = False
    batch: bool = False


class TimerRun:
    """One timer process paired with one runner: make it, put :attr:`manifest_line` in the
    runner's manifest and :attr:`runner_fds` in its ``pass_fds``, :meth:`start` it before the
    runner, call :meth:`runner_started` once the runner runs, then :meth:`finish`. Use it as a
    context manager (it kills the timer and removes its scratch directory on exit)."""

    def __init__(self, exe: Path, soc: Soc, sandbox: Sandbox, memory_bytes: int,
                 opts: TimerOptions = TimerOptions()):
        self.exe, self.soc, self.sandbox, self.memory_bytes = exe, soc, sandbox, memory_bytes
        self.cpu_s, self.probe, self.auto_sync, self.batch = opts.cpu_s, opts.probe, opts.auto_sync, opts.batch
        self.work = Path(tempfile.mkdtemp(prefix="aotime-"))
        self.trace_path = self.work / "trace.csv" if opts.trace else None
        events_r, events_w = os.pipe()
        reply_r, reply_w = os.pipe()
        self.runner_fds: tuple[int, ...] = (events_w, reply_r)
        self._timer_fds: tuple[int, ...] = (events_r, reply_w)
        self._proc: subprocess.Popen | None = None

    @property
    def manifest_line(self) -> str:
        return f"timing {self.runner_fds[0]} {self.runner_fds[1]}"

    def start(self) -> None:
        lines = [f"soc {self.soc.name}", *(f"param {k} {v!r}" for k, v in self.soc.params.items()),
                 f"result {self.work / TIMING_FILE}", f"stream {self._timer_fds[0]} {self._timer_fds[1]}"]
        if self.trace_path is not None:
            lines.append(f"trace {self.trace_path}")
        if self.auto_sync:
            lines.append("auto_sync")
        if self.batch:
            lines.append("batch")
        confined = self.sandbox.active  # raises when candidates may not run unconfined
        if confined:
            lines.append(f"confine {int(self.memory_bytes or 0)} {math.ceil(self.cpu_s)}")
            if self.probe:
                lines.append(f"probe {self.probe}")
        manifest = self.work / "timer.txt"
        manifest.write_text("\n".join(lines) + "\n")
        cmd = [str(self.exe), str(manifest)]
        with (self.work / "stderr.txt").open("wb") as se, \
                (Command(cmd) if confined else self.sandbox.run_command(cmd, self.memory_bytes, self.work)) as c:
            self._proc = subprocess.Popen(c.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=se,
                                          process_group=0, preexec_fn=c.preexec, cwd=self.work,
                                          env=_ENV if confined else None, pass_fds=(*c.pass_fds, *self._timer_fds))
        self._close(self._timer_fds)
        self._timer_fds = ()

    def runner_started(self) -> None:
        """The driver's copies of the runner's ends: closed, so that the timer sees the end of
        the stream when the runner exits."""
        self._close(self.runner_fds)
        self.runner_fds = ()

    def finish(self, timeout_s: float = FINISH_GRACE_S) -> Timing:
        """Waits for the timer (killed after `timeout_s`) and reads its result."""
        failed = self._wait(timeout_s)
        if failed is not None:
            return failed
        try:  # the timer's own scratch directory: no runner can reach it
            with open(self.work / TIMING_FILE, "rb") as f:
                data = json.loads(f.read(_RESULT_MAX_BYTES))
        except (OSError, ValueError):
            data = None
        return self._timing(data)

    def finish_batch(self, started: int, timeout_s: float = FINISH_GRACE_S) -> list[Timing]:
        """A batch's :meth:`finish`: the timing of each of the first `started` cases (the ones
        the runner began). A case whose kernel never launched (its tiling failed, the runner died
        first) has the timing a run without a stream gets; one the timer's own failure cut short
        (or a later one) the timing that failure gives."""
        failed = self._wait(timeout_s)
        lines: list[Any] = []
        if failed is None:
            try:
                with open(self.work / TIMING_FILE, "rb") as f:
                    lines = [json.loads(ln) for ln in f.read(_RESULT_MAX_BYTES).splitlines() if ln.strip()]
            except (OSError, ValueError):
                lines = []
        out: dict[int, Timing] = {}
        last = -1
        for data in lines:
            index = data.get("case") if isinstance(data, dict) else None
            if not isinstance(index, int) or index < 0:  # refused before its index: the next case's
                index = last + 1
            if index <= last or index >= started:
                break
            out[index] = self._timing(data)
            last = index
        assert self._proc is not None
        ended = failed if failed is not None else self._timing(None) if self._proc.returncode else None
        none = Timing("incomplete", "the runner wrote no timing stream", {"warnings": []})
        return [out[k] if k in out else (ended if ended is not None and k > last else none) for k in range(started)]

    def _wait(self, timeout_s: float) -> Timing | None:
        """Waits for the timer (``timeout_s`` of its CPU time: :func:`~ascendopt.sandbox.cputime.wait_cpu`);
        the timing of a timer that had to be killed."""
        assert self._proc is not None
        proc = self._proc

        def ended(wait_s: float) -> bool:
            try:
                proc.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                return False
            return True

        if not wait_cpu(proc.pid, timeout_s, ended):
            self.kill()
            return Timing("timeout", f"the timer did not finish within {timeout_s:g} s of CPU time after the run")
        return None

    def _timing(self, data: Any) -> Timing:
        """One result of the timer, or why there is none."""
        assert self._proc is not None
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
            code = self.sandbox.exit_status(self._proc.returncode)
            if code == -signal.SIGSYS:
                return Timing(VIOLATION, "the timer was killed by its seccomp filter (SIGSYS)")
            if code in (-signal.SIGXCPU, -signal.SIGKILL) and self.cpu_s:
                return Timing("timeout", f"the timer used up its {self.cpu_s:g} s of CPU time")
            return Timing("missing", f"the timer exited with {self.sandbox.exit_status(self._proc.returncode)} "
                                     f"without a result")
        return Timing(data["status"], str(data.get("message", "")), data)

    def kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._proc.wait()

    @staticmethod
    def _close(fds: tuple[int, ...]) -> None:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "TimerRun":
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        self._close(self.runner_fds)
        self._close(self._timer_fds)
        shutil.rmtree(self.work, ignore_errors=True)
