"""SyncAll's timing laws: a barrier costs its modelled cost once, whatever the order in which
cores arrive; cores that arrive early wait, and nobody runs the next phase after another core
(issue 30: a released core used to read the barrier's time only when its turn came, after a
lower core had already raised it at the next barrier, so the phase between two barriers ran on
one core after another)."""

from __future__ import annotations

import pytest

from .common import load, run, variant

K = "op_kernel/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def cycles(backend, lab, **macros) -> float:
    op, cases = lab
    rr = run(backend, variant(op, K, **macros), cases["t48x8"])
    assert rr.block_dim > 8, rr.block_dim
    return rr.profile["max_core_cycles"]


def barrier(backend) -> float:
    return float(backend.soc.params["sync_all_cycles"])


def test_a_barrier_at_the_end_costs_one_barrier(backend, lab):
    one = cycles(backend, lab, PASSES=2, MID_SYNCS=1)
    two = cycles(backend, lab, PASSES=2, MID_SYNCS=1, END_SYNCS=1)
    b = barrier(backend)
    assert b <= two - one <= 1.2 * b, (one, two, b)


@pytest.mark.parametrize("n", [1, 3])
def test_n_barriers_between_equal_phases_cost_n_barriers(backend, lab, n):
    base = cycles(backend, lab, PASSES=2, MID_SYNCS=1)
    more = cycles(backend, lab, PASSES=2, MID_SYNCS=1 + n)
    b = barrier(backend)
    assert n * b <= more - base <= n * 1.2 * b, (base, more, n, b)


def test_arrival_order_does_not_matter(backend, lab):
    """The last block arriving last, or the first: the same time, and the phase after the
    barrier runs on every core at once (about one phase, not 48)."""
    late_last = cycles(backend, lab, PASSES=2, MID_SYNCS=1, END_SYNCS=1, SKEW=4)
    late_first = cycles(backend, lab, PASSES=2, MID_SYNCS=1, END_SYNCS=1, SKEW=-4)
    assert late_last == pytest.approx(late_first, rel=0.01), (late_last, late_first)
    one_pass_skewed = cycles(backend, lab, PASSES=1, SKEW=4)
    one_pass = cycles(backend, lab, PASSES=1)
    # the skewed first pass, a barrier, one more pass (on every core at once), a barrier
    b = barrier(backend)
    assert late_last <= one_pass_skewed + 2 * b + 1.2 * one_pass, (late_last, one_pass_skewed, one_pass, b)
