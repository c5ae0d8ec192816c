"""Runs every target in its own child process (``python -m ascendopt.compat.check``), at
most ``workers`` at a time. A child that gives no result within ``timeout_s`` is killed with
its whole process group (compilers, runners and the golden worker with it) and reported as a
``timeout`` row; one that dies without a result is a ``crash`` row. Interrupting
(KeyboardInterrupt) kills the running children and returns the rows finished so far."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ascendopt.compat.check import crashed_row, timeout_row
from ascendopt.compat.report import Row
from ascendopt.compat.targets import Target


@dataclass(frozen=True)
class CompatConfig:
    """How each operator is checked.

    Attributes:
        workers: Operators checked at once (one child process each).
        timeout_s: Seconds per operator (build and every case); then it is killed.
        case_timeout_s: Seconds per case run.
        max_cases: Check at most this many cases per operator (None: all).
        unsafe_no_sandbox: Run unconfined when the machine has no sandbox.
        soc: SoC to simulate (None: the default).
    """

    workers: int = 1
    timeout_s: float = 300.0
    case_timeout_s: float = 60.0
    max_cases: int | None = None
    unsafe_no_sandbox: bool = False
    soc: str | None = None

    def to_dict(self) -> dict:
        return {"workers": self.workers, "timeout_s": self.timeout_s, "case_timeout_s": self.case_timeout_s,
                "max_cases": self.max_cases, "soc": self.soc}


@dataclass
class CompatRun:
    """What :func:`run_targets` returns: rows in target order (finished ones only when
    interrupted) and the wall time."""

    rows: list[Row]
    wall_s: float
    interrupted: bool = False


class _Children:
    """The live child processes, so that an interrupt can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()
        self.stopped = False

    def start(self, cmd: list[str]) -> subprocess.Popen | None:
        with self._lock:
            if self.stopped:
                return None
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)  # its own group: killed whole
            self._procs.add(p)
            return p

    def done(self, p: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(p)

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            for p in self._procs:
                _kill_group(p)


def _kill_group(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def check_in_child(target: Target, cfg: CompatConfig, children: _Children | None = None) -> Row | None:
    """One operator in a child process; None when the run was stopped before it started
    or while it ran."""
    children = children or _Children()
    job = {"target": target.to_dict(), "case_timeout_s": cfg.case_timeout_s, "max_cases": cfg.max_cases,
           "unsafe_no_sandbox": cfg.unsafe_no_sandbox, "soc": cfg.soc}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aocompat-") as tmp:
        out = Path(tmp) / "row.json"
        p = children.start([sys.executable, "-m", "ascendopt.compat.check", json.dumps(job), str(out)])
        if p is None:
            return None
        try:
            _, err = p.communicate(timeout=cfg.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(p)
            p.communicate()
            row = timeout_row(target, cfg.timeout_s)
        else:
            if children.stopped:
                return None
            try:
                row = Row.from_dict(json.loads(out.read_text()))
            except (OSError, ValueError):
                row = crashed_row(target, err, p.returncode)
        finally:
            children.done(p)
    row.seconds = round(time.perf_counter() - t0, 1)
    return row


def run_targets(targets: list[Target], cfg: CompatConfig, on_row: Callable[[Row], None] | None = None,
                on_start: Callable[[Target], None] | None = None) -> CompatRun:
    """Checks every target, ``cfg.workers`` at a time; ``on_row`` is called (in this thread)
    as each finishes, ``on_start`` as each starts. Ctrl-C returns what finished."""
    children = _Children()
    t0 = time.perf_counter()
    finished: dict[int, Row] = {}
    interrupted = False

    def work(i: int) -> tuple[int, Row | None]:
        if on_start and not children.stopped:
            on_start(targets[i])
        return i, check_in_child(targets[i], cfg, children)

    pool = ThreadPoolExecutor(max(1, cfg.workers), thread_name_prefix="compat")
    try:
        pending: set[Future] = {pool.submit(work, i) for i in range(len(targets))}
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for f in done:
                i, row = f.result()
                if row is not None:
                    finished[i] = row
                    if on_row:
                        on_row(row)
    except KeyboardInterrupt:
        interrupted = True
        children.stop()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        children.stop()
    return CompatRun([finished[i] for i in sorted(finished)], time.perf_counter() - t0, interrupted)
