"""Stage II with lazy verification (issue 35, item 2): the search takes the same decisions as
with every candidate verified, and a candidate above the strategy's bar runs fewer cases."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.tiling.search import tune
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import make_strategy
from ascendopt.tiling.strategies.base import Strategy

from ..conftest import FIXTURE_OPS


def _tune(backend, monkeypatch, lazy: bool, opt_in: bool = True):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    cases = load_op_cases(FIXTURE_OPS / "scale_copy")
    space = KnobSpace.from_operator(op)
    if not lazy:
        monkeypatch.setattr(Strategy, "verify_bar", lambda self: None)
    beval = BudgetedEvaluator(Evaluator(backend, EvalConfig(seed=0, jobs=2)), MemoryStore(), budget=6,
                              run_label=op.name, reuse=ReuseConfig(verify_lazily=opt_in))
    res = tune(op, cases, beval, space, make_strategy("random", space, seed=5), "random")
    monkeypatch.undo()
    runs = sum(len(r.evaluation.cases) for r in beval.store.list_evaluations(beval.run_id) if r.charged)
    return res, runs


def test_same_decisions_fewer_runs(backend, monkeypatch):
    full, full_runs = _tune(backend, monkeypatch, lazy=False)
    lazy, lazy_runs = _tune(backend, monkeypatch, lazy=True)
    assert [(t.digest, t.latency_us) for t in lazy.trials] == [(t.digest, t.latency_us) for t in full.trials]
    assert (lazy.best_digest, lazy.best_latency_us) == (full.best_digest, full.best_latency_us)
    unverified = [t for t in lazy.trials if t.status == "unverified"]
    assert unverified and all(t.latency_us > lazy.best_latency_us for t in unverified)
    assert not any(t.status == "unverified" for t in full.trials)
    assert lazy_runs < full_runs


def test_off_by_default_every_candidate_is_verified(backend, monkeypatch):
    """Without ``verify_lazily`` (the default) the strategy's bar is dropped: no candidate is
    left unverified, and the search is the fully verified one."""
    full, full_runs = _tune(backend, monkeypatch, lazy=False)
    default, default_runs = _tune(backend, monkeypatch, lazy=True, opt_in=False)
    assert not any(t.status == "unverified" for t in default.trials)
    assert [(t.digest, t.status, t.latency_us) for t in default.trials] == \
        [(t.digest, t.status, t.latency_us) for t in full.trials]
    assert default_runs == full_runs
