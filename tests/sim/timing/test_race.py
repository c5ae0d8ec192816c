"""Missing synchronisation is reported as a race (a warning: the run goes on, ``strict`` fails
it); correct kernels never are."""

from __future__ import annotations

import pytest

from ascendopt.backends.base import Status
from ascendopt.evaluate.check import CheckConfig, check_operator

from ...conftest import FIXTURE_OPS
from .common import load, run, variant

K = "op_kernel/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def _race(rr) -> dict:
    races = [w for w in rr.warnings if w["kind"] == "race"]
    assert rr.status == Status.OK and races, (rr.status, rr.message, rr.warnings)
    return races[0]


def test_missing_wait_flag_is_a_race(backend, lab):
    op, cases = lab
    rr = run(backend, variant(op, K, MODE=1, SKIP_WAIT=1), cases["t48x2"], expect_ok=False)
    w = _race(rr)
    for word in ("DataCopy", "MTE2", "Muls", "pipe V", "UB [0, 16384)", "write-read", "MTE2_V"):
        assert word in w["message"], (word, w["message"])
    assert w["count"] >= 1


def test_a_race_fails_the_case_only_when_strict(backend, lab):
    op, cases = lab
    racy = variant(op, K, MODE=1, SKIP_WAIT=1)
    [res] = check_operator(backend, racy, [cases["t48x2"]])
    assert res.status == "ok" and [w["kind"] for w in res.warnings] == ["race"], res
    [res] = check_operator(backend, racy, [cases["t48x2"]], cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "race" and res.message.startswith("--strict")


def test_same_kernel_with_the_wait_passes(backend, lab):
    op, cases = lab
    [res] = check_operator(backend, variant(op, K, MODE=1, SKIP_WAIT=0), [cases["t48x2"]])
    assert res.status == "ok", res.message


def test_scalar_read_after_vector_write_needs_v_s(backend, lab, no_auto_sync):
    # Built with --cce-auto-sync=off: the compiler's default V_S pair would order the read.
    _, cases = lab
    op = no_auto_sync(FIXTURE_OPS / "timing_lab")
    rr = run(backend, variant(op, K, MODE=1, PEEK=1, VS_FLAG=0), cases["t48x2"], expect_ok=False)
    w = _race(rr)
    assert "GetValue" in w["message"] and "V_S" in w["message"]
    assert not run(backend, variant(op, K, MODE=1, PEEK=1, VS_FLAG=1), cases["t48x2"]).warnings


def test_double_buffered_fixtures_never_race(backend):
    for name in ("scale_copy", "timing_lab"):
        op, cases = load(name)
        for res in check_operator(backend, op, list(cases.values())):
            assert res.status == "ok" and not res.warnings, (name, res.name, res.message, res.warnings)
