"""Cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag): a mode-0 flag is an all-core meeting
point (cores run one at a time; a waiting core gives its turn away), modes 1 and 2 stay inside one
block, and a wait nobody can satisfy is a Deadlock, not a hang."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/flag_sum.cpp"
MEET = "CrossCoreSetFlag<0, PIPE_MTE3>(1);\n    CrossCoreWaitFlag(1);"


def _variant(old: str, new: str) -> Operator:
    op = Operator.load(FIXTURE_OPS / "flag_sum")
    text = op.files[KERNEL]
    assert old in text
    return op.with_file(KERNEL, text.replace(old, new, 1))


def _check(backend, op):
    [res] = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "flag_sum"))
    return res


def test_mode0_flag_meets_all_cores_before_block0_reads_their_partials(backend):
    res = _check(backend, Operator.load(FIXTURE_OPS / "flag_sum"))
    assert res.status == "ok", res.message
    assert res.block_dim > 8


def test_without_the_meeting_block0_reads_partials_not_yet_written(backend):
    res = _check(backend, _variant(MEET, ""))
    assert res.status == "wrong_result", res.message


def test_mode1_does_not_cross_blocks(backend):
    # Mode 1 syncs the vector sub-cores of one AI core only: block 0 does not wait for the others.
    res = _check(backend, _variant("CrossCoreSetFlag<0, PIPE_MTE3>(1);", "CrossCoreSetFlag<1, PIPE_MTE3>(1);"))
    assert res.status == "wrong_result", res.message


def test_a_core_that_never_sets_the_flag_is_a_deadlock(backend):
    res = _check(backend, _variant("CrossCoreSetFlag<0, PIPE_MTE3>(1);",
                                   "if (GetBlockIdx() != 3) CrossCoreSetFlag<0, PIPE_MTE3>(1);"))
    assert res.status == "runtime_error" and res.error_kind == "deadlock", res.message
    assert "CrossCoreWaitFlag(1)" in res.message


def test_waiting_twice_after_one_set_is_a_deadlock(backend):
    res = _check(backend, _variant(MEET, MEET + "\n    CrossCoreWaitFlag(1);"))
    assert res.status == "runtime_error" and res.error_kind == "deadlock", res.message


def test_mode2_set_then_wait_in_one_block_orders_and_passes(backend):
    # Cube and vector halves of a block run on one emulated core: a mode-2 set is seen by the
    # same block's wait; a second meeting on another flag id keeps working.
    res = _check(backend, _variant(MEET, MEET + "\n    CrossCoreSetFlag<2, PIPE_MTE3>(5);\n    CrossCoreWaitFlag(5);"))
    assert res.status == "ok", res.message


def test_flag_id_outside_the_hardware_range_is_invalid(backend):
    res = _check(backend, _variant(MEET, "CrossCoreSetFlag<0, PIPE_MTE3>(16);\n    CrossCoreWaitFlag(16);"))
    assert res.status == "runtime_error" and res.error_kind == "invalid_argument", res.message


def test_ffts_cross_core_sync_is_the_set_flag_instruction(backend):
    # weight_quant_batch_matmul_v2: ffts_cross_core_sync(pipe, 1 | mode << 4 | flagId << 8).
    res = _check(backend, _variant("CrossCoreSetFlag<0, PIPE_MTE3>(1);", "ffts_cross_core_sync(PIPE_MTE3, 1 | (0 << 4) | (1 << 8));"))
    assert res.status == "ok", res.message
    res = _check(backend, _variant("CrossCoreSetFlag<0, PIPE_MTE3>(1);", "ffts_cross_core_sync(PIPE_MTE3, 1 | (1 << 4) | (1 << 8));"))
    assert res.status == "wrong_result", res.message  # mode 1, as CrossCoreSetFlag<1, ...>
