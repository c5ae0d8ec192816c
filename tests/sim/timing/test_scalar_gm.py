"""Scalar GM accesses through the core's data cache (runtime/dcache.h): timing laws on the
timing_lab fixture's WALK variants (one AIV core, 32768 fp32, GetValue of x after the copies), with
the figures of the SoC file (64-byte lines, 32 KB on an AIV core, hit and miss cycles)."""

from __future__ import annotations

import pytest

from .common import instr, load, run, variant

K = "op_kernel/timing_lab.cpp"
H = "op_host/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def one_core(backend, lab, **macros):
    """t1core (32768 floats) on one core, kernel macros as given."""
    op, cases = lab
    return run(backend, variant(variant(op, K, **macros), H, MAX_CORES=1), cases["t1core"])


def walk(backend, lab, **macros) -> tuple[int, float]:
    return instr(one_core(backend, lab, **macros), "GlobalTensor::GetValue", "S")


def figures(backend) -> tuple[float, float, int, int]:
    p = backend.soc.params
    line = int(p["dcache_line_bytes"])
    return p["scalar_gm_hit_cycles"], p["scalar_gm_miss_cycles"], line, int(p["dcache_aiv_bytes"]) // line


def test_sequential_walk_misses_once_per_line(backend, lab):
    hit, miss, line, _ = figures(backend)
    n, cyc = walk(backend, lab, WALK=4096, STRIDE=1)
    per_line = line // 4
    assert n == 4096
    assert cyc == pytest.approx(4096 / per_line * (miss + (per_line - 1) * hit), abs=1.0)
    assert cyc < 0.2 * n * miss  # the documented point of the cache: a walk mostly hits


@pytest.mark.parametrize("stride", [16, 64])  # 64 and 256 bytes: every access on a new line
def test_stride_of_a_line_or_more_misses_every_access(backend, lab, stride):
    _, miss, line, _ = figures(backend)
    assert stride * 4 >= line
    n, cyc = walk(backend, lab, WALK=512, STRIDE=stride)  # 512 distinct lines (of 32768 floats)
    assert n == 512 and cyc == pytest.approx(512 * miss, abs=1.0)


def test_half_line_stride_hits_every_other_access(backend, lab):
    hit, miss, line, _ = figures(backend)
    n, cyc = walk(backend, lab, WALK=1024, STRIDE=line // 8)
    assert cyc == pytest.approx(512 * (miss + hit), abs=1.0)


def test_a_second_pass_hits_only_when_the_span_fits(backend, lab):
    hit, miss, line, lines = figures(backend)
    fit = lines * line // 4                     # elements of a span of the whole capacity
    n, cyc = walk(backend, lab, WALK=2 * fit, SPAN=fit)
    assert cyc == pytest.approx(lines * miss + (2 * fit - lines) * hit, abs=1.0)
    n, cyc = walk(backend, lab, WALK=4 * fit, SPAN=2 * fit)  # twice the capacity: LRU evicts all
    assert cyc == pytest.approx(4 * lines * miss + (4 * fit - 4 * lines) * hit, abs=1.0)


@pytest.mark.parametrize("mode,dirty,entire", [(1, 0, False), (2, 1, False), (3, 1, True)])
def test_clean_and_invalidate_costs(backend, lab, mode, dirty, entire):
    """One line: the instruction, plus the write-back of the line when the scalar unit wrote it;
    the whole cache: every line of the capacity visited, every dirty one written back."""
    p = backend.soc.params
    rr = one_core(backend, lab, WALK=64, DCCI=mode)
    n, cyc = instr(rr, "DataCacheCleanAndInvalid", "S")
    want = p["dcci_cycles"] + dirty * p["scalar_gm_miss_cycles"]
    if entire:
        want += p["dcache_aiv_bytes"] / p["dcache_line_bytes"] * p["dcci_entire_cycles_per_line"]
    assert n == 1 and cyc == pytest.approx(want, abs=1.0)
    assert not rr.warnings, rr.warnings


def test_a_write_walk_costs_as_a_read_walk(backend, lab):
    """SetValue allocates its line (a miss, then hits on the line) and marks it dirty; evicting a
    dirty line later is not waited for: two passes over twice the capacity cost what reads do."""
    hit, miss, line, lines = figures(backend)
    fit = lines * line // 4
    n, cyc = instr(one_core(backend, lab, WALK=4 * fit, SPAN=2 * fit, WALK_WRITE=1), "GlobalTensor::SetValue", "S")
    assert n == 4 * fit
    assert cyc == pytest.approx(4 * lines * miss + (4 * fit - 4 * lines) * hit, abs=1.0)
