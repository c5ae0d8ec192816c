"""Queue forms (tensor.h): TQueBind with a GM end keeps its buffers on chip (GM->VECIN is
TQue<VECIN>), the positional EnQue<src, dst>/DeQue<src, dst> of a VECIN<->VECOUT queue, a TQueConfig
queue, the in-place AllocTensor/DeQue and the untyped DeQue; results against numpy, misuse as typed
errors, and the race checker still sees an unordered copy-out."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails, run_case


def test_bound_queues_compute_through_ub(more_rows):
    x = more_rows["q_in"].astype(np.float32)
    np.testing.assert_array_equal(more_rows["q_out"], x * np.float32(3) + np.float32(1))
    np.testing.assert_array_equal(more_rows["q_out2"], x * np.float32(-2))
    assert more_rows["q_bind_pos"][0] == more_rows["q_vecin_pos"][0]  # GM->VECIN tensors are VECIN tensors


def test_untyped_dequeue_returns_the_buffer(more_rows):
    assert more_rows["q_handle_is_buffer"][0] == 1
    assert more_rows["q_handle_first"][0] == more_rows["q_in"][64]


def test_queue_runs_have_no_hazards(more_run):
    assert "ascendopt-warning" not in more_run.stderr, more_run.stderr


def test_positional_queue_orders_the_copy_out(more_exe):
    ok = run_case(more_exe, "race", "bind_positional")
    assert ok.returncode == 0 and "ascendopt-warning" not in ok.stderr, ok.stderr
    racy = run_case(more_exe, "race", "bind_skip_out_dequeue")
    assert racy.returncode == 0
    assert "ascendopt-warning: race:" in racy.stderr and "Muls" in racy.stderr, racy.stderr


@pytest.mark.parametrize("case, kind", [
    ("bind_gm_ub_overflow", "ub_overflow"),
    ("positional_mismatch", "queue_misuse"),
    ("positional_plain_mismatch", "queue_misuse"),
    ("positional_not_ub", "invalid_argument"),
    ("untyped_dequeue_empty", "queue_misuse"),
])
def test_queue_misuse_is_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)


def test_datacopypad_brace_lists(more_rows):
    # {1, 40, 0, 0} is a DataCopyParams (the toolkit's DataCopyExtParams needs all five values)
    exp = np.full(64, -1.0)
    exp[:10] = np.arange(10) + 0.5
    exp[16:21] = np.arange(16, 21) + 0.5
    np.testing.assert_array_equal(more_rows["pad_braces"], exp)


def test_a_tbuf_without_initbuffer_fails_where_it_is_used(more_exe):
    # Get on a TBuf that never got InitBuffer is harmless on the device (a kernel gets one for a
    # path it does not take); using the tensor is the error.
    ok = run_case(more_exe, "fail", "tbuf_uninit_unused")
    assert ok.returncode == 0 and "ascendopt-error" not in ok.stderr, ok.stderr
    assert_fails(more_exe, "tbuf_uninit_used", "invalid_argument")


def test_a_buffer_placed_past_the_end_of_ub_fails_where_it_is_used(more_exe):
    # The device's InitBuffer does not check the memory's size: a temporary the kernel sizes for
    # another dtype and never touches is harmless; touching it is the overflow.
    ok = run_case(more_exe, "fail", "ub_past_end_unused")
    assert ok.returncode == 0 and "ascendopt-error" not in ok.stderr, ok.stderr
    assert "did not fail" in ok.stderr
    assert_fails(more_exe, "ub_past_end_used", "ub_overflow")
