"""The one resume mechanism, for tune as for optimize: the interrupted run is reopened, its loop
asks again, what it had charged comes back from the records without charge, and it ends where
an uninterrupted run ends."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.session import RunSpec, Session
from ascendopt.tiling.search import tune
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import make_strategy

from ..conftest import FIXTURE_OPS


def _tune(evaluator, store, budget, run_id=None):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    cases = load_op_cases(FIXTURE_OPS / "scale_copy")
    space = KnobSpace.from_operator(op)
    beval = BudgetedEvaluator(evaluator, store, budget=budget, run_id=run_id, run_label=op.name,
                              run_config={"command": "tune"})
    res = tune(op, cases, beval, space, make_strategy("evo", space, seed=1), "evo")
    return res, beval


def test_a_resumed_tune_ends_where_an_uninterrupted_one_ends(backend):
    evaluator = Evaluator(backend, EvalConfig(seed=0))
    whole, _ = _tune(evaluator, MemoryStore(), 4)
    store = MemoryStore()
    cut, first = _tune(evaluator, store, 2)  # "interrupted" after two charged evaluations
    session = Session(RunSpec("tune", db=None))
    session._store = store
    run_id = session.resume_run("scale_copy")
    assert run_id == first.run_id
    again, beval = _tune(evaluator, store, 4, run_id)
    charged = [r.evaluation.digest for r in store.list_evaluations(run_id) if r.charged]
    assert len(charged) == 4 and beval.replayed["scale_copy"] == 2
    assert charged == [t.digest for t in whole.trials if not t.duplicate][:4]
    assert again.best_latency_us == whole.best_latency_us
