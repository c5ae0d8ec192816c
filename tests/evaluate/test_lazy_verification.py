"""Lazy verification (issue 35, item 2): a candidate timed above the caller's bar is recorded
``unverified`` without running its other cases; at or below the bar it is verified on every
case exactly as without a bar; a wrong candidate is never taken for a correct one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ascendopt.backends.base import Backend
from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig, answers
from ascendopt.evaluate.evaluation import UNVERIFIED, Evaluation
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.hazards import reject_new_hazards
from ascendopt.evaluate.store import MemoryStore
from ascendopt.tiling.search import _trial_result

from .conftest import comment_variant


class _Counting(Backend):
    """The simulator, counting case runs; ``wrong`` names cases whose outputs it corrupts (a
    kernel wrong only off the benchmark shape)."""

    def __init__(self, inner, wrong: tuple[str, ...] = ()):
        self.inner, self.name, self.soc, self.wrong, self.runs = inner, inner.name, inner.soc, wrong, []

    supports_tiling = True

    def build(self, op, dtypes):
        return self.inner.build(op, dtypes)

    def tiling(self, *a, **kw):
        return self.inner.tiling(*a, **kw)

    def run(self, build, op, case, inputs, timeout_s=60.0):
        rr = self.inner.run(build, op, case, inputs, timeout_s=timeout_s)
        self.runs.append(case.name)
        if case.name in self.wrong:
            rr.outputs = {k: np.zeros_like(v) + 7 for k, v in rr.outputs.items()}
        return rr


def _same(a: Evaluation, b: Evaluation) -> bool:
    """Equal but for wall times and the bar."""
    def norm(e: Evaluation) -> str:
        d = e.to_dict()
        d.pop("timings"), d.pop("bar_us")
        for c in d["cases"] + d["benchmark"]:
            c.pop("run_seconds"), c.pop("build_seconds")
        return json.dumps(d, sort_keys=True, default=str)
    return norm(a) == norm(b)


@pytest.fixture
def counted(backend):
    return _Counting(backend)


def test_above_the_bar_runs_only_the_benchmark_case(counted, base, cases, config):
    ev = Evaluator(counted, config)
    full = ev.evaluate(base, cases)
    assert full.ok and len(counted.runs) == len(cases) > 1
    counted.runs.clear()
    lazy = ev.evaluate(base, cases, bar_us=full.latency_us * 0.9)
    assert lazy.status == UNVERIFIED and not lazy.ok and lazy.unverified and lazy.timed
    assert counted.runs == [c.name for c in lazy.cases] == [b.name for b in lazy.benchmark]
    assert len(counted.runs) < len(cases)
    assert lazy.latency_us == full.latency_us and lazy.profile == full.profile
    assert lazy.bar_us == pytest.approx(full.latency_us * 0.9) and "cases not run" in lazy.error


def test_at_or_below_the_bar_is_verified_as_without_one(counted, base, cases, config):
    ev = Evaluator(counted, config)
    full = ev.evaluate(base, cases)
    for bar in (full.latency_us, full.latency_us * 2):  # a tie is verified
        counted.runs.clear()
        got = ev.evaluate(base, cases, bar_us=bar)
        assert got.ok and sorted(counted.runs) == sorted(c.name for c in cases)
        assert _same(got, full) and got.bar_us == bar


def test_a_fast_candidate_wrong_off_the_benchmark_shape_is_still_rejected(backend, base, cases, config):
    ev = Evaluator(_Counting(backend, wrong=("small_tail",)), config)
    plain = ev.evaluate(base, cases)
    fast = ev.evaluate(base, cases, bar_us=1e9)
    assert plain.status == fast.status == "wrong_result" and _same(plain, fast)
    slow = ev.evaluate(base, cases, bar_us=1e-3)
    assert slow.unverified and not slow.ok  # never counted correct: no case failed only because none ran


def test_a_noisy_backend_ignores_the_bar(base, cases, sim_cache):
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.backends.sim.build import SimBuilder

    noisy = SimBackend(builder=SimBuilder(cache_dir=sim_cache), noise_pct=1.0)
    ev = Evaluator(noisy, EvalConfig(jobs=1)).evaluate(base, cases, bar_us=1e-3)
    assert ev.ok and ev.bar_us is None and len(ev.cases) == len(cases)


def test_an_unverified_record_answers_only_a_bar_it_is_above(backend, base, cases, config):
    beval = BudgetedEvaluator(Evaluator(backend, config), MemoryStore(), budget=10,
                              reuse=ReuseConfig(verify_lazily=True))
    full = beval.evaluate(comment_variant(base, 1), cases)
    op = comment_variant(base, 2)
    lazy = beval.evaluate(op, cases, bar_us=full.latency_us * 0.5)
    assert lazy.unverified and not lazy.duplicate
    again = beval.evaluate(op, cases, bar_us=full.latency_us * 0.6)  # above this bar too: answered
    assert again.duplicate and again.unverified
    verified = beval.evaluate(op, cases)  # a caller for whom it may matter: evaluated, verified
    assert verified.ok and not verified.duplicate
    assert beval.evaluate(op, cases).duplicate  # and that record answers from then on
    assert answers(verified, None) and not answers(lazy, None) and answers(lazy, 1e-3)
    assert beval.report(base.name).charged == 3


def test_the_search_tells_an_unverified_candidate_as_timed_and_checks_its_hazards():
    ev = Evaluation(UNVERIFIED, latency_us=5.0, profile={"c": {"task_duration_us": 5.0}})
    told = _trial_result(ev)
    assert told.feasible and told.usable and told.latency_us == 5.0
    from ascendopt.evaluate.check import CaseResult

    ev.cases = [CaseResult("c", "ok", warnings=[{"kind": "race", "message": "m", "count": 1}])]
    assert reject_new_hazards(ev, set()).status == "runtime_error"


def test_strategy_bars():
    from ascendopt.tiling.domain import Domain
    from ascendopt.tiling.space import KnobSpace
    from ascendopt.tiling.strategies.base import RandomStrategy, TrialResult
    from ascendopt.tiling.strategies.evo import EvoConfig, EvoStrategy

    space = KnobSpace.synthetic({"tile": Domain("int", 64, 16, 1024, 16)})
    rnd = RandomStrategy(space)
    assert rnd.verify_bar() is None
    for c, lat in ((16, 9.0), (32, 4.0), (64, 6.0)):
        rnd.tell({"tile": c}, TrialResult("ok", lat, True))
    assert rnd.verify_bar() == 4.0
    evo = EvoStrategy(space, cfg=EvoConfig(population_size=2, profile_guided=False, dial=False))
    evo.tell({"tile": 16}, TrialResult("ok", 9.0, True))
    assert evo.verify_bar() is None  # the population is not full: any candidate may be a parent
    evo.tell({"tile": 32}, TrialResult("ok", 4.0, True))
    evo.tell({"tile": 64}, TrialResult("ok", 6.0, True))
    assert evo.verify_bar() == 6.0  # the slowest of the population


def test_the_unseen_fallback_ranks_an_unverified_candidate_and_verifies_it_first(backend, base, cases, config):
    from ascendopt.evaluate.unseen_check import ShapeRunner, own_cases_fail, ranked_candidates

    from .conftest import KERNEL, edit

    ev = Evaluator(backend, config)
    store = MemoryStore()
    run = store.create_run(base.name, {})
    ref = ev.evaluate(base, cases)
    store.put_sources(base.digest, base.files)
    store.add_evaluation(run, ref, charged=True)
    wrong = edit(base, KERNEL, "2.0f, n);", "2.5f, n);")
    # a record as if it had been timed above a bar (wrong off its benchmark shape, say)
    fake = Evaluation(UNVERIFIED, latency_us=ref.latency_us * 0.5, digest=wrong.digest, op_name=base.name,
                      config_key=ref.config_key)
    store.put_sources(wrong.digest, wrong.files)
    store.add_evaluation(run, fake, charged=True)
    ranked = ranked_candidates(store, run, base)
    assert [(o.digest, o.origin) for o, _ in ranked] == [(wrong.digest, UNVERIFIED), (base.digest, base.origin)]
    runner = ShapeRunner(backend, 20.0)
    failed = own_cases_fail(runner, base, ranked[0][0], cases)
    assert failed is not None and failed[1].status == "wrong_result"
    assert own_cases_fail(runner, base, base, cases) is None


def test_a_tiling_failing_off_the_benchmark_shape_makes_every_case_run(counted, base, cases, config):
    from .conftest import HOST, edit

    # a tile larger than the small case allows: its tiling fails there, the benchmark case runs
    bad = edit(base, HOST, "return ge::GRAPH_SUCCESS;",
               "if (context->GetInputShape(0)->GetStorageShape().GetShapeSize() < 2000) "
               "return ge::GRAPH_FAILED;\n    return ge::GRAPH_SUCCESS;")
    ev = Evaluator(counted, config)
    plain = ev.evaluate(bad, cases)
    assert plain.status == "tiling_error"
    lazy = ev.evaluate(bad, cases, bar_us=1e-3)
    assert lazy.status == "tiling_error" and _same(plain, lazy)


def test_tiling_probes_stop_at_the_first_chunk_with_a_failure(base, cases, config):
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from ascendopt.backends.base import BuildResult, Launch, Status

    class _Tiler(Backend):
        name, soc, supports_tiling = "fake", None, True

        def __init__(self, fail_at: int):
            self.fail_at, self.probes = fail_at, 0

        def build(self, op, dtypes):  # pragma: no cover - not called
            raise AssertionError

        def run(self, *a, **kw):  # pragma: no cover - not called
            raise AssertionError

        def tiling(self, build, op, case, inputs, timeout_s):
            self.probes += 1
            return Launch(Status.TILING_ERROR if case.name == f"c{self.fail_at}" else Status.OK, "")

    from dataclasses import replace

    runs = [(replace(cases[0], name=f"c{i}"), BuildResult(artifact=Path("runner")), i) for i in range(6)]
    with ThreadPoolExecutor(2) as pool:
        first = _Tiler(fail_at=0)
        assert not Evaluator(first, config)._tilings_pass(base, runs, None, pool)
        assert first.probes == 2  # the first chunk only (the pool's width): the answer is known
        none = _Tiler(fail_at=99)
        assert Evaluator(none, config)._tilings_pass(base, runs, None, pool) and none.probes == 6
