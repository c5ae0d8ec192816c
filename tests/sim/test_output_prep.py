"""What the framework does to outputs around a launch, as the OpDef asks (runtime/output_prep.h):
OpParamDef::InitValue fills an output before the kernel (0, one typed value, or one per dtype
combination; the init_sum fixture only atomic-adds into them), OutputShapeDependOnCompute
gives the kernel a shape-out argument whose shape the runner checks (shape_out_prefix fixture),
and an output named like an input is that input (ref_head_add updates only part of it)."""

from __future__ import annotations

import numpy as np
import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


def run(backend, op, case):
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=60.0))
    return res


@pytest.fixture(scope="module")
def init_sum() -> Operator:
    return Operator.load(FIXTURE_OPS / "init_sum")


@pytest.fixture(scope="module")
def prefix() -> Operator:
    return Operator.load(FIXTURE_OPS / "shape_out_prefix")


@pytest.mark.parametrize("name", ["float", "int32"])
def test_init_value_outputs_start_at_their_value(backend, init_sum, name):
    [case] = [c for c in load_op_cases(FIXTURE_OPS / "init_sum") if c.name == name]
    res = run(backend, init_sum, case)
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"


def test_init_value_bytes_per_combination(backend, init_sum):
    from ascendopt.cases import make_inputs

    [case] = [c for c in load_op_cases(FIXTURE_OPS / "init_sum") if c.name == "int32"]
    build = backend.build(init_sum, {"x": "int32", "y": "int32", "z": "int32", "w": "float16"})
    assert build.ok, build.error
    ins = make_inputs(case, 3)
    rr = backend.run(build, init_sum, case, ins)
    assert rr.status.value == "ok", rr.message
    s = ins["x"].astype(np.int64).reshape(-1, 8).sum(axis=0)
    np.testing.assert_array_equal(rr.outputs["y"], s.astype(np.int32))
    np.testing.assert_array_equal(rr.outputs["z"], (s + 7).astype(np.int32))  # the int32 combination's value
    assert rr.outputs["w"].view(np.uint16).tolist() == [0xBC00] * 8  # float16 -1.0


def test_shape_out_argument_reports_the_computed_shape(backend, prefix):
    [case] = load_op_cases(FIXTURE_OPS / "shape_out_prefix")
    res = run(backend, prefix, case)
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"


def test_a_wrong_reported_shape_is_an_error(backend, prefix):
    text = prefix.files["op_kernel/shape_out_prefix.cpp"]
    op = prefix.with_file("op_kernel/shape_out_prefix.cpp",
                          text.replace("shapeGm.SetValue(1, n);", "shapeGm.SetValue(1, n + 1);"), origin="test")
    [case] = load_op_cases(FIXTURE_OPS / "shape_out_prefix")
    res = run(backend, op, case)
    assert (res.status, res.error_kind) == ("runtime_error", "output_shape"), res.message
    assert "output y of shape [8]" in res.message and "expects [7]" in res.message


def test_an_output_named_like_an_input_is_that_input(backend):
    op = Operator.load(FIXTURE_OPS / "ref_head_add")
    [case] = load_op_cases(FIXTURE_OPS / "ref_head_add")
    res = run(backend, op, case)
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"
    assert res.max_abs_err < 1e-6
