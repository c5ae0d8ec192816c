"""The cases of one candidate in one runner process (``runner --batch``, :meth:`SimBackend.run_batch`).

A runner and a timer per case cost their start-up (two execs, dynamic loading, the sandbox's
namespaces) for every case, a few milliseconds each that tiny cases are made of. A batch runs
the cases of one build, in order, in one runner timed by one timer: the runner resets its state
between cases (``runtime/main.cpp``: GM, warnings, queue ids, stream, floating-point environment,
rand()), the timer replays each case's stream from a fresh state (``runtime/timer.cpp``), and
each case has its own manifest, result, output, stdout and stderr files, so that its result is
the one a runner of its own gives. The runner stops after a case that failed or that left state
in the candidate's globals or heap; :meth:`SimBackend.run_batch` starts a fresh one for the rest.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ascendopt.backends.base import BuildResult, RunResult, Status
from ascendopt.backends.sim.confine import Confinement
from ascendopt.backends.sim.scratch import open_scratch, tail
from ascendopt.sandbox import current
from ascendopt.sandbox.cputime import RunDeadline
from ascendopt.backends.sim.timer import FINISH_GRACE_S, TimerOptions, TimerRun
from ascendopt.cases import Case
from ascendopt.operator import Operator

if TYPE_CHECKING:  # the backend runs its batches through this module
    from ascendopt.backends.sim.backend import SimBackend


def run_once(backend: SimBackend, build: BuildResult, op: Operator, sig: dict[str, Any],
             items: Sequence[tuple[Case, dict[str, np.ndarray]]], timeout_s: float) -> list[RunResult]:
    """One runner on `items`: the results of its first cases, up to the one it stopped
    after (the last, one that failed, or one that left state behind), at least one."""
    t0 = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="aobatch-"))
    progress_r, progress_w = os.pipe()
    try:
        with TimerRun(backend.builder.timer_exe(backend.sandbox), backend.soc, backend.sandbox, backend.memory_bytes,
                      TimerOptions(cpu_s=len(items) * (timeout_s + FINISH_GRACE_S), auto_sync=op.auto_sync,
                                   batch=True)) as timer:
            lines, writable = [f"progress {progress_w}"], []
            for k, (case, inputs) in enumerate(items):
                d = work / f"c{k}"
                d.mkdir()
                manifest = backend._manifest(d, sig, case, inputs)
                with manifest.open("a") as mf:
                    mf.write(timer.manifest_line + "\n")
                writable += [d / "result.json", d / "stdout.txt", d / "stderr.txt",
                             *(d / f"out{i}.bin" for i in range(len(case.outputs)))]
                lines.append(f"case {manifest} {d / 'stdout.txt'} {d / 'stderr.txt'}")
            (work / "batch.txt").write_text("\n".join(lines) + "\n")
            timer.start()
            fds, progress_w = (*timer.runner_fds, progress_w), -1  # run_bounded closes it
            proc, starts, timed_out = run_bounded(
                [str(build.artifact), "--batch", str(work / "batch.txt")], work, timeout_s, len(items),
                Confinement(backend.memory_bytes, dict(build.run_env), backend.sandbox, writable, fds,
                            timer.runner_started), progress_r)
            ended = time.perf_counter()
            last = max(0, len(starts) - 1)  # the case the runner was in when it stopped
            timings = timer.finish_batch(last + 1)
            results = []
            for k in range(last + 1):
                case = items[k][0]
                seconds = ((starts[k + 1] if k + 1 < len(starts) else ended)
                           - (starts[k] if 0 < k < len(starts) else t0))
                if k == last and timed_out:
                    results.append(RunResult(Status.TIMEOUT, "timeout", f"the run did not finish within "
                                             f"{timeout_s:g} s (kernel loop or hang?)", seconds=seconds))
                    break
                d = work / f"c{k}"
                if k == last and backend.sandbox.active and _scratch_size(work / "report.json"):
                    shutil.copyfile(work / "report.json", d / "result.json")  # a violation, reported there
                case_proc = subprocess.CompletedProcess(
                    proc.args, proc.returncode if k == last else 0,
                    proc.stdout + tail(d / "stdout.txt"), proc.stderr + tail(d / "stderr.txt"))
                results.append(backend._collect(d, case_proc, case, seconds, timings[k]))
                if results[-1].status != Status.OK:
                    break  # a case after it runs in a fresh runner
            return results
    finally:
        for fd in (progress_r, progress_w):
            if fd >= 0:
                os.close(fd)
        shutil.rmtree(work, ignore_errors=True)


def run_bounded(cmd: list[str], work: Path, timeout_s: float, cases: int, conf: Confinement,
                progress: int) -> tuple[subprocess.CompletedProcess, list[float], bool]:
    """:func:`_run_bounded` for ``runner --batch``: the runner writes a byte to its progress
    pipe (the read end: `progress`; the write end is the last of ``conf.pass_fds``, closed here
    once the runner started) as each case starts, and each case gets `timeout_s` of CPU time
    from its start (the whole batch at most ``cases * timeout_s``; :class:`RunDeadline`). Returns the process (stdout/stderr: what it
    printed outside its cases), when each case started (``perf_counter``), and whether it was
    killed at a timeout. In the sandbox its violation report is ``work/report.json``."""
    sandbox = conf.sandbox if conf.sandbox is not None else current()
    memory_bytes, env, writable, pass_fds = conf.memory_bytes, conf.env, list(conf.writable), conf.pass_fds
    try:
        with (work / "stdout.txt").open("wb") as so, (work / "stderr.txt").open("wb") as se, \
                sandbox.run_command(cmd, memory_bytes, work, env, writable, report=work / "report.json") as c:
            p = subprocess.Popen(c.argv, stdout=so, stderr=se, stdin=subprocess.DEVNULL, process_group=0,
                                 preexec_fn=c.preexec, pass_fds=(*c.pass_fds, *pass_fds),
                                 env={**os.environ, **env} if env else None)
    finally:
        os.close(pass_fds[-1])  # the runner's only: its end is the end of the progress pipe
    if conf.started is not None:
        conf.started()
    starts: list[float] = []
    case_limit, whole = RunDeadline(p.pid, timeout_s), RunDeadline(p.pid, cases * timeout_s)
    timed_out = False
    while True:
        ready, _, _ = select.select([progress], [], [], min(case_limit.wait_s(), whole.wait_s()))
        if not ready:
            if case_limit.expired() or whole.expired():
                timed_out = True
                break
            continue
        got = os.read(progress, 4096)
        if not got:  # the runner (and every child that held the pipe) is gone
            break
        starts += [time.perf_counter()] * len(got)
        case_limit.restart()
    if timed_out:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait()
    return (subprocess.CompletedProcess(cmd, sandbox.exit_status(p.returncode), tail(work / "stdout.txt"),
                                        tail(work / "stderr.txt")), starts[:cases], timed_out)


def _scratch_size(path: Path) -> int:
    try:
        with open_scratch(path) as f:
            return os.fstat(f.fileno()).st_size
    except OSError:
        return 0
