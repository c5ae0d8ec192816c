"""Shared by the reduce_api tests: build one unit driver (a .cpp here) against the emulation
headers and the kernel runtime, run it, and read its "<row> v0 v1 ..." lines."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

HERE = Path(__file__).resolve().parent


def unit_rows(driver: str, workdir: Path) -> dict[str, np.ndarray]:
    """Compile HERE/driver.cpp into workdir, run it, return its rows by name."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    exe = workdir / driver
    srcs = [str(HERE / f"{driver}.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR),
                          *srcs, "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in run.stdout.splitlines()}
