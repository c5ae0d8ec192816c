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
* the timer runs under the same sandbox policy as the runner (it parses untrusted input) and is
  killed at its deadline.

The one value that flows back to the runner is GetSystemCycle's answer, over a second pipe.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.backends.sim.sandbox import Sandbox
from ascendopt.backends.sim.soc import Soc

#: The timer's result file (in the timer's scratch directory).
TIMING_FILE = "timing.json"
#: Timing fields of a run's profile that come from the timer.
TIMING_KEYS = ("cores", "max_core_cycles", "clock_ghz", "gm_bytes_total", "l2_hit_bytes", "launch_overhead_us",
               "hbm_bytes_total", "task_cycles")
#: Seconds the timer may take after the runner ended (it prices what is left in the pipe).
FINISH_GRACE_S = 30.0
_RESULT_MAX_BYTES = 256 << 20


@dataclass
class Timing:
    """What the timer reported. ``status``: ``ok``; ``malformed`` (a forged or broken stream);
    ``incomplete`` (the stream stopped early: the runner failed or left); ``timeout``;
    ``missing`` (the timer wrote no result)."""

    status: str
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return list(self.data.get("warnings") or ()) if self.status != "malformed" else []


class TimerRun:
    """One timer process paired with one runner: make it, put :attr:`manifest_line` in the
    runner's manifest and :attr:`runner_fds` in its ``pass_fds``, :meth:`start` it before the
    runner, call :meth:`runner_started` once the runner runs, then :meth:`finish`. Use it as a
    context manager (it kills the timer and removes its scratch directory on exit)."""

    def __init__(self, exe: Path, soc: Soc, sandbox: Sandbox, memory_bytes: int, trace: bool = False):
        self.exe, self.soc, self.sandbox, self.memory_bytes = exe, soc, sandbox, memory_bytes
        self.work = Path(tempfile.mkdtemp(prefix="aotime-"))
        self.trace_path = self.work / "trace.csv" if trace else None
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
        manifest = self.work / "timer.txt"
        manifest.write_text("\n".join(lines) + "\n")
        writable = [self.trace_path] if self.trace_path is not None else []
        with (self.work / "stderr.txt").open("wb") as se, \
                self.sandbox.run_command([str(self.exe), str(manifest)], self.memory_bytes, self.work,
                                         writable=writable, report=self.work / TIMING_FILE) as c:
            self._proc = subprocess.Popen(c.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=se,
                                          process_group=0, preexec_fn=c.preexec,
                                          pass_fds=(*c.pass_fds, *self._timer_fds))
        self._close(self._timer_fds)
        self._timer_fds = ()

    def runner_started(self) -> None:
        """The driver's copies of the runner's ends: closed, so that the timer sees the end of
        the stream when the runner exits."""
        self._close(self.runner_fds)
        self.runner_fds = ()

    def finish(self, timeout_s: float = FINISH_GRACE_S) -> Timing:
        """Waits for the timer (killed after `timeout_s`) and reads its result."""
        assert self._proc is not None
        try:
            self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return Timing("timeout", f"the timer did not finish within {timeout_s:g} s of the run")
        try:  # the timer's own scratch directory: no runner can reach it
            with open(self.work / TIMING_FILE, "rb") as f:
                data = json.loads(f.read(_RESULT_MAX_BYTES))
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
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
