"""Raw vector intrinsics kernels call on __ubuf__ pointers (cce_vector.h): vector_dup, vcadd, vor,
copy_ubuf_to_ubuf, vtranspose, set_va_reg_sb + scatter_vnchwconv_b16, the CTRL register
(get_ctrl / set_ctrl / sbitset0 / sbitset1), AscendDequant and the Region Proposal sort
(ProposalConcat, RpSort16, MrgSort4, ProposalExtract), against numpy; typed failures (unset VA register,
unsupported vcadd mode, an address range past UB)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails


def test_vector_dup_uses_the_mask_register(more_rows):
    exp = np.full(256, -1.0)
    exp[:16] = 7
    np.testing.assert_array_equal(more_rows["cce_dup"], exp)


def test_mask_mode_intrinsics(more_rows):
    np.testing.assert_array_equal(more_rows["cce_mask_modes"], [1.0, 0.0])


def test_ctrl_register(more_rows):
    np.testing.assert_array_equal(more_rows["cce_ctrl"], [1.0, 0.0, 5.0])


def test_ascend_dequant(more_rows):
    src = (np.arange(16) * 3 - 20).astype(np.float64)
    exp = np.full(32, -1.0)
    for r in range(2):  # {2, 8, 4}: 4 of each row of 8, into rows of 16 bfloat16 (32 bytes)
        exp[16 * r:16 * r + 4] = src[8 * r:8 * r + 4] * 0.5 * np.arange(1, 5)
    np.testing.assert_array_equal(more_rows["dequant_vec_bf16"], exp)  # exact in bfloat16
    np.testing.assert_array_equal(more_rows["dequant_scalar_f32"], src * 0.25)


def test_region_proposal_sort(more_rows):
    scores = np.array([(i * 7) % 32 - 10.0 for i in range(32)])
    props = more_rows["rp_sorted16"].reshape(32, 8)
    for g in range(2):  # each group of 16 sorted by score (element 4), the other elements 0
        np.testing.assert_array_equal(props[16 * g:16 * g + 16, 4], np.sort(scores[16 * g:16 * g + 16])[::-1])
    assert not props[:, [0, 1, 2, 3, 5]].any()
    np.testing.assert_array_equal(more_rows["rp_merged_scores"], np.sort(scores)[::-1])


def test_vcadd_sums_each_repeat(more_rows):
    x = more_rows["cce_vcadd_in"]
    exp = np.full(8, -1.0)
    exp[:2] = [x[:64].sum(), x[64:].sum()]
    np.testing.assert_array_equal(more_rows["cce_vcadd"], exp)


def test_vor(more_rows):
    a, b = more_rows["cce_vor_a"].astype(np.int16), more_rows["cce_vor_b"].astype(np.int16)
    np.testing.assert_array_equal(more_rows["cce_vor"], a | b)


def test_copy_ubuf_to_ubuf_bursts(more_rows):
    x = more_rows["cce_vcadd_in"]
    exp = np.full(32, -1.0)
    exp[:8], exp[8:16] = x[:8], x[16:24]
    np.testing.assert_array_equal(more_rows["cce_copy"], exp)


def test_vtranspose_and_scatter_vnchwconv(more_rows):
    x = more_rows["cce_tr_in"].reshape(16, 16)
    np.testing.assert_array_equal(more_rows["cce_tr"].reshape(16, 16), x.T)
    np.testing.assert_array_equal(more_rows["cce_scatter"].reshape(16, 16), x.T)


@pytest.mark.parametrize("case, kind", [
    ("cce_va_unset", "invalid_argument"),
    ("cce_vcadd_mode", "unsupported"),
    ("cce_outside_ub", "ub_overflow"),
])
def test_intrinsic_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)
