"""Timing laws, each on kernel variants that differ in one respect (timing_lab fixture)."""

from __future__ import annotations

import pytest

from ascendopt.profile import Profile

from .common import instr, load, run, variant

K = "op_kernel/timing_lab.cpp"
H = "op_host/timing_lab.cpp"
RUNS = []


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def cyc(backend, op, case, **macros):
    rr = run(backend, variant(op, K, **macros) if macros else op, case)
    RUNS.append((rr, backend.soc))
    return rr


def test_double_buffering_speeds_up(backend, lab):
    op, cases = lab
    one = cyc(backend, op, cases["t48x8"], BUFFER_NUM=1, VEC_OPS=10).profile["max_core_cycles"]
    two = cyc(backend, op, cases["t48x8"], BUFFER_NUM=2, VEC_OPS=10).profile["max_core_cycles"]
    assert two < 0.8 * one, (one, two)


def test_cores_scale_until_hbm_saturates(backend, lab):
    op, cases = lab
    t = {}
    for n in (1, 2, 8, 24, 48):
        rr = run(backend, variant(op, H, MAX_CORES=n), cases["t48x8"])
        RUNS.append((rr, backend.soc))
        t[n] = rr.profile["max_core_cycles"]
    assert t[1] / t[2] > 1.8 and t[1] / t[8] > 6.5, t       # near-linear while bandwidth is free
    assert t[24] / t[48] < 1.6, t                            # saturating: 810 B/cycle / 32 per core


def test_512_byte_alignment_beats_32(backend, lab):
    op, cases = lab
    a512 = cyc(backend, op, cases["t48x2"], GM_OFFSET=0)
    a32 = cyc(backend, op, cases["t48x2"], GM_OFFSET=8)   # 8 floats = 32 bytes
    assert instr(a512, "DataCopy", "MTE2")[1] < instr(a32, "DataCopy", "MTE2")[1]


def test_many_small_bursts_cost_more(backend, lab):
    op, cases = lab
    one = cyc(backend, op, cases["t48x2"], BURSTS=1)
    many = cyc(backend, op, cases["t48x2"], BURSTS=64)
    assert instr(one, "DataCopy", "MTE2")[1] < instr(many, "DataCopy", "MTE2")[1]


def test_pipe_barrier_in_loop_slows(backend, lab):
    op, cases = lab
    free = cyc(backend, op, cases["t48x8"], BARRIER_IN_LOOP=0, VEC_OPS=10).profile["max_core_cycles"]
    barrier = cyc(backend, op, cases["t48x8"], BARRIER_IN_LOOP=1, VEC_OPS=10).profile["max_core_cycles"]
    assert barrier > 1.15 * free, (free, barrier)


def test_scalar_loop_10x_slower_than_vector(backend, lab):
    op, cases = lab
    vec = cyc(backend, op, cases["t48x2"], MODE=1)
    sca = cyc(backend, op, cases["t48x2"], MODE=2)
    v = instr(vec, "Muls", "V")[1]
    s = instr(sca, "LocalTensor::GetValue", "S")[1] + instr(sca, "LocalTensor::SetValue", "S")[1]
    assert s >= 10 * v, (s, v)
    assert sca.profile["max_core_cycles"] > 5 * vec.profile["max_core_cycles"]


def test_deterministic(backend, lab):
    op, cases = lab
    a = cyc(backend, op, cases["t48x8"]).profile
    b = cyc(backend, op, cases["t48x8"]).profile
    assert a["max_core_cycles"] == b["max_core_cycles"]
    assert [c["cycles"] for c in a["cores"]] == [c["cycles"] for c in b["cores"]]


def test_never_faster_than_roofline(backend, lab):
    """Every run of this module: task cycles >= HBM bytes / HBM bandwidth, each core's
    vector time >= its vector bytes / 256 bytes per cycle, and the profile's roofline is at most
    the task duration (achieved fraction <= 1; test_roofline.py has the law on its own variants)."""
    op, cases = lab
    if not RUNS:
        RUNS.append((run(backend, op, cases["t48x8"]), backend.soc))
    for rr, soc in RUNS:
        p = rr.profile
        hbm_bw = soc.params["hbm_bytes_per_cycle"]
        hbm = sum(c["hbm_bytes"] for c in p["cores"])
        assert p["max_core_cycles"] >= hbm / hbm_bw * 0.999, (p["max_core_cycles"], hbm / hbm_bw)
        moved = sum(c["gm_bytes_in"] + c["gm_bytes_out"] - c["l2_hit_bytes"] for c in p["cores"])
        assert p["max_core_cycles"] >= moved / hbm_bw * 0.999
        for c in p["cores"]:
            assert c["pipes"]["V"]["busy_cycles"] >= c["vector_elems"] * 4 / 256 * 0.999
        share = Profile.from_run(rr, "timing_lab", None, soc=soc).summary().achieved_fraction
        assert share is not None and share <= 1 + 1e-9, share
