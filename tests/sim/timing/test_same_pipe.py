"""Ordering inside the vector pipe (issue 30, item 3).

In one pipe instructions run in order, but the next may start before the previous one has
finished; ``PipeBarrier<PIPE_V>`` makes it wait until every earlier V instruction is done
(asc-devkit 核内同步能力概述.md, 单流水同步; PipeBarrier(ISASI).md: Add then Mul reading its output
needs one). Under ``--cce-auto-sync`` (the default) the compiler inserts that barrier for a V->V
dependency itself (关键特性说明.md, table 1: PIPE_V -> PIPE_V "编译器自动插入PipeBarrier"); with
``=off`` nothing does. The model: a V instruction's start-up is pipeline latency the next
independent V instruction overlaps (``vec_drain_cycles``); a barrier, given or inserted, costs that
drain; a read-after-write or write-after-write between V instructions with nothing ordering them is
a ``same_pipe_race`` warning when the compiler inserts nothing.

Kernels: timing_copy MODE 1 runs VOP once (ADDS 1) on fp32 tensors a, b, c of 4096 elements (64
repeats) at distinct UB offsets, then a V->MTE2 flag, so the core's time ends with the last V
instruction's completion.
"""

from __future__ import annotations

import pytest

from ...conftest import FIXTURE_OPS
from .common import load, run, variant

K = "op_kernel/timing_copy.cpp"
RAW = "{ Muls(b, a, 2.0f, COUNT); Muls(c, b, 2.0f, COUNT); }"
RAW_BARRIER = "{ Muls(b, a, 2.0f, COUNT); PipeBarrier<PIPE_V>(); Muls(c, b, 2.0f, COUNT); }"
RAW_ALL = "{ Muls(b, a, 2.0f, COUNT); PipeBarrier<PIPE_ALL>(); Muls(c, b, 2.0f, COUNT); }"
RAW_FLAG = ("{ Muls(b, a, 2.0f, COUNT); SetFlag<HardEvent::V_S>(0); WaitFlag<HardEvent::V_S>(0); "
            "Muls(c, b, 2.0f, COUNT); }")
WAW = "{ Muls(c, a, 2.0f, COUNT); Muls(c, b, 2.0f, COUNT); }"
WAR = "{ Muls(c, b, 2.0f, COUNT); Muls(b, a, 2.0f, COUNT); }"
INDEPENDENT = "{ Muls(b, a, 2.0f, COUNT); Muls(c, a, 2.0f, COUNT); }"
INDEPENDENT_BARRIER = "{ Muls(b, a, 2.0f, COUNT); PipeBarrier<PIPE_V>(); Muls(c, a, 2.0f, COUNT); }"
LIBRARY = "Tanh(c, a, COUNT)"  # a high-level API of 4 dependent V steps
# Two column chunks of 8 rows of 512 bytes (repeat stride 16 blocks): the first writes bytes
# [0, 256) of each row, the second [256, 512) (c[64]) or [128, 384) (c[32], overlapping).
CHUNKS = "{ Muls(c, a, 2.0f, 64, 8, UnaryRepeatParams(1, 1, 16, 8)); Muls(c[%d], a, 2.0f, 64, 8, UnaryRepeatParams(1, 1, 16, 8)); }"


@pytest.fixture(scope="module")
def lab():
    op, cases = load("timing_copy")
    return op, cases["bank"]


@pytest.fixture(scope="module")
def lab_off(no_auto_sync):
    return no_auto_sync(FIXTURE_OPS / "timing_copy")


_CASE = load("timing_copy")[1]["bank"]


def _go(backend, op, vop):
    return run(backend, variant(op, K, MODE=1, ADDS=1, VOP=vop), _CASE)


def _same_pipe(rr) -> list[dict]:
    return [w for w in rr.warnings if w["kind"] == "same_pipe_race"]


def _cycles(rr) -> float:
    return max(c["cycles"] for c in rr.profile["cores"])


