"""Compile a small C++ program against the simulator's headers and run it (host header tests)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR


def compile_and_run(tmp_path: Path, program: str, name: str = "prog") -> str:
    """Builds `program` with g++ -Wall -Werror against the emulation headers and returns what it
    prints (skips without g++; fails on a compile error or a non-zero exit)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src, exe = tmp_path / f"{name}.cpp", tmp_path / name
    src.write_text(program)
    res = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", f"-I{INCLUDE_DIR}", str(src), "-o", str(exe)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout
