"""Compile a small host program of ours (with optional runtime sources) and run it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def run_program(tmp_path: Path, program: str, cmd: list[str], sources: tuple[Path, ...] = ()) -> str:
    """Writes ``program`` to ``tmp_path``, compiles it with ``cmd`` (the compiler and its flags)
    and ``sources``, runs it and returns its stdout; skips without g++, fails on a compile error
    or a non-zero exit."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = tmp_path / "t.cpp"
    src.write_text(program)
    exe = tmp_path / "t"
    res = subprocess.run([*cmd, str(src), *map(str, sources), "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stdout
