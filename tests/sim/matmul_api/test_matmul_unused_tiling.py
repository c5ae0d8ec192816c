"""A Matmul object registered with a tiling that has no base sizes (the host left that object's
TCubeTiling zero: a path the launch does not take, as upsample_linear1d's second object in its
1-D mode) sets up nothing at Init and does not stop the launch; it fails only when used."""
from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

KERNEL = "op_kernel/matmul_api.cpp"
OP_DIR = FIXTURE_OPS / "matmul_api"
REGIST = "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);\n"


def _variant(use_it: bool) -> Operator:
    base = Operator.load(OP_DIR)
    text = base.files[KERNEL]
    assert REGIST in text, "fixture changed"
    second = ("    matmul::Matmul<AT, BT, CT, BiasT, CFG_MDL> unused;\n"
              "    TCubeTiling zero{};\n"
              "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t, unused, &zero);\n")
    text = text.replace(REGIST, second, 1)
    if use_it:
        text = text.replace("    mm.End();\n", "    unused.IterateAll(out);\n    mm.End();\n", 1)
    return base.with_file(KERNEL, text, origin="test/matmul-unused-tiling")


@pytest.fixture(scope="module")
def case():
    return {c.name: c for c in load_op_cases(OP_DIR)}["aligned_64x64x64"]


def test_unused_object_with_zero_tiling_runs(backend, case):
    [res] = check_operator(backend, _variant(False), [case], cfg=CheckConfig(timeout_s=60.0))
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"


def test_using_it_fails_at_first_use(backend, case):
    [res] = check_operator(backend, _variant(True), [case], cfg=CheckConfig(timeout_s=60.0))
    assert res.status == "runtime_error" and res.error_kind == "invalid_argument", res.message[:2000]
    assert "Matmul::IterateAll: the tiling given to Init has baseM 0" in res.message
