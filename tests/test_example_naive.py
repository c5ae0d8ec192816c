"""The README's first command optimizes ``examples/naive_softsign``: the operator passes its
cases as shipped, and the chain of offline rewrites the README describes (spread over cores,
stage GM through UB, vectorize) applies in that order and keeps it correct, each step faster."""

from __future__ import annotations

from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator
from ascendopt.transforms import REWRITES

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "naive_softsign"


def test_the_readme_chain_applies_and_each_step_is_correct_and_faster(backend):
    cases = [c for c in load_op_cases(EXAMPLE) if "float16" in c.name]
    op = Operator.load(EXAMPLE)
    res = check_operator(backend, op, cases, seed=1, cfg=CheckConfig(timeout_s=60.0))
    assert all(r.status == "ok" for r in res) and max(r.block_dim for r in res) == 1
    last = max(r.task_duration_us for r in res)
    for name in ("spread_cores", "stage_scalar_gm", "vectorize_scalar_loop"):
        t = REWRITES.get(name)
        sites = t.find(op)
        assert sites, f"{name} finds no site"
        op = t.apply(op, sites[0])
        res = check_operator(backend, op, cases, seed=1, cfg=CheckConfig(timeout_s=60.0))
        assert all(r.status == "ok" and not r.warnings for r in res), (name, [(r.status, r.message) for r in res])
        now = max(r.task_duration_us for r in res)
        assert now < last, (name, now, last)
        last = now
