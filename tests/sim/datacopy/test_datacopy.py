"""DataCopy (DataCopyParams strides) and DataCopyPad (byte lengths, padding) against numpy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, np.ndarray]:
    exe = tmp_path_factory.mktemp("dc") / "datacopy_unit"
    srcs = [str(HERE / "datacopy_unit.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR), *srcs,
                    "-o", str(exe)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in out.splitlines()}


def test_gm_to_ub_with_block_strides(rows):
    exp = np.full(96, -2.0)
    for i in range(3):
        exp[i * 32: i * 32 + 16] = np.arange(i * 24, i * 24 + 16)
    np.testing.assert_array_equal(rows["gm2ub_params"], exp)


def test_ub_to_gm_with_block_strides(rows):
    exp = np.full(120, -1.0)
    for i in range(3):
        exp[i * 40: i * 40 + 16] = np.arange(i * 24, i * 24 + 16)
    np.testing.assert_array_equal(rows["ub2gm_params"], exp)


def test_pad_gm_to_ub_places_rows_on_32_byte_boundaries_with_padding(rows):
    exp = []
    for i in range(3):
        exp += [9.0, *range(i * 6, i * 6 + 5), 9.0, 9.0]
    np.testing.assert_array_equal(rows["gm2ub_pad"], np.array(exp))


def test_pad_gm_to_ub_completes_short_rows_with_dummy_elements(rows):
    # Documented fill: the row's first element without left/right padding, else the padding value.
    exp = [*range(3, 8), 3, 3, 3, *range(8, 13), 8, 8, 8, 7.0, *range(40, 45), 7.0, 7.0, *[-2.0] * 8]
    np.testing.assert_array_equal(rows["gm2ub_pad_dummy"], np.array(exp, dtype=float))


def test_pad_ub_to_gm_writes_exact_bytes_with_gm_gaps(rows):
    exp = np.full(24, -1.0)
    for i in range(3):
        exp[i * 7: i * 7 + 5] = np.arange(100 + i * 8, 100 + i * 8 + 5)
    np.testing.assert_array_equal(rows["ub2gm_pad"], exp)


def test_ub_to_ub(rows):
    np.testing.assert_array_equal(rows["ub2ub"], np.arange(100, 116))
