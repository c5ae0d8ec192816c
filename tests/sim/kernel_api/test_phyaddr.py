"""LocalTensor::GetPhyAddr as kernels use it: the value cast to a __ubuf__ pointer and dereferenced
for scalar reads and writes (on the device it is the UB address; here the host address of the
emulated bytes, so the dereference works instead of crashing the runner), and the same value
given to the pointer-taking forms (mapped back to the UB byte address)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..unit_build import unit_exe, unit_rows

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, np.ndarray]:
    return unit_rows(unit_exe(HERE / "phyaddr_unit.cpp", tmp_path_factory.mktemp("phyaddr")))


def test_scalar_write_and_reads_through_the_pointer(rows):
    x, after = rows["x"], rows["x_after"]
    want = x.copy()
    want[3] = 1.0  # the 32-bit pattern of 1.0f stored through an int32_t pointer
    np.testing.assert_array_equal(after, want)
    assert rows["read5"][0] == pytest.approx(x[5]) and rows["read7"][0] == pytest.approx(x[7])


def test_the_value_stands_for_the_ub_address(rows):
    assert rows["pad_addr"][0] == 0 and rows["ub_addr"][0] == 1024  # after 1000 bytes, 32-byte rounded
    assert rows["align32"][0] == 0  # the host address keeps the UB address's alignment


def test_pointer_forms_take_the_value(rows):
    want = np.zeros(64)
    want[8:24] = 2.5
    np.testing.assert_array_equal(rows["dup"], want)
