"""A Matmul object used directly (Init, no REGIST_MATMUL_OBJ) in a kernel that declares no kernel
type makes the launch MIX 1:2 as the compiler does: the cube cores run the code the kernel guards
with ASCEND_IS_AIV (gemm_v2's form), and an atomic-add GetTensorC into a reference output (input
and output of one name, one GM buffer) accumulates onto the input's values."""
from __future__ import annotations

from ...conftest import FIXTURE_OPS
from .fixture_cases import assert_cases_pass


def test_unregistered_matmul_accumulates_into_reference_output(backend):
    assert_cases_pass(backend, FIXTURE_OPS / "matmul_ref_acc")
