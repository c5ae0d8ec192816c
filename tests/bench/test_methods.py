"""Every method end to end on the fixture operator with a tiny budget: within budget, the
original first, deterministic given the seed."""

from __future__ import annotations

import pytest

from ascendopt.bank.store import ExperienceBank
from ascendopt.bench.evolve import EvolveConfig, descriptor
from ascendopt.bench.methods import METHODS, MethodContext, get_method
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator, largest_per_dtype
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.refine.rewriter import OfflineRewriter
from ascendopt.bank.transfer import open_default

from ..conftest import FIXTURE_OPS

OP_DIR = FIXTURE_OPS / "scale_copy"


def _run(backend, name, budget, seed=0, **opts):
    op = Operator.load(OP_DIR)
    cases = load_op_cases(OP_DIR)
    store = MemoryStore()
    ev = Evaluator(backend, EvalConfig(benchmark_cases=largest_per_dtype(cases)))
    beval = BudgetedEvaluator(ev, store, budget=budget)
    m = get_method(name)
    bank = open_default() if m.uses_bank else None
    res = m(MethodContext(op, cases, beval, OfflineRewriter(), bank, seed), **opts)
    return op, res, store.list_evaluations(beval.run_id)


def test_registry_documents_every_option():
    assert set(METHODS) == {"full", "stage1", "stage1-noexp", "stage2", "bon", "evolve"}
    for m in METHODS.values():
        assert m.doc and all(isinstance(doc, str) and doc for _, doc in m.options.values())
    with pytest.raises(KeyError, match="known"):
        get_method("nope")
    with pytest.raises(ValueError, match="unknown option"):
        get_method("bon")(None, bogus=1)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_method_runs_within_budget(backend, name):
    op, res, records = _run(backend, name, budget=4)
    charged = [r for r in records if r.charged]
    assert 1 <= len(charged) <= 4 and res.charged == len(charged)
    assert charged[0].evaluation.digest == op.digest  # the original is evaluated first: the reference
    assert res.baseline_us == charged[0].evaluation.latency_us
    assert res.best_us is not None and res.best_us <= res.baseline_us
    assert res.stop_reason


def test_evolve_is_deterministic_given_its_seed(backend):
    runs = [_run(backend, "evolve", budget=5, seed=s)[2] for s in (3, 3)]
    seqs = [[r.evaluation.digest for r in recs if r.charged] for recs in runs]
    assert seqs[0] == seqs[1] and len(seqs[0]) == 5


def test_evolve_descriptor_reads_the_profile(backend):
    _, _, records = _run(backend, "stage2", budget=1)
    unit, bucket = descriptor(records[0].evaluation, EvolveConfig().overlap_edges)
    assert unit in ("memory", "vector", "cube", "scalar") and 0 <= bucket <= 3


def test_bon_evaluates_distinct_rewrites_of_the_original(backend):
    # timing_lab has sites for the offline rewrites (a barrier, a scalar loop); BoN asks once
    # and evaluates the proposals as one batch
    op = Operator.load(FIXTURE_OPS / "timing_lab")
    cases = load_op_cases(FIXTURE_OPS / "timing_lab")
    store = MemoryStore()
    beval = BudgetedEvaluator(Evaluator(backend, EvalConfig(benchmark_cases=largest_per_dtype(cases))), store,
                              budget=3)
    res = get_method("bon")(MethodContext(op, cases, beval, OfflineRewriter(), None, 0))
    recs = [r.evaluation for r in store.list_evaluations(beval.run_id) if r.charged]
    assert recs[0].digest == op.digest and len(recs) <= 3
    assert all(e.parent == op.digest for e in recs[1:])  # every one a rewrite of the original
    assert len({e.digest for e in recs}) == len(recs)
    assert res.steps[0]["stage"] == "bon"
