"""Matmul IterateBatch (NORMAL layout, GM in and out) against numpy: the cube-only form on an AIC
(SetBatchNum, then enPartialSum / enAtomic in the batch arguments' places, an explicit A stride)
and the mixed-mode form on the vector core (batch counts as arguments), each with equal and
broadcast batches; and the asynchronous flow on the vector core (Iterate<false>, then one
GetTensorC() per block, cached in the SetWorkspace workspace, placed by GetOffsetC)."""
from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS
from .fixture_cases import assert_cases_pass


def test_iterate_batch_matches_numpy(backend):
    assert_cases_pass(backend, FIXTURE_OPS / "matmul_batch")


def test_a_block_from_get_tensor_c_is_read_after_it_is_written(backend):
    # GetTensorC() returns the workspace block ready (the caller waits for the cube's Fixpipe):
    # the vector core's DataCopyPad of it is no race (quant_batch_matmul_v3's pertoken kernels).
    # Every batch through GetTensorC() (the fixture takes odd ones through GetTensorC(gm)).
    op_dir = FIXTURE_OPS / "matmul_batch"
    op = Operator.load(op_dir)
    kernel = "op_kernel/matmul_batch.cpp"
    assert "bool seq = bi % 2 == 1;" in op.files[kernel]
    op = op.with_file(kernel, op.files[kernel].replace("bool seq = bi % 2 == 1;", "bool seq = false;"))
    cases = [c for c in load_op_cases(op_dir) if c.name.startswith("workspace_")]
    assert len(cases) == 2
    for res in check_operator(backend, op, cases, cfg=CheckConfig(strict=True)):
        assert res.status == "ok" and not res.warnings, (res.name, res.message[-2000:], res.warnings)
