"""The CCE intrinsics pipe_barrier / set_flag / wait_flag feed the same ordering model as
PipeBarrier<> and SetFlag/WaitFlag<HardEvent>: the flag-synchronised timing_lab kernel written
with the intrinsics passes without warnings, a mix of both forms pairs up (same flag), and a
missing wait_flag is still reported as a race."""

from __future__ import annotations

import re

from ascendopt.evaluate.check import check_operator

from .common import instr, load, run, variant

K = "op_kernel/timing_lab.cpp"


def intrinsic_form(op, only: str = ""):
    """timing_lab with SetFlag/WaitFlag<HardEvent::A_B>(0) rewritten as set_flag/wait_flag(PIPE_A,
    PIPE_B, EVENT_ID0); with `only`, just that call kind ("Set" or "Wait")."""
    def repl(m):
        kind, a, b = m.group(1), m.group(2), m.group(3)
        if only and kind != only:
            return m.group(0)
        return f"{kind.lower()}_flag(PIPE_{a}, PIPE_{b}, EVENT_ID0)"
    text = re.sub(r"(Set|Wait)Flag<HardEvent::([A-Z0-9]+)_([A-Z0-9]+)>\(0\)", repl, op.files[K])
    assert "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)" in text or only == "Wait"
    return op.with_file(K, text, origin="test/intrinsics")


def test_intrinsic_flags_synchronise_like_hard_events(backend):
    op, cases = load("timing_lab")
    base = variant(op, K, MODE=1, SKIP_WAIT=0)
    for v in (intrinsic_form(base), intrinsic_form(base, only="Set"), intrinsic_form(base, only="Wait")):
        [res] = check_operator(backend, v, [cases["t48x2"]])
        assert res.status == "ok" and not res.warnings, (res.status, res.message, res.warnings)


def test_same_cycles_as_the_hard_event_form(backend):
    op, cases = load("timing_lab")
    base = variant(op, K, MODE=1, SKIP_WAIT=0)
    a = run(backend, base, cases["t48x2"])
    b = run(backend, intrinsic_form(base), cases["t48x2"])
    assert a.profile["max_core_cycles"] == b.profile["max_core_cycles"]
    assert instr(a, "Muls", "V") == instr(b, "Muls", "V")


def test_missing_wait_flag_intrinsic_is_a_race(backend):
    op, cases = load("timing_lab")
    racy = intrinsic_form(variant(op, K, MODE=1, SKIP_WAIT=1))
    rr = run(backend, racy, cases["t48x2"], expect_ok=False)
    races = [w for w in rr.warnings if w["kind"] == "race"]
    assert races, (rr.status, rr.message, rr.warnings)
    assert "DataCopy" in races[0]["message"] and "Muls" in races[0]["message"]


def test_pipe_barrier_orders_vector_after_vector(backend):
    op, cases = load("timing_lab")
    base = intrinsic_form(variant(op, K, MODE=1, SKIP_WAIT=0, VEC_OPS=3))
    text = base.files[K].replace("Muls(yLocal, yLocal, 1.0f, TILE);",
                                 "{ pipe_barrier(PIPE_V); Muls(yLocal, yLocal, 1.0f, TILE); }", 1)
    with_barrier = base.with_file(K, text, origin="test/intrinsics")
    [res] = check_operator(backend, with_barrier, [cases["t48x2"]])
    assert res.status == "ok" and not res.warnings, (res.status, res.message, res.warnings)
