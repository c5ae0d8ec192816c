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
