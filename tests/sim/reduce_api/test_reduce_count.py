"""The count form of ReduceSum (the tensor's first n elements) on A2, as its documentation
states it: one counter-mode vcadd into the ACC register and dst[0]; repeat sums (a binary tree
within each repeat) added in order; sharedTmpBuffer not used (a kernel may pass its source as
the work buffer); isSetMask = false sums what the mask the kernel set selects (count has no
effect), the default form sets its own mask and leaves the register in normal mode, all lanes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..unit_build import unit_exe, unit_rows

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, np.ndarray]:
    return unit_rows(unit_exe(HERE / "reduce_count_unit.cpp", tmp_path_factory.mktemp("reduce_count")))


def _tree(v: np.ndarray, dt) -> float:
    """Binary-tree sum of one repeat, rounded to dt."""
    v = v.astype(np.float64)
    while v.size > 1:
        if v.size % 2:
            v = np.append(v, 0.0)
        v = (v[0::2] + v[1::2]).astype(dt).astype(np.float64)
    return float(v[0])


def _count_form(x: np.ndarray, n: int, dt) -> float:
    per = 256 // np.dtype(dt).itemsize
    acc = 0.0
    for r in range(0, n, per):
        acc = float(np.asarray(acc + _tree(x[r:min(n, r + per)], dt)).astype(dt))
    return acc


def test_work_buffer_is_not_written(rows):
    x = rows["wu_x"].astype(np.float32)
    after = rows["wu_after"].astype(np.float32)
    want = x.copy()
    want[512] = np.float32(x[:300].astype(np.float64).sum())
    np.testing.assert_array_equal(np.delete(after, 512), np.delete(x, 512))  # src/work untouched
    assert after[512] == pytest.approx(want[512], rel=1e-6)
    assert rows["wu_acc"][0] == pytest.approx(want[512], rel=1e-6)


def test_is_set_mask_false_uses_the_kernels_mask(rows):
    x = rows["mk_x"].astype(np.float32)
    assert rows["mk_counter"][0] == pytest.approx(x[:200].astype(np.float64).sum(), rel=1e-5, abs=1e-5)
    assert rows["mk_counter_acc"][0] == rows["mk_counter"][0]
    assert rows["mk_normal"][0] == pytest.approx(x[:40].astype(np.float64).sum(), rel=1e-5, abs=1e-5)
    assert rows["mk_full"][0] == pytest.approx(x[:64].astype(np.float64).sum(), rel=1e-5, abs=1e-5)  # FULL_MASK


def test_default_form_sets_and_resets_the_mask(rows):
    x = rows["mk_x"].astype(np.float32)
    assert rows["mk_default"][0] == pytest.approx(x[:3].astype(np.float64).sum(), rel=1e-6, abs=1e-6)
    add = rows["mk_add"].astype(np.float32)
    np.testing.assert_array_equal(add[256:256 + 64], (x[:64] + x[:64]))
    np.testing.assert_array_equal(add[256 + 64:], x[256 + 64:])  # one repeat only: normal mode


def test_half_repeat_sums_added_in_order(rows):
    x = rows["ho_x"].astype(np.float16)
    assert rows["ho_sum"][0] == _count_form(x, 1000, np.float16)
