"""High-level SoftMax, kernel side (softmax.h): rows against numpy softmax, sum/max written as
one 32-byte block per row, padded columns (oriSrcK < srcK) left out of the reductions, mixed
half data with float statistics; typed failures."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails


def test_softmax_float_rows(more_rows):
    x = more_rows["sm_x"].astype(np.float32).reshape(5, 16)
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(more_rows["sm_y"].reshape(5, 16), e / s, rtol=1e-5)
    np.testing.assert_allclose(more_rows["sm_sum"].reshape(5, 8), np.repeat(s, 8, axis=1), rtol=1e-5)
    np.testing.assert_array_equal(more_rows["sm_max"].astype(np.float32).reshape(5, 8), np.repeat(mx, 8, axis=1))


def test_softmax_half_padded_columns(more_rows):
    x = more_rows["smh_x"].reshape(3, 16)
    real = x[:, :11]
    mx = real.max(axis=1, keepdims=True)
    e = np.exp(real - mx)
    s = e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(more_rows["smh_y"].reshape(3, 16)[:, :11], e / s, rtol=3e-3, atol=1e-3)
    np.testing.assert_allclose(more_rows["smh_sum"].reshape(3, 8), np.repeat(s, 8, axis=1), rtol=3e-3)
    np.testing.assert_array_equal(more_rows["smh_max"].reshape(3, 8), np.repeat(mx, 8, axis=1))


@pytest.mark.parametrize("case, kind", [
    ("softmax_misaligned", "misaligned"),
    ("softmax_out_of_bounds", "local_write_outside_buffer"),
])
def test_softmax_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)
