"""Whole-tensor operator forms (tensor_expr.h: dst = a + b, mask = a >= b, ...) and
SelectWithBytesMask / Select with a byte mask (select_bytes.h) against numpy; typed failures."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails


def test_arithmetic_and_logical_operators(more_rows):
    a, b = more_rows["op_a"].astype(np.float32), more_rows["op_b"].astype(np.float32)
    np.testing.assert_array_equal(more_rows["op_add"], a + b)
    np.testing.assert_array_equal(more_rows["op_sub"], a - b)
    np.testing.assert_array_equal(more_rows["op_mul"], a * b)
    np.testing.assert_allclose(more_rows["op_div"], a / b, rtol=1e-6)
    ia, ib = more_rows["op_ia"].astype(np.int16), more_rows["op_ib"].astype(np.int16)
    np.testing.assert_array_equal(more_rows["op_and"], ia & ib)
    np.testing.assert_array_equal(more_rows["op_or"], ia | ib)


@pytest.mark.parametrize("name, fn", [
    ("op_lt", np.less), ("op_gt", np.greater), ("op_le", np.less_equal),
    ("op_ge", np.greater_equal), ("op_eq", np.equal), ("op_ne", np.not_equal),
])
def test_compare_operators_write_one_bit_per_source_element(more_rows, name, fn):
    a, b = more_rows["op_a"], more_rows["op_b"]
    bits = np.packbits(fn(a, b), bitorder="little")
    got = more_rows[name].astype(np.uint8)
    np.testing.assert_array_equal(got[:8], bits)
    assert (got[8:] == 0xAA).all()  # the rest of the mask buffer is untouched


def test_select_with_bytes_mask(more_rows):
    src = more_rows["sel_src"].astype(np.float32).reshape(3, 16)
    mask = more_rows["sel_mask"].reshape(3, 32)[:, :16]
    np.testing.assert_array_equal(more_rows["sel_ts"].reshape(3, 16), np.where(mask == 0, src, np.float32(35.5)))
    np.testing.assert_array_equal(more_rows["sel_st"].reshape(3, 16), np.where(mask == 0, np.float32(-7.25), src))
    hs, hm = more_rows["selh_src"], more_rows["selh_mask"]
    np.testing.assert_array_equal(more_rows["selh"], np.where(hm == 0, hs, 2.0))


@pytest.mark.parametrize("case, kind", [
    ("selbytes_misaligned", "misaligned"),
    ("selbytes_mask_short", "invalid_argument"),
])
def test_operator_and_select_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)


@pytest.mark.parametrize("case", ["operator_dst_too_big", "selbytes_out_of_bounds"])
def test_operator_and_select_reads_past_their_sources_warn(more_exe, case):
    # both read their sources past the buffer's end (inside UB): the device runs that
    assert_fails(more_exe, case, "local_read_outside_buffer")
