"""Local process pool and Ray executors give the same results as evaluating inline."""

from __future__ import annotations

import importlib.util

import pytest

from ascendopt.evaluate.budget import BudgetedEvaluator
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
