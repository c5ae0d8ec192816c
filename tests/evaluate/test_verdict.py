import pytest

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.verdict import hazards, judge, noise_threshold


def ev(lat=None, status="ok", runs=None, kind=""):
    e = Evaluation(status, latency_us=lat, error_kind=kind, error="boom" if status != "ok" else "")
    if lat is not None:
        e.profile = {"c": {"runs_us": runs or [lat]}}
    return e


def test_tau_is_three_sigma_of_the_repeats_with_a_floor():
    noisy = noise_threshold(ev(10.0, runs=[9.0, 10.0, 11.0]))
    assert noisy.sigma_us == pytest.approx(1.0) and noisy.tau_us == pytest.approx(3.0) and noisy.repeats == 3
    exact = noise_threshold(ev(10.0, runs=[10.0, 10.0]))
    assert exact.sigma_us == 0 and exact.tau_us == pytest.approx(0.1)  # 1 % floor
    with pytest.raises(ValueError):
        noise_threshold(ev(status="wrong_result"))


def test_tau_pools_the_spread_within_cases_not_between_them():
    # regression: three benchmark cases (one per dtype) of different latencies, one run each,
    # gave sigma 1.56 us (the spread between the cases) and hid a 1.9 us speedup
    e = ev(17.5)
    e.profile = {"f16": {"runs_us": [14.1]}, "f32": {"runs_us": [20.5]}, "bf16": {"runs_us": [17.8]}}
    assert noise_threshold(e).sigma_us == 0.0 and noise_threshold(e).tau_us == pytest.approx(0.175)
    e.profile = {"f16": {"runs_us": [14.0, 14.2]}, "f32": {"runs_us": [20.4, 20.6]}}
    assert noise_threshold(e).sigma_us == pytest.approx(0.1414, abs=1e-3) and noise_threshold(e).repeats == 2


def test_keeps_only_correct_measurably_slower_removals():
    parent = ev(10.0)
    tau = noise_threshold(parent)
    assert judge(parent, ev(12.0), tau).kept
    assert judge(parent, ev(10.05), tau).reason == "not_slower"  # inside tau
    assert judge(parent, ev(10.0), tau).reason == "not_slower"
    assert judge(parent, ev(9.0), tau).reason == "not_slower"  # faster
    assert judge(parent, ev(status="wrong_result"), tau).reason == "failed"
    racy = judge(parent, ev(status="runtime_error", kind="race"), tau)
    assert racy.reason == "failed" and "race" in racy.detail


def test_a_new_hazard_warning_is_rejected_even_when_slower():
    parent, child = ev(10.0), ev(20.0)

    class W:  # a case result carrying warnings (the hazard policy's warnings)
        warnings = [{"kind": "race"}]

    child.cases = [W()]
    assert hazards(child) == {"race"}
    assert judge(parent, child, noise_threshold(parent)).reason == "new_hazard"
    parent.cases = [W()]  # the parent had it already: not new
    assert judge(parent, child, noise_threshold(parent)).kept
