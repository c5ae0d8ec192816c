"""The evaluator: every status, benchmark checking, records of seed/timings/identity."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ascendopt.backends.base import Backend, Status
from ascendopt.evaluate.evaluator import (
    EvalConfig,
    Evaluation,
    Evaluator,
    benchmark_cases,
    case_elements,
)

from .conftest import ANCHOR, HOST, KERNEL, comment_variant, edit


def test_ok_records_everything(evaluator, base, cases, backend):
    ev = evaluator.evaluate(base, cases)
    assert ev.status == "ok" and ev.ok, ev.error
    assert [c.name for c in ev.cases] == [c.name for c in cases]
    assert all(c.status == "ok" and c.max_abs_err == 0.0 for c in ev.cases)
    # default benchmark: the largest case by elements; on the (exact, always timed) simulator
    # its correctness run is its timed run
    [bench] = benchmark_cases(cases)
    assert bench.name == max(cases, key=case_elements).name == "many_cores"
    assert [b.name for b in ev.benchmark] == ["many_cores"] and ev.benchmark[0].max_abs_err == 0.0
    assert ev.benchmark[0].seed == ev.seed + [c.name for c in cases].index("many_cores")
    assert [c.seed for c in ev.cases] == [ev.seed + i for i in range(len(cases))]
    assert ev.latency_us == pytest.approx(ev.benchmark[0].task_duration_us) and ev.latency_us > 0
    assert ev.profile["many_cores"]["task_duration_us"] == pytest.approx(ev.latency_us)
    assert ev.profile["many_cores"]["block_dim"] > 1
    assert set(ev.timings) == {"build_s", "check_s", "profile_s", "total_s"}
    assert ev.timings["total_s"] >= ev.timings["check_s"]
    assert (ev.backend, ev.soc) == ("sim", backend.soc.name)
    assert (ev.digest, ev.parent, ev.origin, ev.op_name) == (base.digest, None, "original", "scale_copy")
    assert ev.seed == evaluator.seed_for(base)
    # plain data round trip (what the store and the executors rely on)
    assert Evaluation.from_dict(ev.to_dict()) == ev


def test_variant_carries_parent_and_origin(evaluator, base, cases):
    v = comment_variant(base, 1)
    ev = evaluator.evaluate(v, cases)
    assert ev.status == "ok"
    assert (ev.digest, ev.parent, ev.origin) == (v.digest, base.digest, "test/comment1")


def test_config_key_ignores_jobs_but_not_cases_or_config(backend, evaluator, cases):
    k = evaluator.config_key(cases)
    assert Evaluator(backend, dataclasses.replace(evaluator.config, jobs=1)).config_key(cases) == k
    assert Evaluator(backend, dataclasses.replace(evaluator.config, rtol=0.5)).config_key(cases) != k
    assert evaluator.config_key(cases[:1]) != k


def test_compile_error(evaluator, base, cases):
    ev = evaluator.evaluate(edit(base, KERNEL, ANCHOR, "uint32_t tiles = undefined_name +"), cases)
    assert ev.status == Status.COMPILE_ERROR.value
    assert "op_kernel/scale_copy.cpp:" in ev.error and "undefined_name" in ev.error
    assert ev.cases == [] and ev.latency_us is None


def test_tiling_error(evaluator, base, cases):
    ev = evaluator.evaluate(edit(base, HOST, "return ge::GRAPH_SUCCESS;", "return ge::GRAPH_FAILED;"), cases)
    assert ev.status == "tiling_error"
    assert len(ev.cases) >= 1 and ev.latency_us is None


def test_runtime_error_is_typed(evaluator, base, cases):
    ev = evaluator.evaluate(edit(base, HOST, "uint32_t tileLength = 1024;", "uint32_t tileLength = 40000;"), cases)
    assert ev.status == "runtime_error"
    assert ev.error_kind == "ub_overflow" and ev.error


def test_wrong_result(evaluator, base, cases):
    ev = evaluator.evaluate(edit(base, KERNEL, "2.0f, n);", "2.5f, n);"), cases)
    assert ev.status == "wrong_result"
    assert "y:" in ev.error and ev.latency_us is None


def test_timeout(backend, base, cases):
    ev = Evaluator(backend, EvalConfig(run_timeout_s=1.5, jobs=2)).evaluate(
        edit(base, KERNEL, ANCHOR, "volatile int spin = 1; while (spin) {}\n        " + ANCHOR), cases)
    assert ev.status == "timeout"
    assert ev.error_kind == "timeout"
    # fail-fast: one timeout, not one per case (counted, not timed: the limit is the runner's CPU
    # time, and on a loaded machine the build and the run stretch on the wall clock)
    assert [c.status for c in ev.cases].count("timeout") == 1


class _SkipsWorkOnRepeat(Backend):
    """A backend wrapper imitating a kernel that is only correct the first time it sees a case
    (e.g. it skips work when output buffers look already computed)."""

    def __init__(self, inner):
        self.inner, self.name, self.soc, self.seen = inner, inner.name, inner.soc, set()

    def build(self, op, dtypes):
        return self.inner.build(op, dtypes)

    def run(self, build, op, case, inputs, timeout_s=60.0):
        rr = self.inner.run(build, op, case, inputs, timeout_s=timeout_s)
        if case.name in self.seen:
            rr.outputs = {k: np.zeros_like(v) for k, v in rr.outputs.items()}
            rr.task_duration_us = 0.001
        self.seen.add(case.name)
        return rr


def test_benchmark_outputs_are_checked(backend, base, cases):
    # separate timed runs (repeats): their outputs are checked too
    ev = Evaluator(_SkipsWorkOnRepeat(backend), EvalConfig(jobs=1, profile_repeats=2)).evaluate(base, cases)
    assert all(c.status == "ok" for c in ev.cases)
    assert ev.status == "wrong_result"
    assert "benchmark run of many_cores" in ev.error
    assert ev.latency_us is None


def test_named_benchmark_cases_and_repeats(backend, base, cases):
    cfg = EvalConfig(benchmark_cases=("small_tail", "many_cores"), profile_repeats=2, jobs=2)
    ev = Evaluator(backend, cfg).evaluate(base, cases)
    assert ev.status == "ok"
    assert [b.name for b in ev.benchmark] == ["small_tail", "small_tail", "many_cores", "many_cores"]
    assert len({b.seed for b in ev.benchmark}) == 4  # fresh inputs every run
    means = [ev.profile[n]["task_duration_us"] for n in ("small_tail", "many_cores")]
    assert ev.latency_us == pytest.approx(sum(means) / 2)
    with pytest.raises(ValueError, match="unknown benchmark"):
        Evaluator(backend, EvalConfig(benchmark_cases=("nope",))).evaluate(base, cases)


def test_evaluator_pickles(evaluator):
    import pickle

    clone = pickle.loads(pickle.dumps(evaluator))
    assert clone.config == evaluator.config and clone.backend_name == "sim"
