"""InferShape is a graph-mode function: an aclnn launch gets its outputs allocated by the caller
and a level-0 op runs InferShape only when it asks for it (INFER_SHAPE before
ADD_TO_LAUNCHER_LIST_AICORE). A case gives every output's shape, so an InferShape that
fails does not stop the run: the case runs with its shapes and the result notes why
InferShape failed (``infer_shape_note``); a tiling failure after it names it too."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

HOST = "op_host/scale_copy.cpp"
INFER_BODY = "    *context->GetOutputShape(0) = *context->GetInputShape(0);\n    return GRAPH_SUCCESS;\n"


@pytest.fixture(scope="module")
def failing_infer() -> Operator:
    base = Operator.load(FIXTURE_OPS / "scale_copy")
    text = base.files[HOST]
    assert INFER_BODY in text, "fixture changed"
    text = text.replace(INFER_BODY, '    std::printf("x format must be NCDHW");\n    return GRAPH_FAILED;\n', 1)
    if "<cstdio>" not in text:
        text = "#include <cstdio>\n" + text
    return base.with_file(HOST, text, origin="test/infer-shape-not-needed")


@pytest.fixture(scope="module")
def case():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}["many_cores"]


def test_case_runs_with_its_output_shapes(backend, failing_infer, case):
    [res] = check_operator(backend, failing_infer, [case], cfg=CheckConfig(timeout_s=60.0))
    assert res.status == "ok", f"{res.status}: {res.message[:2000]}"


def test_result_notes_the_failed_infer_shape(backend, failing_infer, case):
    build = backend.build(failing_infer, {"x": "float32", "y": "float32"})
    assert build.ok, build.error
    ins = make_inputs(case, 1)
    rr = backend.run(build, failing_infer, case, ins)
    assert rr.status.value == "ok", rr.message
    assert "InferShape returned GRAPH_FAILED" in rr.profile.get("infer_shape_note", "")
    assert rr.outputs["y"].shape == tuple(case.outputs[0].shape)


def test_tiling_failure_after_it_names_it(backend, failing_infer, case):
    text = failing_infer.files[HOST]
    old = "    return ge::GRAPH_SUCCESS;\n}"
    assert old in text, "fixture changed"
    op = failing_infer.with_file(HOST, text.replace(old, "    return ge::GRAPH_FAILED;\n}", 1),
                                 origin="test/infer-shape-not-needed")
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=60.0))
    assert res.status == "tiling_error"
    assert "the tiling function returned GRAPH_FAILED" in res.message
    assert "InferShape returned GRAPH_FAILED" in res.message
