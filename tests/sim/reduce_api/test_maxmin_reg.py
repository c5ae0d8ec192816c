"""The max/min register after WholeReduceMax/WholeReduceMin (GetReduceMaxMinCount): the
extreme over all repeats of the instruction and its index in the repeat sequence
(GetReduceRepeatMaxMinSpr: "所有repeat内的最值及其索引"); in counter mode the repeats are
ceil(count / elements per repeat), which may exceed 255."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..unit_build import unit_exe, unit_rows

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, np.ndarray]:
    return unit_rows(unit_exe(HERE / "maxmin_reg_unit.cpp", tmp_path_factory.mktemp("maxmin_reg")))


@pytest.mark.parametrize("name", ["ct", "big"])
def test_counter_mode_register_covers_every_repeat(rows, name):
    x = rows[f"{name}_x"].astype(np.float32)
    for row, want in ((f"{name}_max", x.max()), (f"{name}_min", x.min())):
        val, idx = rows[row]
        assert np.float32(val) == want
        assert x[int(idx)] == want  # the element's own index (ties: any one of them)


def test_normal_mode_register_is_not_the_last_repeat(rows):
    x = rows["nm_x"].astype(np.float32)
    val, idx = rows["nm_max"]
    assert (float(val), int(idx)) == (9.0, 64 + 17)
