"""Helpers for motif tests: check a (rewritten) operator on its own cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS, ROOT

OPS = ROOT / "ops"


def load(path: str | Path) -> Operator:
    """An operator from ``ops/`` (``level1/gelu``) or the test fixtures (``scale_copy``)."""
    p = OPS / path
    return Operator.load(p if p.is_dir() else FIXTURE_OPS / path)


@pytest.fixture
def check(backend):
    """``check(op, cases=None) -> list[CaseResult]``: builds and runs the operator on ``cases``
    (default: its own case files' two smallest cases and its largest, enough to see a wrong
    result on single-tile and multi-tile, multi-core shapes)."""

    def run(op: Operator, cases=None):
        if cases is None:
            every = sorted(load_op_cases(op.root), key=case_elements)
            cases = every[:2] + every[-1:] if len(every) > 2 else every
        return check_operator(backend, op, cases, seed=1, cfg=CheckConfig(timeout_s=30.0))

    return run
