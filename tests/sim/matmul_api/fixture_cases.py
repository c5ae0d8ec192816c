"""Build a fixture operator and check every case of its own case file (Matmul fixture tests)."""
from __future__ import annotations

from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import case_dtypes, check_case, timed_build
from ascendopt.operator import Operator


def assert_cases_pass(backend, op_dir: Path) -> None:
    """Every case of the operator at `op_dir` passes against its golden (one build)."""
    op = Operator.load(op_dir)
    cases = load_op_cases(op_dir)
    build = timed_build(backend, op, case_dtypes(cases[0]))
    assert build.ok, build.error[-3000:]
    for i, case in enumerate(cases):
        res = check_case(backend, op, case, build, i)
        assert res.status == "ok", (case.name, res.message)
