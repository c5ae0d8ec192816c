"""C++ unit drivers of emulated APIs: build one (a .cpp against the emulation headers and the
kernel runtime), run it, and read its "<row> v0 v1 ..." lines."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR
from ascendopt.evaluate.hazards import WARNING_KINDS


def unit_exe(cpp: Path, workdir: Path) -> Path:
    """Compiles cpp into workdir (skips the test without g++)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    exe = workdir / cpp.stem
    srcs = [str(cpp), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR),
                          *srcs, "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return exe


def unit_rows(exe: Path) -> dict[str, np.ndarray]:
    """Runs exe without arguments; its rows by name."""
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in run.stdout.splitlines()}


def assert_hazard(res: subprocess.CompletedProcess, kind: str) -> None:
    """A simulated run reported the hazard ``kind`` as the hazard policy grades it: a warning
    kind (``WARNING_KINDS``: what the device runs through) ran to its end with the warning and
    no error; any other kind stopped the run with exit status 3 and that error."""
    if kind in WARNING_KINDS:
        assert f"ascendopt-warning: {kind}:" in res.stderr, res.stderr
        assert "ascendopt-error" not in res.stderr, res.stderr
    else:
        assert res.returncode == 3, (res.returncode, res.stderr)
        assert f"ascendopt-error: {kind}:" in res.stderr, res.stderr


def unit_fails(exe: Path, name: str, kind: str) -> None:
    """Runs `exe fail name`, which must report the hazard ``kind`` (:func:`assert_hazard`)."""
    assert_hazard(subprocess.run([str(exe), "fail", name], capture_output=True, text=True, timeout=60), kind)
