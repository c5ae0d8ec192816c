"""The high-level Matmul API: the MatmulApi fixture (Matmul + MultiCoreMatmulTiling) against
numpy, the cube pipe's share of its profile, and the host tiling API's answers (fits the SoC,
-1 when nothing fits)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import case_dtypes, check_case, timed_build
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

HERE = Path(__file__).resolve().parent
INCLUDE = HERE.parents[2] / "src" / "ascendopt" / "backends" / "sim" / "include"
OP_DIR = FIXTURE_OPS / "matmul_api"


@pytest.fixture(scope="module")
def results(backend):
    op = Operator.load(OP_DIR)
    cases = load_op_cases(OP_DIR)
    build = timed_build(backend, op, case_dtypes(cases[0]))
    assert build.ok, build.error[-3000:]
    out = {}
    for i, case in enumerate(cases):
        runs = []
        res = check_case(backend, op, case, build, i, run_result_hook=runs.append)
        out[case.name] = (res, runs[0])
    return out


def test_every_case_matches_numpy(results):
    assert len(results) >= 6
    for name, (res, _) in results.items():
        assert res.status == "ok", (name, res.message)
        assert not res.warnings, (name, res.warnings)


def test_cube_pipe_is_busy(results):
    """Mmad work is charged to the M pipe: per core at least one cycle per 16x16x16 fractal of
    its block, and the loads and write-back occupy MTE2 / MTE1 / FIX."""
    _, rr = results["multicore_k_loop_512x1000x384"]
    prof = rr.profile
    assert rr.block_dim > 1
    busy = [c for c in prof["cores"] if c["pipes"]["M"]["busy_cycles"] > 0]
    assert len(busy) == rr.block_dim
    for c in busy:
        for pipe in ("MTE2", "MTE1", "FIX"):
            assert c["pipes"][pipe]["busy_cycles"] > 0, pipe
    # 512 x 384 x 1000 over the cores: fractals = M/16 * N/16 * ceil(K/16)
    total_fractals = 32 * 24 * 63
    assert sum(c["pipes"]["M"]["busy_cycles"] for c in busy) >= total_fractals
    mmads = sum(i["count"] for c in prof["cores"] for i in c["instrs"] if i["name"] == "Mmad" and i["pipe"] == "M")
    assert mmads > 0


def test_tiling_api_fits_or_refuses(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    exe = tmp_path / "tiling_unit"
    res = subprocess.run(["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                          str(HERE / "tiling_unit.cpp"), "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 7, out
    bad = [ln for ln in lines if " ok" not in ln]
    assert not bad, out
