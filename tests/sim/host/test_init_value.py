"""OpParamDef::InitValue in its documented forms (0, a ScalarVar, a list of ScalarVar with
ops::ScalarType) compiles and is recorded per output; ScalarVar keeps float and integer values."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SIM = HERE.parents[2] / "src" / "ascendopt" / "backends" / "sim"
FLAGS = ["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{SIM / 'include'}", f"-I{SIM / 'runtime'}"]


def test_init_value_forms(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    exe = tmp_path / "init_value"
    res = subprocess.run([*FLAGS, str(HERE / "fixtures" / "init_value" / "init_value_def.cpp"),
                          str(SIM / "runtime" / "host_rt.cpp"), "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "outputs 4"
    assert lines[1:5] == ["zeroed 1", "typed 1", "one 1", "plain 0"]
    assert lines[5] == "half 1.5 int -3 float 2"
