"""Dynamic (list) parameters in case files: both forms, malformed entries, inputs and goldens
with lists."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ascendopt.cases import CaseError, group_params, load_case_file, make_inputs, run_golden


def write(tmp_path: Path, inputs: list[dict], outputs: list[dict] | None = None) -> Path:
    outputs = outputs if outputs is not None else [{"name": "y", "type": "float", "shape": [4]}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"case_name": "c", "op": "Op", "input_desc": inputs, "output_desc": outputs}]))
    return path


LIST_OUT = [{"name": "y", "dynamic": True, "type": "float", "shape": [[16, 32], [7], [100]]}]


def test_whole_list_entry_gives_one_tensor_per_shape(tmp_path):
    [case] = load_case_file(write(tmp_path, [
        {"name": "x", "dynamic": True, "type": "float16", "shape": [[16, 32], [7], [100]], "value_range": [1, 2]},
        {"name": "s", "type": "float", "shape": [1]}], LIST_OUT))
    xs = case.inputs[:3]
    assert [(t.name, t.index, t.shape, t.key) for t in xs] == [
        ("x", 0, (16, 32), "x[0]"), ("x", 1, (7,), "x[1]"), ("x", 2, (100,), "x[2]")]
    assert all(t.dtype == "float16" and t.value_range == (1.0, 2.0) for t in xs)
    assert case.inputs[3].key == "s" and not case.inputs[3].dynamic
    assert [(n, len(ts), d) for n, ts, d in group_params(case.inputs)] == [("x", 3, True), ("s", 1, False)]
    assert [t.key for t in case.outputs] == ["y[0]", "y[1]", "y[2]"]
    arrays = make_inputs(case, 0)
    assert list(arrays) == ["x[0]", "x[1]", "x[2]", "s"]
    assert arrays["x[0]"].shape == (16, 32) and arrays["x[2]"].dtype == np.float16


def test_entry_per_tensor_form_matches_the_whole_list_form(tmp_path):
    entries = [{"dynamic_input": "x", "type": "float", "shape": [16, 32]},
               {"name": "s", "type": "float", "shape": [1]},
               {"dynamic_input": "x", "type": "float16", "shape": [7]}]
    outs = [{"dynamic_output": "y", "type": "float", "shape": [3]}, {"dynamic_output": "y", "type": "float", "shape": [5]}]
    [case] = load_case_file(write(tmp_path, entries, outs))
    # a list's tensors are gathered where its first one stands, numbered in order
    assert [(t.key, t.dtype, t.shape) for t in case.inputs] == [
        ("x[0]", "float", (16, 32)), ("x[1]", "float16", (7,)), ("s", "float", (1,))]
    assert [t.key for t in case.outputs] == ["y[0]", "y[1]"]


def test_variants_of_a_list(tmp_path):
    cases = load_case_file(write(tmp_path, [
        {"name": "x", "dynamic": True, "type": ["float16", "float"], "shape": [[[2], [3]], [[4]]]}],
        [{"name": "y", "dynamic": True, "type": ["float16", "float"], "shape": [[[2], [3]], [[4]]]}]))
    assert [(c.name, [t.shape for t in c.inputs]) for c in cases] == [
        ("c_float16", [(2,), (3,)]), ("c_float", [(4,)])]


@pytest.mark.parametrize("desc,match", [
    ({"name": "x", "dynamic": True, "type": "float", "shape": []}, "non-empty list of shapes"),
    ({"name": "x", "dynamic": True, "type": "float", "shape": [4, 5]}, "non-empty list of shapes"),
    ({"name": "x", "dynamic": True, "type": "float", "shape": [[4], [[5]]]}, "non-empty list of shapes"),
    ({"name": "x", "dynamic": True, "type": "float", "shape": [[4], [-1]]}, "invalid shape"),
    ({"name": "x", "dynamic": "yes", "type": "float", "shape": [[4]]}, "'dynamic' must be true or false"),
    ({"dynamic_input": 3, "type": "float", "shape": [4]}, "must name the list parameter"),
    ({"dynamic_input": "", "type": "float", "shape": [4]}, "must name the list parameter"),
    ({"dynamic_output": "x", "type": "float", "shape": [4]}, "belongs in output_desc"),
    ({"dynamic_input": "x", "dynamic": True, "type": "float", "shape": [[4]]}, "not both"),
    ({"dynamic_input": "x", "name": "z", "type": "float", "shape": [4]}, "differs from 'dynamic_input'"),
    ({"name": "x", "dynamic": True, "type": "float", "shape": [[2]], "value": [1, 2]}, "'value' is not supported"),
])
def test_malformed_list_entries(tmp_path, desc, match):
    with pytest.raises(CaseError, match=match):
        load_case_file(write(tmp_path, [desc]))


def test_list_name_clashing_with_a_tensor(tmp_path):
    with pytest.raises(CaseError, match="duplicate tensor/attr names"):
        load_case_file(write(tmp_path, [{"dynamic_input": "x", "type": "float", "shape": [4]},
                                        {"name": "x", "type": "float", "shape": [4]}]))
    with pytest.raises(CaseError, match="belongs in input_desc"):
        load_case_file(write(tmp_path, [{"name": "x", "type": "float", "shape": [4]}],
                             [{"dynamic_input": "y", "type": "float", "shape": [4]}]))


def _case(tmp_path, outputs=None):
    [case] = load_case_file(write(tmp_path, [
        {"name": "x", "dynamic": True, "type": "float", "shape": [[2, 3], [5]]},
        {"name": "s", "type": "float", "shape": [1], "value": [2.0]}], outputs or [
        {"name": "y", "dynamic": True, "type": "float", "shape": [[2, 3], [5]]}]))
    return case, make_inputs(case, 3)


def test_golden_gets_lists_and_returns_a_list_per_list_output(tmp_path):
    case, ins = _case(tmp_path)
    seen = {}

    def golden(x, s, y):
        seen.update(x=x, s=s, y=y)
        return [[t["value"] * s["value"][0] for t in x]]

    out = run_golden(golden, case, ins)
    assert isinstance(seen["x"], list) and [d["shape"] for d in seen["x"]] == [[2, 3], [5]]
    assert seen["x"][0]["param_type"] == "dynamic" and seen["s"]["param_type"] == "required"
    assert isinstance(seen["y"], list) and len(seen["y"]) == 2 and "value" not in seen["y"][0]
    np.testing.assert_array_equal(out[0], ins["x[0]"] * 2)
    np.testing.assert_array_equal(out[1], ins["x[1]"] * 2)
    # a lone list output may come back as the bare list of arrays
    out2 = run_golden(lambda x, s, y: [t["value"] * 2 for t in x], case, ins)
    assert [a.shape for a in out2] == [(2, 3), (5,)]


def test_golden_list_output_errors(tmp_path):
    case, ins = _case(tmp_path, [{"name": "y", "dynamic": True, "type": "float", "shape": [[2, 3], [5]]},
                                 {"name": "z", "type": "float", "shape": [1]}])
    with pytest.raises(CaseError, match="'y' is a list of 2 tensors; the golden returned 1 arrays"):
        run_golden(lambda x, s, y, z: [[x[0]["value"]], np.zeros(1)], case, ins)
    with pytest.raises(CaseError, match="golden output 'y\\[1\\]' has 6 elements"):
        run_golden(lambda x, s, y, z: [[x[0]["value"], x[0]["value"]], np.zeros(1)], case, ins)
