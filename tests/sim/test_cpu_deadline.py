"""A run's time limit counts the runner's CPU time, not the wall clock (sandbox/cputime.py):
a run that waits (as a correct kernel waits for a core on a loaded machine) is not killed at
its limit, a run that spins is."""

import subprocess
import sys
import time

import pytest

from ascendopt.backends.sim.backend import _run_bounded
from ascendopt.backends.sim.confine import Confinement
from ascendopt.sandbox import Sandbox
from ascendopt.sandbox.cputime import RunDeadline, tree_cpu_s

SPIN = [sys.executable, "-c", "while True: pass"]
# sleeps in a child: the tree's CPU time, not only the top process's, is what counts
WAIT = ["/bin/sh", "-c", "sleep 1.5; echo waited"]
UNCONFINED = Sandbox(enabled=False)  # the limits only: the deadline is under test


def _until(cond, wall_s: float = 60.0) -> bool:
    """Polls ``cond`` (a loaded test machine gives a spinning child a fraction of a core)."""
    end = time.monotonic() + wall_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def test_tree_cpu_counts_descendants():
    p = subprocess.Popen(["/bin/sh", "-c", f"{sys.executable} -c 'while True: pass' & wait"])
    try:
        assert _until(lambda: tree_cpu_s(p.pid) > 0.3)
    finally:
        subprocess.run(["pkill", "-P", str(p.pid)], check=False)
        p.kill()
        p.wait()


def test_deadline_expires_on_cpu_not_on_wall():
    waiting = subprocess.Popen(["sleep", "3"])
    spinning = subprocess.Popen(SPIN)
    try:
        dw, ds = RunDeadline(waiting.pid, 1.0), RunDeadline(spinning.pid, 0.3)
        time.sleep(1.5)  # past the waiting run's limit on the wall clock, far below its backstop
        assert not dw.expired()
        assert _until(ds.expired)
    finally:
        for p in (waiting, spinning):
            p.kill()
            p.wait()


def test_run_bounded_lets_a_waiting_run_finish(tmp_path):
    proc = _run_bounded(WAIT, tmp_path, 0.5, Confinement(1 << 30, sandbox=UNCONFINED))
    assert proc.returncode == 0 and "waited" in proc.stdout


def test_run_bounded_kills_a_spinning_run(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        _run_bounded(SPIN, tmp_path, 0.3, Confinement(1 << 30, sandbox=UNCONFINED))
    assert time.monotonic() - t0 < 60
