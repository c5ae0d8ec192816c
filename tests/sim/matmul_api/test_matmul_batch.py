"""Matmul IterateBatch (NORMAL layout, GM in and out) against numpy: the cube-only form on an AIC
(SetBatchNum, then enPartialSum / enAtomic in the batch arguments' places, an explicit A stride)
and the mixed-mode form on the vector core (batch counts as arguments), each with equal and
broadcast batches; and the asynchronous flow on the vector core (Iterate<false>, then one
GetTensorC() per block, cached in the SetWorkspace workspace, placed by GetOffsetC)."""
from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import case_dtypes, check_case, timed_build
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

OP_DIR = FIXTURE_OPS / "matmul_batch"


def test_iterate_batch_matches_numpy(backend):
    op = Operator.load(OP_DIR)
    cases = load_op_cases(OP_DIR)
    build = timed_build(backend, op, case_dtypes(cases[0]))
    assert build.ok, build.error[-3000:]
    for i, case in enumerate(cases):
        res = check_case(backend, op, case, build, i)
        assert res.status == "ok", (case.name, res.message)