def test_dependent_vector_instructions_without_barrier_race_when_the_compiler_inserts_nothing(backend, lab_off):
    raw = _go(backend, lab_off, RAW)
    races = _same_pipe(raw)
    assert len(races) == 1, raw.warnings
    msg = races[0]["message"]
    assert "write-read" in msg and "Muls" in msg and "PipeBarrier<PIPE_V>" in msg and "--cce-auto-sync=off" in msg
    waw = _same_pipe(_go(backend, lab_off, WAW))
    assert len(waw) == 1 and "write-write" in waw[0]["message"], waw
    # Ordered by a barrier (V or ALL) or a flag chain whose set waits for the first Muls: no race.
    for vop in (RAW_BARRIER, RAW_ALL, RAW_FLAG):
        rr = _go(backend, lab_off, vop)
        assert not rr.warnings, (vop, rr.warnings)
    # The later instruction writing what the earlier one reads is no hazard in an in-order pipe,
    # nor are independent instructions.
    for vop in (WAR, INDEPENDENT):
        rr = _go(backend, lab_off, vop)
        assert not rr.warnings, (vop, rr.warnings)


def test_a_vector_barrier_costs_the_pipeline_drain(backend, lab_off):
    drain = backend.soc.params["vec_drain_cycles"]
    assert drain > 0
    raw, raw_b = _go(backend, lab_off, RAW), _go(backend, lab_off, RAW_BARRIER)
    assert _cycles(raw_b) - _cycles(raw) == pytest.approx(drain), (_cycles(raw_b), _cycles(raw))
    ind, ind_b = _go(backend, lab_off, INDEPENDENT), _go(backend, lab_off, INDEPENDENT_BARRIER)
    assert _cycles(ind_b) - _cycles(ind) == pytest.approx(drain), (_cycles(ind_b), _cycles(ind))
    # Each instruction's own cycles (the per-API statistics) are its drained cost either way.
    for rr in (raw, raw_b, ind, ind_b):
        (muls,) = [i for i in rr.profile["cores"][0]["instrs"] if i["name"] == "Muls"]
        assert muls["count"] == 2
        assert muls["cycles"] / 2 == pytest.approx(backend.soc.params["vec_startup_cycles"] + 64)


def test_under_auto_sync_the_compiler_inserts_the_barrier_and_it_costs_the_drain(backend, lab, lab_off):
    op = lab[0]
    assert op.auto_sync  # the toolkit's default
    raw = _go(backend, op, RAW)
    assert not raw.warnings, raw.warnings
    assert raw.profile["cores"][0].get("auto_barriers", 0) == 1
    assert _cycles(raw) == pytest.approx(_cycles(_go(backend, op, RAW_BARRIER)))
    assert _cycles(raw) == pytest.approx(_cycles(_go(backend, lab_off, RAW_BARRIER)))
    # Nothing to insert between independent instructions: they overlap the drain.
    ind = _go(backend, op, INDEPENDENT)
    assert "auto_barriers" not in ind.profile["cores"][0]
    assert _cycles(_go(backend, op, INDEPENDENT_BARRIER)) - _cycles(ind) == pytest.approx(
        backend.soc.params["vec_drain_cycles"])


def test_a_library_apis_own_steps_are_ordered_by_the_library(backend, lab, lab_off):
    """Tanh is 4 dependent V steps; the library separates them with its own barriers: no race
    with =off, and each step costs its drained figure (4 x 24 + 4 x 64 x 4 per-repeat cycles)."""
    off = _go(backend, lab_off, LIBRARY)
    assert not off.warnings, off.warnings
    on = _go(backend, lab[0], LIBRARY)
    assert "auto_barriers" not in on.profile["cores"][0]
    assert _cycles(on) == pytest.approx(_cycles(off))
    (tanh,) = [i for i in on.profile["cores"][0]["instrs"] if i["name"] == "Tanh"]
    v_busy = on.profile["cores"][0]["pipes"]["V"]["busy_cycles"]
    assert v_busy == pytest.approx(tanh["cycles"], abs=0.5)  # serial: busy spans do not overlap


def test_strided_instructions_conflict_only_where_their_repeats_touch(backend, lab, lab_off):
    """Column chunks over rows: the hulls of the two Muls overlap, the bytes they write do not.
    (The race check used to compare hulls: a write-write race with =off, an inserted barrier
    under auto-sync.)"""
    disjoint = _go(backend, lab_off, CHUNKS % 64)
    assert not disjoint.warnings, disjoint.warnings
    assert "auto_barriers" not in _go(backend, lab[0], CHUNKS % 64).profile["cores"][0]
    overlap = _same_pipe(_go(backend, lab_off, CHUNKS % 32))
    assert len(overlap) == 1 and "write-write" in overlap[0]["message"], overlap
    assert _go(backend, lab[0], CHUNKS % 32).profile["cores"][0].get("auto_barriers") == 1
