"""High-level Sum (SumParams) and Arange / ArithProgression (sum_arange.h) against numpy;
typed failures."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails, run_case


def test_sum_rows(more_rows):
    h = more_rows["sum_h_in"].reshape(3, 16)[:, :13]
    np.testing.assert_allclose(more_rows["sum_h"], h.sum(axis=1), rtol=2e-3)
    f = more_rows["sum_f_in"].astype(np.float32).reshape(2, 1000)[:, :997]
    np.testing.assert_allclose(more_rows["sum_f"], f.astype(np.float64).sum(axis=1), rtol=1e-5)


def test_arange(more_rows):
    np.testing.assert_array_equal(more_rows["arange_i"], -7 + 3 * np.arange(150))
    np.testing.assert_allclose(more_rows["arange_f"], 0.5 + 0.25 * np.arange(77), rtol=1e-6)
    np.testing.assert_array_equal(more_rows["arange_h"], 1.0 + 0.5 * np.arange(20))


@pytest.mark.parametrize("case, kind", [
    ("sum_bad_n", "invalid_argument"),
    ("sum_out_of_bounds", "local_write_outside_buffer"),
    ("arange_out_of_bounds", "local_write_outside_buffer"),
])
def test_sum_arange_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)


def test_tbuf_get_longer_than_its_buffer_is_checked_only_on_access(more_exe):
    res = run_case(more_exe, "fail", "tbuf_get_longer_than_buffer")
    assert "did not fail" in res.stderr and "ascendopt-" not in res.stderr, res.stderr
    assert_fails(more_exe, "tbuf_get_longer_write_past", "local_write_outside_buffer")
