"""Vector APIs used as function pointers of their documented signatures (repeat count `const
uint8_t`, bit mask `uint64_t[]`), as generic kernels pass them as template arguments; results
against numpy, and a wider repeat count is still checked (typed error, not wrapped)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path_factory.mktemp("fnptr") / "fnptr_unit"
    srcs = [str(HERE / "fnptr_unit.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR),
                          *srcs, "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return out


@pytest.fixture(scope="module")
def rows(exe) -> dict[str, np.ndarray]:
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]], np.float32) for ln in res.stdout.splitlines()}


def test_binary_pointers(rows):
    a, b = rows["a"], rows["b"]
    np.testing.assert_array_equal(rows["div_ptr"], a / b)
    np.testing.assert_array_equal(rows["sub_ptr"], a - b)
    np.testing.assert_array_equal(rows["mul_count_ptr"], a * b)
    lane = np.arange(a.size) % 64
    np.testing.assert_array_equal(rows["add_bits_ptr"], np.where(lane % 2 == 0, a + b, -1.0))


def test_unary_and_scalar_pointers(rows):
    a, b = rows["a"], rows["b"]
    np.testing.assert_allclose(rows["exp_ptr"], np.exp(b), rtol=1e-6)
    np.testing.assert_allclose(rows["rec_count_ptr"], 1.0 / b, rtol=1e-6)
    np.testing.assert_array_equal(rows["adds_ptr"], a + np.float32(0.5))
    np.testing.assert_array_equal(rows["muls_count_ptr"], a * np.float32(3))


def test_wider_repeat_counts_and_const_masks(rows):
    a, b = rows["a"], rows["b"]
    lane = np.arange(a.size) % 64
    np.testing.assert_array_equal(rows["max_const_bits"], np.where(lane < 32, np.maximum(a, b), -1.0))
    np.testing.assert_array_equal(rows["adds_u32"], a + 1)


def test_repeat_over_255_is_a_typed_error(exe):
    res = subprocess.run([str(exe), "fail", "repeat_over_255"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 3, res.stderr
    assert "invalid_argument" in res.stderr and "repeatTimes 300" in res.stderr
