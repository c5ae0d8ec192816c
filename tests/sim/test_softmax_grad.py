"""SoftmaxGrad, kernel side (softmax_grad.h), with the host SoftMaxTiling class and
SoftMaxGradTilingFunc / GetSoftMaxGradMinTmpSize (ascendopt_host/softmax_tiling.h): the
SoftmaxGradRows fixture against numpy, both the full gradient and the isFront row sums."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


def test_softmax_grad_rows_match_numpy(backend):
    op = Operator.load(FIXTURE_OPS / "softmax_grad_rows")
    res = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "softmax_grad_rows"))
    assert res and all(r.status == "ok" for r in res), [(r.name, r.status, r.message[:2000]) for r in res]
    assert all(r.block_dim > 1 for r in res)


def test_a_shape_that_is_not_32_byte_aligned_is_typed(backend):
    op = Operator.load(FIXTURE_OPS / "softmax_grad_rows")
    text = op.files["op_kernel/softmax_grad_rows.cpp"]
    op = op.with_file("op_kernel/softmax_grad_rows.cpp",
                      text.replace("SoftMaxShapeInfo shape = {rows, t.cols, rows, t.cols};",
                                   "SoftMaxShapeInfo shape = {rows, t.cols - 1, rows, t.cols - 1};"))
    [r] = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "softmax_grad_rows"))
    assert r.status == "runtime_error" and r.error_kind == "misaligned", r.message
