"""Unseen shapes (issue 35 item 1): derived cases, the original's filter, the walk down the
ranked candidates when the best fails one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.store import MemoryStore
from ascendopt.evaluate.unseen import STRUCTURAL_DIM, declared_dtypes, generate, signature
from ascendopt.evaluate.unseen_check import adopt_optimize, RunRef, check_run, ranked_candidates, verify_best

from .conftest import HOST, edit

#: The benchmark shape of the fixture's "many_cores" case: x float32[64, 3001].
BENCH_LEN = 64 * 3001
READ_SHAPE = "uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();"


@pytest.fixture(scope="module")
def bench_only(cases):
    """The cases a search saw: the benchmark case alone."""
    return [c for c in cases if c.name == "many_cores"]


@pytest.fixture(scope="module")
def hard_coded(base):
    """What a tuner that hard-codes its benchmark shape returns: correct at [64, 3001] only."""
    return edit(base, HOST, READ_SHAPE, f"uint32_t total = {BENCH_LEN};", origin="test/hard_coded")


def _shapes(cases, op=None):
    return {s.kind: s for s in generate(cases, op)}


def test_derived_shapes_keep_relations_and_never_repeat_a_case(bench_only, cases):
    got = _shapes(bench_only)
    assert set(got) == {"ragged", "single", "largest", "half"}
    assert [t.shape for t in got["ragged"].case.inputs] == [(63, 2999)]
    assert [t.shape for t in got["single"].case.outputs] == [(1, 1)]
    assert [t.shape for t in got["half"].case.inputs] == [(32, 1500)]
    big = got["largest"].case
    assert big.inputs[0].shape[1] == 3001 and big.inputs[0].shape[0] > 64  # the outer dim grows
    for s in got.values():  # the output follows its input everywhere (a consistent size map)
        assert s.case.inputs[0].shape == s.case.outputs[0].shape
    seen = {signature(c) for c in cases}
    assert not any(signature(s.case) in seen for s in generate(cases))


def test_small_dims_are_structural_and_fixed_data_keeps_its_shape(bench_only):
    c = bench_only[0]
    x = replace(c.inputs[0], shape=(STRUCTURAL_DIM - 1, 3001))
    w = replace(c.inputs[0], name="w", shape=(4,), value=[1.0, 2.0, 3.0, 4.0])
    case = replace(c, inputs=[x, w], outputs=[replace(c.outputs[0], shape=(STRUCTURAL_DIM - 1, 3001))])
    rag = _shapes([case])["ragged"].case
    assert rag.inputs[0].shape == (STRUCTURAL_DIM - 1, 2999)
    assert rag.inputs[1].shape == (4,)


def test_every_declared_dtype_is_derived(base, bench_only):
    host = base.files[HOST]
    assert "DataType({ge::DT_FLOAT})" in host
    op = base.with_file(HOST, host.replace("DataType({ge::DT_FLOAT})", "DataType({ge::DT_FLOAT, ge::DT_FLOAT16})"))
    assert declared_dtypes(op) == [{"x": "float32", "y": "float32"}, {"x": "float16", "y": "float16"}]
    dt = _shapes(bench_only, op)["dtype"].case
    assert [t.dtype for t in (*dt.inputs, *dt.outputs)] == ["float16", "float16"]
    assert dt.inputs[0].shape == (64, 3001)
    assert "dtype" not in _shapes(bench_only, base)  # every declared combination has a case


def _ev(digest: str, lat: float | None, status: str = "ok") -> Evaluation:
    return Evaluation(status, latency_us=lat, op_name="scale_copy", digest=digest)


def test_ranked_candidates_start_at_the_best_and_end_with_the_original(base):
    a, b, c, slow = (base.with_file(HOST, base.files[HOST] + f"\n// {i}\n") for i in range(4))
    store = MemoryStore()
    run = store.create_run("scale_copy", {})
    for op, ev in ((base, _ev(base.digest, 10.0)), (a, _ev(a.digest, 5.0)), (b, _ev(b.digest, 7.0)),
                   (c, _ev(c.digest, None, "wrong_result")), (slow, _ev(slow.digest, 12.0))):
        store.put_sources(op.digest, op.files)
        store.add_evaluation(run, ev)
    order = [op.digest for op, _ in ranked_candidates(store, run, base)]
    assert order == [a.digest, b.digest, base.digest]  # the failed and the slower-than-original left out
    assert [op.digest for op, _ in ranked_candidates(store, run, base, b.digest)] == [b.digest, base.digest]


def test_a_tiling_correct_only_at_its_benchmark_shape_fails_and_the_next_best_is_returned(
        backend, base, bench_only, hard_coded):
    good = edit(base, HOST, "uint32_t tileLength = 1024;", "uint32_t tileLength = 512;", origin="test/good")
    store = MemoryStore()  # the search's records: the hard-coded tiling is the fastest correct one
    run = store.create_run("scale_copy", {})
    for op, us in ((base, 3.0), (hard_coded, 1.0), (good, 2.0)):
        store.put_sources(op.digest, op.files)
        store.add_evaluation(run, _ev(op.digest, us))
    rep = check_run(backend, RunRef(store, run), base, bench_only, count=3)
    assert [s.kind for s in rep.shapes] == ["ragged", "single", "largest"]
    first = rep.checked[0]
    assert first.digest == hard_coded.digest and not first.passed
    assert first.failing_shape == "x float32[63, 2999], y float32[63, 2999]"
    assert rep.fell_back and rep.rejected == [hard_coded.digest] == rep.passed_over
    assert rep.chosen_op.digest == good.digest and rep.chosen_us == 2.0
    assert rep.to_dict()["shapes"][0]["shape"] == first.failing_shape
    assert "fails x float32[63, 2999]" in rep.summary()

    class Result:
        best_op, best_us = hard_coded, 1.0

    res = Result()
    adopt_optimize(res, rep)
    assert res.best_op.digest == good.digest and res.best_us == 2.0


def test_disabled_or_nothing_but_the_original_checks_nothing(backend, base, bench_only, hard_coded):
    rep = verify_best(backend, base, bench_only, [(hard_coded, 1.0), (base, 3.0)], count=0)
    assert rep.chosen_op is hard_coded and not rep.shapes and not rep.fell_back
    rep = verify_best(backend, base, bench_only, [(base, 3.0)], count=4)
    assert rep.chosen_op is base and not rep.shapes and not rep.checked


def test_a_benchmark_trial_does_not_credit_a_candidate_passed_over_on_unseen_shapes():
    from types import SimpleNamespace

    from ascendopt.bench.metrics import trial_from_records

    def rec(lat, digest):
        return SimpleNamespace(charged=True, evaluation=SimpleNamespace(
            status="ok", ok=True, latency_us=lat, digest=digest, error_kind="", cases=[], benchmark=[], profile={}))

    recs = [rec(10.0, "orig"), rec(4.0, "hard_coded"), rec(8.0, "good")]
    assert trial_from_records(recs, "orig", "op", 1, "m", 0).speedup == 2.5
    t = trial_from_records(recs, "orig", "op", 1, "m", 0, rejected=["hard_coded"])
    assert t.evals == [(True, 10.0), (False, 4.0), (True, 8.0)] and t.speedup == 1.25


def test_a_size_that_is_a_small_multiple_of_another_keeps_the_proportion(bench_only):
    c = bench_only[0]
    x = replace(c.inputs[0], shape=(64, 90))  # e.g. a gated op: x holds two halves of y's width
    case = replace(c, inputs=[x], outputs=[replace(c.outputs[0], shape=(64, 45))])
    got = _shapes([case])
    assert (got["ragged"].case.inputs[0].shape, got["ragged"].case.outputs[0].shape) == ((63, 86), (63, 43))
    assert (got["single"].case.inputs[0].shape, got["single"].case.outputs[0].shape) == ((1, 2), (1, 1))
    assert (got["half"].case.inputs[0].shape, got["half"].case.outputs[0].shape) == ((32, 44), (32, 22))


def test_largest_is_derived_again_to_run_within_its_time_bound(bench_only):
    from ascendopt.evaluate.check import CaseResult
    from ascendopt.evaluate.unseen import case_elements
    from ascendopt.evaluate.unseen_check import LARGEST_SECONDS, select_shapes

    class SlowOriginal:  # the original's runs: 10 us per element, so LARGEST_SECONDS holds 800 K elements
        def run(self, op, s):
            return CaseResult(s.case.name, "ok", run_seconds=1e-5 * case_elements(s.case))

    derived = [s for s in generate(bench_only) if s.kind in ("ragged", "largest")]
    assert case_elements(derived[1].case) * 1e-5 > LARGEST_SECONDS
    kept, dropped, _ = select_shapes(SlowOriginal(), None, derived, 4)
    assert [s.kind for s in kept] == ["ragged", "largest"] and not dropped
    assert 64 < kept[1].case.inputs[0].shape[0] and case_elements(kept[1].case) * 1e-5 <= LARGEST_SECONDS


def test_sizes_of_one_tensor_on_different_axes_are_not_related(bench_only):
    c = bench_only[0]
    case = replace(c, inputs=[replace(c.inputs[0], shape=(2048, 1024))],
                   outputs=[replace(c.outputs[0], shape=(2048, 1024))])
    got = _shapes([case])
    assert got["single"].case.inputs[0].shape == (1, 1)
    assert got["ragged"].case.inputs[0].shape == (2047, 1023)


def test_a_check_that_cannot_run_keeps_the_answer_and_says_why(base):
    class BrokenStore(MemoryStore):
        def list_evaluations(self, *a, **kw):
            raise RuntimeError("database is locked")

    rep = check_run(None, RunRef(BrokenStore(), 1), base, [])
    assert rep.chosen_op is None and not rep.fell_back and "database is locked" in rep.summary()
