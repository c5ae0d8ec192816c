"""Every failure type the simulator reports, each triggered by a one-edit variant of a good
kernel. The variants are new immutable Operators derived with `with_file`."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


def edit(op: Operator, rel: str, old: str, new: str) -> Operator:
    text = op.files[rel]
    assert old in text, f"fixture changed: {old!r} not in {rel}"
    return op.with_file(rel, text.replace(old, new, 1), origin="test/fault")


def run(backend, op, cases, name="many_cores", timeout_s=30.0):
    [res] = check_operator(backend, op, [cases[name]], cfg=CheckConfig(timeout_s=timeout_s))
    return res


def test_good_kernel_passes(backend, base, cases):
    for name in cases:
        res = run(backend, base, cases, name)
        assert res.status == "ok", res.message
        assert res.max_abs_err == 0.0
        assert res.block_dim > 1


def test_compile_error_points_at_the_operator_file(backend, base, cases):
    op = edit(base, KERNEL, "uint32_t tiles =", "uint32_t tiles = undefined_name +")
    res = run(backend, op, cases)
    assert res.status == "compile_error"
    assert "op_kernel/scale_copy.cpp:" in res.message
    assert "undefined_name" in res.message


def test_tiling_failure(backend, base, cases):
    op = edit(base, HOST, "return ge::GRAPH_SUCCESS;", "return ge::GRAPH_FAILED;")
    assert run(backend, op, cases).status == "tiling_error"


@pytest.mark.parametrize(
    "where,old,new,kind",
    [
        (HOST, "uint32_t tileLength = 1024;", "uint32_t tileLength = 40000;", "ub_overflow"),
        (KERNEL, "DataCopyPad(xLocal, xGm[i * tileLength], params, pad);",
         "DataCopy(xLocal[3], xGm[i * tileLength], 8);", "misaligned"),
        (KERNEL, "DataCopyPad(xLocal, xGm[i * tileLength], params, pad);",
         "DataCopy(xLocal, xGm[i * tileLength], 7);", "misaligned"),
        (KERNEL, "DataCopyPad(yGm[i * tileLength], yLocal, params);",
         "DataCopyPad(yGm[i * tileLength + 300000], yLocal, params);", "gm_out_of_bounds"),
        (KERNEL, "LocalTensor<float> yLocal = outQueue.AllocTensor<float>();",
         "LocalTensor<float> yLocal = outQueue.AllocTensor<float>(); inQueue.DeQue<float>();", "queue_misuse"),
        (KERNEL, "inQueue.FreeTensor(xLocal);", "", "queue_misuse"),
        (KERNEL, "uint32_t tiles =", "if (GetBlockIdx() == 0) { SyncAll(); }\n        uint32_t tiles =", "deadlock"),
        (KERNEL, "uint32_t tiles =", "assert(GetBlockNum() == 1000);\n        uint32_t tiles =", "assert_failed"),
        (KERNEL, "uint32_t tiles =", "if (GetBlockIdx() == 1) { *(volatile int*)nullptr = 1; }\n        uint32_t tiles =",
         "segfault"),
    ],
    ids=["ub_overflow", "misaligned_address", "misaligned_length", "gm_oob", "deque_empty",
         "alloc_without_free", "deadlock", "assert", "segfault"],
)
def test_runtime_errors_are_typed(backend, base, cases, where, old, new, kind):
    res = run(backend, edit(base, where, old, new), cases)
    assert res.status == "runtime_error", res
    assert res.error_kind == kind, res.message
    assert res.message


def test_timeout_kills_a_looping_kernel(backend, base, cases):
    op = edit(base, KERNEL, "uint32_t tiles =", "volatile int spin = 1; while (spin) {}\n        uint32_t tiles =")
    res = run(backend, op, cases, timeout_s=2.0)
    assert res.status == "timeout"


def test_wrong_result(backend, base, cases):
    res = run(backend, edit(base, KERNEL, "2.0f, n);", "2.5f, n);"), cases)
    assert res.status == "wrong_result"
    assert res.mismatch_ratio > 0.5


def test_unwritten_output_is_garbage_not_zero(backend, base, cases):
    # Skipping the copy-out on one core must be caught: outputs start as garbage.
    op = edit(base, KERNEL, "DataCopyPad(yGm[i * tileLength], yLocal, params);",
              "if (GetBlockIdx() != 2) DataCopyPad(yGm[i * tileLength], yLocal, params);")
    assert run(backend, op, cases).status == "wrong_result"
