"""Budget accounting, deduplication and resume after kill -9 (BudgetedEvaluator)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ascendopt.evaluate.budget import BudgetedEvaluator, BudgetExhausted
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.store import MemoryStore, SQLiteStore

from ..conftest import FIXTURE_OPS
from .conftest import KERNEL, comment_variant, edit


class CountingEvaluator(Evaluator):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.calls = 0

    def evaluate(self, *a, **kw):
        self.calls += 1
        return super().evaluate(*a, **kw)


def test_duplicates_are_free_and_recorded(backend, config, base, cases):
    ev = CountingEvaluator(backend, config)
    store = MemoryStore()
    s = BudgetedEvaluator(ev, store, budget=5, run_label="scale_copy")
    first = s.evaluate(base, cases)
    again = s.evaluate(base, cases)
    # same candidate twice in one batch, and a re-derived identical candidate
    twin = base.with_file(KERNEL, base.files[KERNEL], origin="test/twin")
    batch = s.evaluate_many([comment_variant(base, 1), comment_variant(base, 1), twin], cases)
    assert ev.calls == 2
    assert not first.duplicate and again.duplicate and again.latency_us == first.latency_us
    assert [b.duplicate for b in batch] == [False, True, True]
    assert batch[2].origin == "test/twin"
    rep = s.report("scale_copy")
    assert (rep.charged, rep.duplicates, rep.remaining) == (2, 3, 3)
    # a different eval config is not a duplicate
    s2 = BudgetedEvaluator(CountingEvaluator(backend, EvalConfig(seed=8, jobs=2)), store, budget=5)
    assert not s2.evaluate(base, cases).duplicate


def test_budget_counts_failures_and_stops(evaluator, base, cases):
    s = BudgetedEvaluator(evaluator, MemoryStore(), budget=2, run_label="scale_copy")
    bad = edit(base, KERNEL, "uint32_t tiles =", "uint32_t tiles = undefined_name +")
    assert s.evaluate(bad, cases).status == "compile_error"
    with pytest.raises(BudgetExhausted) as exc:
        s.evaluate_many([comment_variant(base, 2), comment_variant(base, 3)], cases)
    assert exc.value.spent == 2 and exc.value.budget == 2 and exc.value.op_name == "scale_copy"
    assert exc.value.results[0].status == "ok" and exc.value.results[1] is None
    assert s.remaining("scale_copy") == 0
    # duplicates are still answered once the budget is spent
    assert s.evaluate(bad, cases).duplicate
    with pytest.raises(BudgetExhausted):
        s.evaluate(comment_variant(base, 4), cases)
    assert s.report("scale_copy").charged == 2


def test_resume_after_kill_9(evaluator, base, cases, sim_cache, tmp_path):
    n = 4
    db = tmp_path / "resume.db"
    child = subprocess.Popen([sys.executable, str(Path(__file__).with_name("_resume_child.py")), str(db),
                              str(sim_cache), str(FIXTURE_OPS / "scale_copy"), str(n)],
                             stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    run_id = int(child.stdout.readline())
    assert child.stdout.readline().startswith("done")  # one evaluation committed ...
    os.kill(child.pid, signal.SIGKILL)  # ... and killed mid-run
    child.wait()
    store = SQLiteStore(db)
    assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = store.count(run_id, "scale_copy")
    assert 1 <= done < n
    session = BudgetedEvaluator(evaluator, store, budget=n, run_id=run_id)
    ops = [base.with_file(KERNEL, base.files[KERNEL] + f"\n// resume {i}\n", origin=f"test/resume{i}")
           for i in range(n)]
    results = session.evaluate_many(ops, cases)
    assert all(r.status == "ok" for r in results)
    assert [r.duplicate for r in results] == [True] * done + [False] * (n - done)
    rep = session.report("scale_copy")
    assert (rep.charged, rep.remaining) == (n, 0)  # nothing lost, nothing charged twice
    session.finish()
    assert store.get_run(run_id).status == "finished"
    store.close()


def test_sub_budget_is_a_share_of_the_run(backend, config, base, cases):
    from ascendopt.evaluate.budget import SubBudget

    ev = CountingEvaluator(backend, config)
    parent = BudgetedEvaluator(ev, MemoryStore(), budget=4, run_label="scale_copy")
    parent.evaluate(base, cases)
    sub = SubBudget(parent, "scale_copy", 2)
    assert sub.remaining("scale_copy") == 2
    with pytest.raises(BudgetExhausted) as exc:
        sub.evaluate_many([comment_variant(base, i) for i in range(3)], cases)
    assert [r is None for r in exc.value.results] == [False, False, True]
    assert sub.report("scale_copy").charged == 2 and parent.report("scale_copy").charged == 3
    assert sub.evaluate(base, cases).duplicate  # known candidates stay free
    with pytest.raises(BudgetExhausted):
        sub.evaluate(comment_variant(base, 9), cases)
    big = SubBudget(parent, "scale_copy", 10)  # never more than the parent has left
    assert big.remaining("scale_copy") == 1


def test_a_resumed_phase_stops_where_the_interrupted_one_stood(backend, config, base, cases):
    # regression: a SubBudget counted its share from its creation, so a resumed run's replay
    # (free answers from the records) let the phase evaluate as many new candidates again
    from ascendopt.evaluate.budget import SubBudget

    store = MemoryStore()
    first = BudgetedEvaluator(CountingEvaluator(backend, config), store, budget=10, run_label="scale_copy")
    phase = SubBudget(first, "scale_copy", 3)
    phase.evaluate_many([comment_variant(base, 30 + i) for i in range(2)], cases)  # then "killed"
    ev = CountingEvaluator(backend, config)
    again = BudgetedEvaluator(ev, store, budget=10, run_id=first.run_id)
    phase = SubBudget(again, "scale_copy", 3)
    phase.evaluate_many([comment_variant(base, 30 + i) for i in range(2)], cases)  # the replay
    assert ev.calls == 0 and phase.spent() == 2 and phase.remaining("scale_copy") == 1
    with pytest.raises(BudgetExhausted):
        phase.evaluate_many([comment_variant(base, 40 + i) for i in range(2)], cases)
    assert ev.calls == 1 and again.report("scale_copy").charged == 3
