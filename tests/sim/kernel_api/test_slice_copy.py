"""DataCopy with SliceInfo (slice_copy.h) against numpy: the documented 2-D example (rows 0 and
2 of a [3, 87] GM tensor, two 24-float segments per row, into [2, 48] UB); UB -> GM where the
source's dimension 0 fixes the number of segments and the destination's stride places them (its
endIndex does not limit them); segments keep DataCopy's checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..unit_build import unit_exe, unit_fails, unit_rows

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return unit_exe(HERE / "slice_copy_unit.cpp", tmp_path_factory.mktemp("slice_copy"))


@pytest.fixture(scope="module")
def rows(exe) -> dict[str, np.ndarray]:
    return unit_rows(exe)


def test_gm_to_ub_documented_example(rows):
    src = np.arange(3 * 87, dtype=np.float64).reshape(3, 87)
    want = np.full(128, -2.0)
    for r, gr in enumerate((0, 2)):
        for k in range(2):
            want[r * 48 + k * 24: r * 48 + k * 24 + 24] = src[gr, 16 + k * 31: 16 + k * 31 + 24]
    np.testing.assert_array_equal(rows["gm2ub"], want)


def test_ub_to_gm_source_fixes_the_count(rows):
    ub = rows["gm2ub"][:16]
    want = np.full(40, -1.0)
    want[3:11] = ub[0:8]
    want[16:24] = ub[8:16]  # 3 + 8 + 5
    np.testing.assert_array_equal(rows["ub2gm"], want)


@pytest.mark.parametrize("name, kind", [("gm_write_before_tensor", "gm_out_of_bounds"),
                                        ("ub_dst_misaligned", "misaligned")])
def test_failures(exe, name, kind):
    unit_fails(exe, name, kind)
