"""TransDataTo5HD (transdata.h): b16 / b32 / b8 transposes in every call form against numpy
(matrix transposes, NCHW -> HWC0), the repeatTimes == 1 offset rule, typed failures."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails


def test_b16_transpose_and_impl_form(more_rows):
    x = more_rows["td_h_in"].reshape(16, 16)
    np.testing.assert_array_equal(more_rows["td_h_t"].reshape(16, 16), x.T)
    np.testing.assert_array_equal(more_rows["td_impl_t"].reshape(16, 16), x.T)


def test_single_repeat_starts_one_stride_further(more_rows):
    x = more_rows["td_h_in32"].reshape(16, 32)
    np.testing.assert_array_equal(more_rows["td_h_shift"].reshape(16, 16), x[:, 16:].T)


def test_b32_nchw_to_hwc0_over_repeats(more_rows):
    x = more_rows["td_f_in"].reshape(16, 16)  # C x HW
    np.testing.assert_array_equal(more_rows["td_f_out"].reshape(16, 16), x.T)  # HW x C0


def test_b8_halves_make_a_32x32_transpose(more_rows):
    x = more_rows["td_b_in"].reshape(32, 32)
    np.testing.assert_array_equal(more_rows["td_b_t"].reshape(32, 32), x.T)


@pytest.mark.parametrize("case, kind", [
    ("transdata_misaligned", "misaligned"),
    ("transdata_out_of_bounds", "local_out_of_bounds"),
])
def test_transdata_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)


def test_kernel_two_type_ceildiv_wins(more_rows):
    # pad kernels define CeilDiv<T1, T2>; it must not clash with the toolkit's mixed-type one
    assert more_rows["own_ceildiv2"][0] == 709
    assert more_rows["own_ceildiv2_same"][0] == 709
    assert more_rows["toolkit_ceildiv"][0] == 9


def test_scalar_cast_and_mixed_ceil(more_rows):
    x = more_rows["scast_in"].astype(np.float32)
    np.testing.assert_array_equal(more_rows["scast_round"], np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)))
    np.testing.assert_array_equal(more_rows["scast_ceil"], np.ceil(x))
    np.testing.assert_array_equal(more_rows["scast_floor"], np.floor(x))
    np.testing.assert_array_equal(more_rows["scast_rint"], np.rint(x))
    # round to odd: an inexact result keeps the neighbour whose last mantissa bit is 1
    h = more_rows["scast_half"]
    exact = x.astype(np.float16).astype(np.float32) == x
    assert (h[exact] == x[exact]).all()
    bits = h[~exact].astype(np.float16).view(np.uint16)
    assert (bits & 1).all() and (np.abs(h[~exact] - x[~exact]) < 2e-3).all()
    assert more_rows["ceil_mixed"][0] == 9


def test_gatherb_blocks(more_rows):
    src = np.arange(512).reshape(32, 16)
    exp = np.full((32, 16), 0xFFFF)
    off = more_rows["gb_off"].astype(int) // 32
    for i in range(2):
        for j in range(8):
            exp[i * 16 + j * 2] = src[off[i * 8 + j]]
    np.testing.assert_array_equal(more_rows["gb_dst"].reshape(32, 16), exp)


def test_gatherb_misaligned_offset(more_exe):
    assert_fails(more_exe, "gatherb_misaligned", "misaligned")
