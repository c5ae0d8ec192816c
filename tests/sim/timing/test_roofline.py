"""The roofline is a lower bound under the model, and ``bound`` names the limiting pipe (issue 30).

Law: for every run, roofline <= modelled task duration (``achieved_fraction`` <= 1), and each
term (memory, vector, cube, scalar, ...) is at most the kernel time. Variants of the timing_lab
fixture (and an own operator, a cube and a mix fixture) exercise each term; the roofline is
defined in :mod:`ascendopt.profile.roofline`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.operator import Operator
from ascendopt.profile import Profile
from ascendopt.profile.roofline import LATENCY_BOUND

from ...conftest import FIXTURE_OPS
from .common import load, run, variant

K = "op_kernel/timing_lab.cpp"
OPS = Path(__file__).resolve().parents[3] / "ops"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def summary(backend, rr):
    return Profile.from_run(rr, "k", None, soc=backend.soc).summary()


def assert_lower_bound(backend, rr):
    """The law: roofline <= task duration, every term <= the kernel's modelled time."""
    s = summary(backend, rr)
    kernel_us = rr.profile["task_cycles"] / (backend.soc.params["clock_ghz"] * 1e3)
    assert s.achieved_fraction is not None and s.achieved_fraction <= 1 + 1e-9, (s.roofline_us, s.task_duration_us)
    for name, us in s.roofline_terms_us.items():
        assert us <= kernel_us * (1 + 1e-9), (name, us, kernel_us)
    memory = s.roofline_terms_us.get("HBM", 0.0) + s.roofline_terms_us.get("L2", 0.0)
    assert memory <= kernel_us * (1 + 1e-9), (memory, kernel_us)
    return s


def test_misaligned_l2_traffic_is_not_counted_as_hbm(backend, lab):
    """circular_pad's share above 1: a misaligned burst's extra transaction was counted as HBM
    traffic even when the access was served by L2 (and charged at the L2 rate). Re-reading an
    unaligned input from L2 five times in small bursts made HBM bytes / bandwidth exceed the time."""
    op, cases = lab
    rr = run(backend, variant(op, K, PASSES=6, BURSTS=64, GM_OFFSET=8), cases["t48x8"])
    p = rr.profile
    assert p["task_cycles"] >= p["hbm_bytes_total"] / backend.soc.params["hbm_bytes_per_cycle"]
    # every DMA byte goes somewhere: L2 or HBM (fills round reads up to whole lines)
    assert p["l2_hit_bytes"] + p["hbm_bytes_total"] >= p["gm_bytes_total"]
    s = assert_lower_bound(backend, rr)
    assert s.roofline_limiter in ("HBM", "L2")


@pytest.mark.parametrize("macros", [{}, {"VEC_OPS": 12}, {"BUFFER_NUM": 1}, {"MODE": 1, "BURSTS": 4, "GM_OFFSET": 64},
                                    {"MODE": 1, "BARRIER_IN_LOOP": 1}, {"PASSES": 3, "GM_OFFSET": 8}],
                         ids=["copy", "vector", "single_buffer", "bursts", "barrier", "reread"])
def test_share_at_most_one_on_timing_lab(backend, lab, macros):
    op, cases = lab
    for name in ("t48x8", "t1core"):
        assert_lower_bound(backend, run(backend, variant(op, K, **macros) if macros else op, cases[name]))


def test_scalar_accesses_are_in_the_roofline(backend, lab):
    """A GetValue/SetValue element loop: the scalar term (the S pipe's busy cycles as the timer
    charged them) is the roofline's largest; before, the roofline ignored it (launch only)."""
    op, cases = lab
    rr = run(backend, variant(op, K, MODE=2), cases["t48x2"])
    s = assert_lower_bound(backend, rr)
    busy = sum(c["pipes"]["S"]["busy_cycles"] for c in rr.profile["cores"])
    cores = max(backend.soc.params["aiv_cores"], backend.soc.params["aic_cores"])
    assert s.roofline_limiter == "scalar"
    assert s.scalar_time_us == pytest.approx(busy / cores / (backend.soc.params["clock_ghz"] * 1e3))
    assert s.bound == "S" and s.bound_ratio > 0.9


def test_vector_term_uses_the_per_instruction_cost(backend):
    """Exp costs more than one cycle per repeat in the model (vec_rep.Exp): the vector term is the
    V pipe's busy cycles over the cores, not one repeat per cycle."""
    op = Operator.load(OPS / "level1" / "exp_custom")
    case = max(load_op_cases(OPS / "level1" / "exp_custom"), key=lambda c: math.prod(c.inputs[0].shape))
    rr = run(backend, op, case)
    s = assert_lower_bound(backend, rr)
    busy = sum(c["pipes"]["V"]["busy_cycles"] for c in rr.profile["cores"])
    vec_bytes = sum(c["pipes"]["V"]["bytes"] for c in rr.profile["cores"])
    cores = max(backend.soc.params["aiv_cores"], backend.soc.params["aic_cores"])
    clock = backend.soc.params["clock_ghz"] * 1e3
    assert s.vec_time_us == pytest.approx(busy / cores / clock)
    assert busy > 1.5 * vec_bytes / 256  # the old term: 256 bytes (one repeat) per cycle


@pytest.mark.parametrize("fixture,case", [("matmul_api", "aligned_bias_128x256x128"),
                                          ("matmul_batch", "mix_2x2_33x20x40"), ("mix_roles", "three_ai_cores")])
def test_share_at_most_one_on_cube_and_mix_kernels(backend, fixture, case):
    op = Operator.load(FIXTURE_OPS / fixture)
    cases = {c.name: c for c in load_op_cases(FIXTURE_OPS / fixture)}
    assert_lower_bound(backend, run(backend, op, cases[case]))


def test_bound_says_latency_when_no_pipe_is_busy(backend, lab):
    """SyncAll after every pass: the cores mostly wait at the barriers, no pipe is busy half of
    the time, and the bound says so (before: the busiest, almost idle, pipe)."""
    op, cases = lab
    rr = run(backend, variant(op, K, PASSES=4, MID_SYNCS=6, END_SYNCS=6), cases["t48x2"])
    s = assert_lower_bound(backend, rr)
    assert max(s.pipe_ratio_slowest.values()) <= 0.5
    assert s.bound == LATENCY_BOUND


@pytest.mark.skipif(not os.environ.get("CANNOPS_DIR"), reason="needs a cann-ops checkout: set CANNOPS_DIR")
@pytest.mark.parametrize("name", ["circular_pad", "circular_pad_grad"])
def test_cannops_circular_pad_share_at_most_one(backend, name):
    """Their shares were 1.067 and 1.012: misaligned writes absorbed by L2 counted as HBM traffic."""
    from ascendopt.suites import load_suite

    suite = load_suite("cannops", Path(os.environ["CANNOPS_DIR"]) / "src")
    entry = next(o for o in suite.ops if o.name == name)
    op = Operator.load(entry.dir)
    (case,) = entry.load_cases(list(entry.benchmark))
    assert_lower_bound(backend, run(backend, op, case))
