"""Missing synchronisation is reported as a race; correct kernels never are."""

from __future__ import annotations

import pytest

from ascendopt.backends.base import Status
from ascendopt.evaluate.check import check_operator

from .common import load, run, variant

K = "op_kernel/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def test_missing_wait_flag_is_a_race(backend, lab):
    op, cases = lab
    rr = run(backend, variant(op, K, MODE=1, SKIP_WAIT=1), cases["t48x2"], expect_ok=False)
    assert rr.status == Status.RUNTIME_ERROR and rr.error_kind == "race", rr.message
    for word in ("DataCopy", "MTE2", "Muls", "pipe V", "UB [0, 16384)", "write-read", "MTE2_V"):
        assert word in rr.message, (word, rr.message)


def test_same_kernel_with_the_wait_passes(backend, lab):
    op, cases = lab
    [res] = check_operator(backend, variant(op, K, MODE=1, SKIP_WAIT=0), [cases["t48x2"]])
    assert res.status == "ok", res.message


def test_scalar_read_after_vector_write_needs_v_s(backend, lab):
    op, cases = lab
    rr = run(backend, variant(op, K, MODE=1, PEEK=1, VS_FLAG=0), cases["t48x2"], expect_ok=False)
    assert rr.error_kind == "race" and "GetValue" in rr.message and "V_S" in rr.message
    run(backend, variant(op, K, MODE=1, PEEK=1, VS_FLAG=1), cases["t48x2"])


def test_double_buffered_fixtures_never_race(backend):
    for name in ("scale_copy", "timing_lab"):
        op, cases = load(name)
        for res in check_operator(backend, op, list(cases.values())):
            assert res.status == "ok", (name, res.name, res.message)
