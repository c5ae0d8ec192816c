"""Tensor lists end to end on the list_scale fixture (a DYNAMIC input list of tensors of
different sizes and a DYNAMIC output list): the host tiling sees the instances, the kernel
gets each list as its GM descriptor (read with ListTensorDesc and by hand), outputs come back
and are compared per tensor, and the per-tensor GM checks still apply."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from ascendopt.cases import load_case_file, load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/list_scale.cpp"


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "list_scale")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "list_scale")}


def edit(op: Operator, old: str, new: str) -> Operator:
    text = op.files[KERNEL]
    assert old in text, f"fixture changed: {old!r}"
    return op.with_file(KERNEL, text.replace(old, new, 1), origin="test/list")


def run(backend, op, case):
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=60.0))
    return res


def test_lists_of_different_sizes_match_numpy(backend, base, cases):
    case = cases["three_sizes"]
    assert [t.shape for t in case.inputs] == [(16, 32), (7,), (3, 1001), (1,)]
    for name in ("three_sizes", "entries"):
        res = run(backend, base, cases[name])
        assert res.status == "ok", f"{name}: {res.status} ({res.error_kind}): {res.message[:2000]}"
        # the kernel reads the output list's address table through a raw __gm__ pointer: a scalar
        # GM read on the device, timed and warned (issue 30)
        assert res.max_abs_err == 0 and {w["kind"] for w in res.warnings} <= {"raw_gm_access"}
        assert res.block_dim == len([t for t in cases[name].inputs if t.dynamic])


def test_outputs_come_back_per_tensor(backend, base, cases):
    from ascendopt.cases import make_inputs

    case = cases["three_sizes"]
    build = backend.build(base, {"x": "float", "scale": "float", "y": "float"})
    assert build.ok, build.error
    ins = make_inputs(case, 5)
    rr = backend.run(build, base, case, ins)
    assert rr.status.value == "ok", rr.message
    assert sorted(rr.outputs) == ["y[0]", "y[1]", "y[2]"]
    for i in range(3):
        np.testing.assert_array_equal(rr.outputs[f"y[{i}]"], ins[f"x[{i}]"] * np.float32(1.5))


def test_a_wrong_tensor_of_an_output_list_is_named(backend, base, cases, tmp_path):
    golden = tmp_path / "g.py"
    golden.write_text("def g(x, scale, y):\n"
                      "    out = [t['value'] * scale['value'][0] for t in x]\n"
                      "    out[2] = out[2] + 1\n"
                      "    return [out]\n")
    case = dataclasses.replace(cases["three_sizes"], golden=f"{golden}:g")
    res = run(backend, base, case)
    assert res.status == "wrong_result" and res.message.startswith("y[2]:"), res.message


def test_writing_past_one_tensor_of_a_list_is_out_of_bounds(backend, base, cases):
    # 7 floats + 256: past the 512-byte block the allocator hands out (gm_write_past_end up to it)
    op = edit(base, "count = n;", "count = n + (b == 1 ? 256 : 0);")
    res = run(backend, op, cases["three_sizes"])
    assert (res.status, res.error_kind) == ("runtime_error", "gm_out_of_bounds"), res.message
    assert "'output y[1]'" in res.message


def test_reading_past_the_list_is_out_of_bounds(backend, base, cases):
    op = edit(base, "xs.GetDataPtr<float>(b)", "xs.GetDataPtr<float>(b + t.count)")
    res = run(backend, op, cases["three_sizes"])
    assert (res.status, res.error_kind) == ("runtime_error", "gm_out_of_bounds"), res.message
    assert "holds 3 tensors" in res.message


def test_a_list_given_as_one_tensor_is_refused(backend, base, tmp_path):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"case_name": "plain", "op": "ListScale", "input_desc": [
        {"name": "x", "type": "float", "shape": [8]}, {"name": "scale", "type": "float", "shape": [1]}],
        "output_desc": [{"name": "y", "dynamic": True, "type": "float", "shape": [[8]]}]}]))
    [case] = load_case_file(path)
    res = run(backend, base, case)
    assert res.status == "tiling_error", res.message
    assert "input 'x' is a dynamic (list) parameter in the OpDef" in res.message


def _in_place_case(tmp_path, declare: bool):
    path = tmp_path / "inplace.json"
    golden = tmp_path / "g_inplace.py"
    golden.write_text("def g(x, scale, x_out):\n"
                      "    return [[t['value'] * scale['value'][0] for t in x]]\n")
    outs = [{"name": "x", "dynamic": True, "type": "float", "shape": [[40], [3, 5]]}] if declare else []
    path.write_text(json.dumps([{"case_name": "inplace", "op": "ListScale",
                                 "calc_expect_func_file": f"{golden}:g" if declare else None,
                                 "input_desc": [{"name": "x", "dynamic": True, "type": "float", "shape": [[40], [3, 5]]},
                                                {"name": "scale", "type": "float", "shape": [1], "value": [2.0]}],
                                 "output_desc": outs}]))
    [case] = load_case_file(path)
    return case


def test_an_input_updated_in_place_is_an_output_of_the_same_name(backend, base, tmp_path):
    op = edit(base, "DataCopyPad(yGm[i * tileLength], yLocal, params);",
              "DataCopyPad(xGm[i * tileLength], yLocal, params);")
    res = run(backend, op, _in_place_case(tmp_path, declare=False))
    assert (res.status, res.error_kind) == ("runtime_error", "input_modified"), res.message
    assert "input x[0]" in res.message
    res = run(backend, op, _in_place_case(tmp_path, declare=True))
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"
    assert res.max_abs_err == 0
