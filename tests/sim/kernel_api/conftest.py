"""Shared fixtures: more_unit.cpp (queue forms, data re-layout, sort, select APIs) built once per
session, its rows, and runners for its failure and hazard cases."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

from ..unit_build import assert_hazard

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def more_exe(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path_factory.mktemp("more") / "more_unit"
    srcs = [str(HERE / "more_unit.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR),
                          *srcs, "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return out


@pytest.fixture(scope="session")
def more_run(more_exe) -> subprocess.CompletedProcess:
    res = subprocess.run([str(more_exe)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


@pytest.fixture(scope="session")
def more_rows(more_run) -> dict[str, np.ndarray]:
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in more_run.stdout.splitlines()}


def run_case(exe: Path, mode: str, name: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), mode, name], capture_output=True, text=True, timeout=60)


def assert_fails(exe: Path, name: str, kind: str) -> None:
    """The case reports the hazard ``kind`` (a warning or an error, as the policy grades it)."""
    assert_hazard(run_case(exe, "fail", name), kind)
