"""Issue 18: the timer is confined without a bubblewrap namespace of its own (timer.py). Its
seccomp allowlist is in force before its first read of the stream: a call outside it (open,
socket, fork) is a typed ``sandbox_violation`` naming the call, from the timer and through the
driver; its environment is scrubbed and its limits set."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import pytest

from ascendopt.backends.sim import backend as sim_backend
from ascendopt.sandbox import VIOLATION
from ascendopt.hw.soc import DEFAULT_SOC, load_soc
from ascendopt.backends.sim.timer import TimerOptions, TimerRun
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "ops" / "scale_copy"


@pytest.fixture(autouse=True)
def _needs_sandbox(backend):
    if not backend.sandbox.support.available:
        pytest.skip(f"sandbox unavailable: {backend.sandbox.support.reason}")


@pytest.fixture(scope="module")
def timer(backend):
    return backend.builder.timer_exe(backend.sandbox)


def timer_run(backend, timer, **kw) -> TimerRun:
    return TimerRun(timer, load_soc(DEFAULT_SOC), backend.sandbox, 1 << 30, TimerOptions(cpu_s=20, **kw))


@pytest.mark.parametrize("probe, says", [("open /etc/hostname", 'openat("/etc/hostname")'),
                                         ("socket", "socket(AF_INET)"), ("fork", "clone")])
def test_a_call_outside_the_timers_allowlist_is_a_violation(backend, timer, probe, says):
    with timer_run(backend, timer, probe=probe) as t:
        t.start()
        t.runner_started()  # no runner: the stream ends at once
        timing = t.finish(timeout_s=20)
    assert timing.status == VIOLATION, timing
    assert timing.message.startswith("the timer called ") and says in timing.message, timing.message
    assert "task_duration_us" not in timing.data and timing.warnings == []


def test_the_driver_reports_a_timer_violation_as_sandbox_violation(backend, monkeypatch):
    op = Operator.load(FIXTURE)
    case = [c for c in load_op_cases(FIXTURE) if c.name == "small_tail"][0]
    build = backend.build(op, case_dtypes(case))
    assert build.ok, build.error
    inputs = make_inputs(case, 0)
    assert backend.run(build, op, case, inputs).status == "ok"
    def probing(exe, soc, sandbox, memory_bytes, opts=TimerOptions()):  # the backend's timer, with a probe
        return TimerRun(exe, soc, sandbox, memory_bytes, dataclasses.replace(opts, probe="open /etc/passwd"))

    monkeypatch.setattr(sim_backend, "TimerRun", probing)
    res = backend.run(build, op, case, inputs)
    assert res.status == "runtime_error" and res.error_kind == VIOLATION, res
    assert "/etc/passwd" in res.message and "the timer called openat" in res.message


def test_the_confined_timer_has_a_scrubbed_environment_and_its_limits(backend, timer):
    with timer_run(backend, timer) as t:
        t.start()
        pid = t._proc.pid
        status = Path(f"/proc/{pid}/status")
        deadline = time.monotonic() + 20
        while "Seccomp:\t2" not in status.read_text():  # waits on the stream, filter in force
            assert time.monotonic() < deadline
            time.sleep(0.01)
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        limits = Path(f"/proc/{pid}/limits").read_text()
        fds = sorted(int(x) for x in os.listdir(f"/proc/{pid}/fd"))
        t.runner_started()
        timing = t.finish(timeout_s=20)
    assert sorted(e for e in env if e) == [b"LANG=C", b"PATH=/usr/bin:/bin"]
    assert any(ln.startswith("Max address space") and f"{1 << 30}" in ln for ln in limits.splitlines()), limits
    assert any(ln.startswith("Max cpu time") and " 20 " in ln for ln in limits.splitlines()), limits
    assert len(fds) <= 6, fds  # stdin, stdout, stderr, stream, reply, result file
    assert timing.status == "incomplete", timing  # an empty stream, priced by nobody
