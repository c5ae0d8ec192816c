"""A tiling function that fails says why through its own log macros (cann-ops defines them as
``std::printf`` to stdout; the simulator's ``OP_LOGE`` writes ``[E]`` lines to stderr): the
reason reaches the run result's message, on its first line (the line ``compat`` reports)."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

HOST = "op_host/scale_copy.cpp"


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def case():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}["many_cores"]


def _failing(base: Operator, report: str) -> Operator:
    text = base.files[HOST]
    old = "    return ge::GRAPH_SUCCESS;\n}"
    assert old in text, "fixture changed"
    text = text.replace(old, f"    {report}\n    return ge::GRAPH_FAILED;\n}}", 1)
    if "<cstdio>" not in text:
        text = "#include <cstdio>\n" + text
    return base.with_file(HOST, text, origin="test/tiling-reason")


def test_reason_printed_to_stdout_is_in_the_message(backend, base, case):
    op = _failing(base, 'std::printf("Not supported x format.");')
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=30.0))
    assert res.status == "tiling_error"
    first = res.message.splitlines()[0]
    assert "GRAPH_FAILED" in first
    assert "Not supported x format." in first


def test_reason_logged_with_op_loge_is_in_the_message(backend, base, case):
    op = _failing(base, 'OP_LOGE(context->GetNodeName(), "tile count %d is too large", 7);')
    text = op.files[HOST]
    if "log/ops_log.h" not in text:
        op = op.with_file(HOST, '#include "log/ops_log.h"\n' + text, origin="test/tiling-reason")
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=30.0))
    assert res.status == "tiling_error"
    assert "tile count 7 is too large" in res.message.splitlines()[0]
