"""A Matmul object used directly (Init, no REGIST_MATMUL_OBJ) in a kernel that declares no kernel
type makes the launch MIX 1:2 as the compiler does: the cube cores run the code the kernel guards
with ASCEND_IS_AIV (gemm_v2's form), and an atomic-add GetTensorC into a reference output (input
and output of one name, one GM buffer) accumulates onto the input's values."""
from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import case_dtypes, check_case, timed_build
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

OP_DIR = FIXTURE_OPS / "matmul_ref_acc"


def test_unregistered_matmul_accumulates_into_reference_output(backend):
    op = Operator.load(OP_DIR)
    cases = load_op_cases(OP_DIR)
    build = timed_build(backend, op, case_dtypes(cases[0]))
    assert build.ok, build.error[-3000:]
    for i, case in enumerate(cases):
        runs = []
        res = check_case(backend, op, case, build, i, run_result_hook=runs.append)
        assert res.status == "ok", (case.name, res.message)
        assert runs[0].block_dim >= 1
