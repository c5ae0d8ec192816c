"""Metrics on hand-made trials: every number below is worked out by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from ascendopt.bench.metrics import Trial, budget_curve, group_metrics, per_operator, summarize, trial_from_records


def T(op, evals, ref=10.0, level=1, method="m", seed=0, before=None, after=None, seconds=0.0):
    return Trial(op, level, method, seed, ref, evals, before, after, seconds)


# a: original 10 us, then a wrong result, then 8 us (correct), then 5 us (correct) -> 2.0x, first gain at 3
A = T("a", [(True, 10.0), (False, None), (True, 8.0), (True, 5.0)], before=0.2, after=0.5)
# b: original 10 us, then 9 us -> 1.111x, first gain at 2
B = T("b", [(True, 10.0), (True, 9.0)], before=0.4, after=0.6)
# c: nothing correct beats the original: 1.0x, never improved
C = T("c", [(True, 10.0), (False, 1.0), (True, 12.0)], before=0.3, after=0.3)
# d: the original failed (no reference): counts 1.0x, not correct
D = T("d", [(False, None), (False, None)], ref=None)


def test_trial_speedups_and_first_improvement():
    assert A.speedup == pytest.approx(2.0) and A.first_improvement() == 3
    assert A.speedup_after(0) == 1.0 and A.speedup_after(2) == 1.0 and A.speedup_after(3) == pytest.approx(1.25)
    assert B.speedup == pytest.approx(10 / 9) and B.first_improvement() == 2
    assert C.speedup == 1.0 and C.first_improvement() is None and C.best_correct  # a wrong 1 us result never counts
    assert D.speedup == 1.0 and not D.best_correct and D.first_improvement() is None


def test_group_metrics_by_hand():
    g = group_metrics([A, B, C, D])
    assert g["operators"] == 4
    assert g["gm_speedup"] == pytest.approx((2.0 * 10 / 9) ** 0.25)
    assert g["fast_1.0"] == pytest.approx(0.5)  # a and b: strictly faster
    assert g["fast_1.2"] == pytest.approx(0.25)  # a only (b is 1.11x)
    assert g["fast_1.5"] == pytest.approx(0.25)
    assert g["fast_2.0"] == 0.0  # a is exactly 2.0x: not faster than 2x
    assert g["charged"] == 11
    assert g["correct_eval_rate"] == pytest.approx(7 / 11)  # a 3, b 2, c 2 (d none: no reference)
    assert g["improved_rate"] == pytest.approx(0.5)
    assert g["evals_to_first_improvement"] == pytest.approx(2.5)
    assert g["evals_to_first_improvement_median"] == pytest.approx(2.5)
    assert g["roofline_before"] == pytest.approx(0.3) and g["roofline_after"] == pytest.approx((0.5 + 0.6 + 0.3) / 3)


def test_fast_p_is_strict_at_one():
    same = T("s", [(True, 10.0), (True, 10.0)])
    assert group_metrics([same])["fast_1.0"] == 0.0


def test_budget_curve_keeps_the_final_best_after_a_run_stops():
    curve = budget_curve([A, B], budget=5)
    assert curve[0] == 1.0 and curve[1] == 1.0
    assert curve[2] == pytest.approx(math.sqrt(1.0 * 10 / 9))
    assert curve[3] == pytest.approx(math.sqrt(1.25 * 10 / 9))
    assert curve[4] == curve[5] == pytest.approx(math.sqrt(2.0 * 10 / 9))


def test_summarize_averages_over_seeds_and_splits_levels():
    a1 = T("a", [(True, 10.0), (True, 5.0)], seed=1)  # seed 1: a 2x
    b2 = T("b", [(True, 10.0)], level=2)  # level 2, seed 0: 1x
    s = summarize([A, a1, b2], budget=3)
    m = s["metrics"]["m"]
    # seed 0 groups {A, b2} -> GM sqrt(2); seed 1 {a1} -> 2: mean of the two
    assert m["all"]["gm_speedup"] == pytest.approx((math.sqrt(2.0) + 2.0) / 2)
    assert m["all"]["seeds"] == 2 and set(m["all"]["per_seed"]) == {"0", "1"}
    assert set(m) == {"all", "1", "2"} and m["2"]["gm_speedup"] == 1.0 and m["2"]["operators"] == 1
    assert len(s["curves"]["m"]["all"]) == 4
    rows = per_operator([A, a1, b2])
    assert [r["op"] for r in rows] == ["a", "b"] and rows[0]["methods"]["m"] == pytest.approx(2.0)


def _rec(charged, status, lat, digest, frac=None, warnings=()):
    ev = SimpleNamespace(status=status, ok=status == "ok", latency_us=lat, digest=digest, error_kind="",
                         cases=[SimpleNamespace(warnings=list(warnings))], benchmark=[],
                         profile={"c": {"achieved_fraction": frac}} if frac is not None else {})
    return SimpleNamespace(charged=charged, evaluation=ev)


def test_trial_from_records_counts_charged_only_and_rejects_new_hazards():
    recs = [_rec(True, "ok", 10.0, "orig", 0.3),
            _rec(False, "ok", 10.0, "orig", 0.3),  # a duplicate: not charged, not counted
            _rec(True, "ok", 4.0, "racy", 0.9, [{"kind": "race", "message": "x"}]),  # adds a hazard: not correct
            _rec(True, "ok", 8.0, "good", 0.4),
            _rec(True, "wrong_result", None, "bad")]
    t = trial_from_records(recs, "orig", "op", 1, "m", 0)
    assert t.reference_us == 10.0 and len(t.evals) == 4
    assert t.evals == [(True, 10.0), (False, 4.0), (True, 8.0), (False, None)]
    assert t.speedup == pytest.approx(1.25) and t.roofline_before == 0.3 and t.roofline_after == 0.4


@pytest.mark.parametrize("child_us, gain", [(9.95, False), (9.9, False), (9.8, True)])
def test_a_gain_within_tau_is_no_gain_for_the_tool_nor_the_benchmark(child_us, gain):
    """The benchmark's figure and the tool's acceptance rest on the one verdict: a candidate
    faster than the original by less than tau (1 % of 10 us on the noise-free simulator) is
    neutral for Stage I and leaves the pair at 1.0x; one faster by more is a gain in both."""
    from ascendopt.evaluate.verdict import judge_improvement, noise_threshold

    recs = [_rec(True, "ok", 10.0, "orig"), _rec(True, "ok", child_us, "child")]
    parent, child = recs[0].evaluation, recs[1].evaluation
    parent.error = child.error = ""
    tool = judge_improvement(parent, child, noise_threshold(parent))
    t = trial_from_records(recs, "orig", "op", 1, "m", 0)
    assert tool.kept is gain and tool.reason == ("accepted" if gain else "neutral")
    assert t.speedup == (pytest.approx(10.0 / child_us) if gain else 1.0)
    assert t.first_improvement() == (2 if gain else None)
    assert Trial.from_record(t.record()).speedup == t.speedup


def test_the_benchmark_counts_what_beats_the_original_by_tau():
    # 10 -> 9.95 (within 1 % of 10: no gain) -> 8 (a gain) -> 8.5 (slower) -> 7.95 (faster: the best)
    t = T("e", [(True, 10.0), (True, 9.95), (True, 8.0), (True, 8.5), (True, 7.95)])
    assert t.gains() == [(3, 8.0), (5, 7.95)] and t.speedup_after(2) == 1.0
    assert t.speedup_after(4) == pytest.approx(1.25) and t.speedup == pytest.approx(10 / 7.95)
