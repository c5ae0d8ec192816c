"""Local process pool and Ray executors give the same results as evaluating inline."""

from __future__ import annotations

import importlib.util
import os

import pytest

from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.evaluator import Evaluator
from ascendopt.evaluate.executors import EvalTask, InlineExecutor, LocalExecutor
from ascendopt.evaluate.store import MemoryStore

from .conftest import KERNEL, comment_variant, edit

HAVE_RAY = importlib.util.find_spec("ray") is not None


def _candidates(base):
    return [base, comment_variant(base, 11), edit(base, KERNEL, "2.0f, n);", "2.5f, n);")]


def _summary(evs):
    return [(e.digest, e.status, e.error_kind, e.latency_us, e.seed, [c.status for c in e.cases],
             [c.max_abs_err for c in e.cases]) for e in evs]


@pytest.fixture(scope="module")
def inline_results(evaluator, base, cases):
    ops = _candidates(base)
    key = evaluator.config_key(cases)
    tasks = [EvalTask(op, tuple(cases), evaluator.seed_for(op), key) for op in ops]
    got = dict(InlineExecutor().run(evaluator, tasks))
    return [got[i] for i in range(len(ops))]


def test_local_executor_matches_inline(evaluator, base, cases, inline_results):
    store = MemoryStore()
    with LocalExecutor(workers=2) as ex:
        s = BudgetedEvaluator(evaluator, store, budget=10, executor=ex, run_label="scale_copy")
        results = s.evaluate_many(_candidates(base), cases)
    assert _summary(results) == _summary(inline_results)
    assert [r.status for r in results] == ["ok", "ok", "wrong_result"]
    assert store.count(s.run_id) == 3  # the driver recorded every worker result


@pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (pip install 'ascendopt[ray]')")
def test_ray_executor_matches_inline(evaluator, base, cases, inline_results):
    import ray

    from ascendopt.evaluate.executors import RayExecutor

    # two emulated NPU devices: each task requests resources={"NPU": 1}
    ray.init(num_cpus=2, resources={"NPU": 2}, include_dashboard=False, log_to_driver=False)
    try:
        ex = RayExecutor(npus_per_task=1)
        s = BudgetedEvaluator(evaluator, MemoryStore(), budget=10, executor=ex, run_label="scale_copy")
        results = s.evaluate_many(_candidates(base), cases)
        assert _summary(results) == _summary(inline_results)
    finally:
        ray.shutdown()


class _DiesOn(Evaluator):
    """Kills its worker process when asked to evaluate one particular candidate."""

    def __init__(self, backend, config, doomed: str):
        super().__init__(backend, config)
        self.doomed = doomed

    def evaluate(self, op, cases, seed=None, config_key=None):
        if op.digest == self.doomed:
            os._exit(3)
        return super().evaluate(op, cases, seed, config_key)


def test_local_executor_survives_a_dying_worker(backend, config, base, cases):
    doomed = comment_variant(base, 12)
    ev = _DiesOn(backend, config, doomed.digest)
    ops = [base, doomed, comment_variant(base, 11)]
    key = ev.config_key(cases)
    tasks = [EvalTask(op, tuple(cases), ev.seed_for(op), key) for op in ops]
    with LocalExecutor(workers=2) as ex:
        got = dict(ex.run(ev, tasks))
        assert got[1].status == "runtime_error" and got[1].error_kind == "worker_crashed"
        assert got[0].status == "ok" and got[2].status == "ok"
        # the pool was recycled and still works
        assert dict(ex.run(ev, tasks[:1]))[0].status == "ok"
