"""Helpers for the timing tests: macro variants of fixture operators and direct runs."""

from __future__ import annotations

import re
from pathlib import Path

from ascendopt.backends.base import Status
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS


def load(name: str) -> tuple[Operator, dict]:
    op = Operator.load(FIXTURE_OPS / name)
    return op, {c.name: c for c in load_op_cases(FIXTURE_OPS / name)}


def variant(op: Operator, rel: str, **macros) -> Operator:
    text = op.files[rel]
    for k, v in macros.items():
        new, n = re.subn(rf"#define {k} .*", f"#define {k} {v}", text, count=1)
        assert n == 1, f"macro {k} not in {rel}"
        text = new
    return op.with_file(rel, text, origin="test/timing")


def run(backend, op: Operator, case, expect_ok: bool = True):
    build = backend.build(op, case_dtypes(case))
    assert build.ok, build.error
    rr = backend.run(build, op, case, make_inputs(case, 0))
    if expect_ok:
        assert rr.status == Status.OK, rr.message
    return rr


def instr(rr, name: str, pipe: str) -> tuple[int, float]:
    """(count, cycles) of an instruction summed over cores."""
    n, cyc = 0, 0.0
    for core in rr.profile["cores"]:
        for i in core["instrs"]:
            if i["name"] == name and i["pipe"] == pipe:
                n += i["count"]
                cyc += i["cycles"]
    return n, cyc
