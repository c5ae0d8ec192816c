"""Build + run helpers for the vector API unit tests.

The C++ driver (every *.cpp in this directory) is compiled once per test session together with the
kernel runtime; `vector_unit all DIR` then runs every case once and dumps raw inputs and outputs,
which the tests load through the `vec` fixture.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ascendopt.backends.sim.build import KERNEL_RUNTIME_SOURCES

HERE = Path(__file__).resolve().parent
SIM = HERE.parents[2] / "src" / "ascendopt" / "backends" / "sim"
INCLUDE = SIM / "include"
RUNTIME = SIM / "runtime"

DTYPES = {
    "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8, "u8": np.uint8,
    "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
}


def build_vector_unit(out: Path) -> Path:
    """Compiles tests/sim/vector_api/*.cpp + the kernel runtime into `out`."""
    sources = sorted(HERE.glob("*.cpp")) + [RUNTIME / s for s in KERNEL_RUNTIME_SOURCES]
    cmd = ["g++", "-std=c++17", "-O1", f"-I{INCLUDE}", f"-I{RUNTIME}", *map(str, sources), "-lpthread", "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return out


@pytest.fixture(scope="session")
def vector_bin(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    if not (RUNTIME / "kernel_rt.cpp").exists() or not (INCLUDE / "ascendopt_kernel" / "testing.h").exists():
        pytest.skip("kernel runtime (kernel_rt.cpp / testing.h) not available")
    return build_vector_unit(tmp_path_factory.mktemp("vector_bin") / "vector_unit")


class Results:
    def __init__(self, root: Path):
        self.root = root
        self.meta: dict[tuple[str, str], tuple[str, int]] = {}
        for line in (root / "manifest.txt").read_text().splitlines():
            case, name, dt, n = line.split()
            self.meta[(case, name)] = (dt, int(n))

    def __call__(self, case: str, name: str) -> np.ndarray:
        dt, n = self.meta[(case, name)]
        arr = np.fromfile(self.root / f"{case}.{name}.bin", dtype=DTYPES[dt])
        assert arr.size == n
        return arr


@pytest.fixture(scope="session")
def vec(vector_bin, tmp_path_factory) -> Results:
    out = tmp_path_factory.mktemp("vector_out")
    res = subprocess.run([str(vector_bin), "all", str(out)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-4000:]
    return Results(out)
