"""Every operator of our corpus passes all of its cases on the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

OPS = Path(__file__).resolve().parent.parent / "ops"
OP_DIRS = sorted(p.parent for p in OPS.rglob("op_host"))


def test_corpus_is_large_enough():
    assert len(OP_DIRS) >= 16


@pytest.mark.slow
@pytest.mark.parametrize("op_dir", OP_DIRS, ids=[p.name for p in OP_DIRS])
def test_operator_passes_all_cases(backend, op_dir):
    op = Operator.load(op_dir)
    cases = load_op_cases(op_dir)
    assert cases, f"{op_dir} has no cases"
    results = check_operator(backend, op, cases)
    bad = [f"{r.name}: {r.status} {r.error_kind} {r.message[:300]}" for r in results if r.status != "ok"]
    assert not bad, "\n".join(bad)
    assert max(r.block_dim for r in results) > 1, "no case uses more than one core"
