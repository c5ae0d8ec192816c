"""High-level Mean (ascendopt_kernel/mean.h, MeanParams) against numpy: rows of n of inner
elements, float and half, half accumulated in float (accType); typed failures. And the host
temporary-space queries GetSigmoidMaxMinTmpSize / GetTanhMaxMinTmpSize / GetMeanMaxMinTmpSize
(ascendopt_host/math_tmp_size.h): ordered, non-zero unless no space is needed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

from ..unit_build import assert_hazard

HERE = Path(__file__).resolve().parent
GXX = ["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR)]


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path_factory.mktemp("mean") / "mean_unit"
    srcs = [str(HERE / "mean_unit.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run([*GXX, *srcs, "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return out


@pytest.fixture(scope="module")
def rows(exe) -> dict[str, np.ndarray]:
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in run.stdout.splitlines()}


def test_mean_float_rows(rows):
    x = rows["mean_f_in"].astype(np.float32).reshape(3, 136)[:, :130]
    np.testing.assert_allclose(rows["mean_f"], x.astype(np.float64).mean(axis=1), rtol=1e-5, atol=1e-7)


def test_mean_half_rows_and_float_accumulation(rows):
    x = rows["mean_h_in"].reshape(2, 48)[:, :45].astype(np.float64)
    want = x.mean(axis=1)
    np.testing.assert_allclose(rows["mean_h"], want, rtol=5e-3, atol=2e-3)
    np.testing.assert_allclose(rows["mean_h_acc_f"], want.astype(np.float16), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("case, kind", [
    ("mean_bad_n", "invalid_argument"),
    ("mean_inner_misaligned", "misaligned"),
    # reads past its source into the destination's buffer (a warning), which overlaps: an error
    ("mean_out_of_bounds", "invalid_argument"),
])
def test_mean_failures_are_typed(exe, case, kind):
    assert_hazard(subprocess.run([str(exe), "fail", case], capture_output=True, text=True, timeout=60), kind)


def test_host_tmp_size_queries(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path / "host_tmp"
    res = subprocess.run([*GXX, "-DASCENDOPT_HOST_TEST", str(HERE / "host_tmp_size_unit.cpp"),
                          str(RUNTIME_DIR / "host_rt.cpp"), "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    got = {ln.split()[0]: tuple(int(v) for v in ln.split()[1:])
           for ln in subprocess.run([str(out)], capture_output=True, text=True, timeout=60).stdout.splitlines()}
    for name in ("sigmoid_half", "tanh_float", "mean_half_f32"):
        mx, mn = got[name]
        assert 0 < mn <= mx and mn % 32 == 0 and mx % 32 == 0, (name, mx, mn)
    assert got["sigmoid_half"][0] >= 1024 * 4  # the whole source worked on in float
    assert got["sigmoid_float_reuse"] == (0, 0)  # computed in place: no temporary space
    assert got["mean_half_f32"][1] >= 45 * 4  # a row in the float accumulation type
