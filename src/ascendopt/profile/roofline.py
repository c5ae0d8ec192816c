"""The profile summary: per-pipe ratios, the roofline lower bound and the bound.

**Roofline** (docs/timing-model.md, "Roofline"): the least time the timing model could give this
kernel's work (the same instructions and bytes) spread perfectly over the chip's cores::

    roofline = launch + max(memory, vector, cube, MTE1, FIX, scalar)
    memory   = HBM bytes / chip HBM bandwidth + L2 bytes / chip L2 bandwidth
    <pipe>   = sum over the cores of the pipe's busy cycles / cores   (V, M, MTE1, FIX, S)

Why each term bounds the modelled task duration (launch + the slowest physical core):

* a pipe runs one instruction at a time on its core, so its busy cycles on a core are at most
  that core's cycles; the model runs a launch's blocks on at most ``aiv_cores`` physical cores
  at a time (``timer_report.cpp``: blocks beyond them wait for the earliest free one, AIC and AIV
  blocks alike), so the busiest physical core takes at least the sum over all blocks / cores.
  The busy cycles are the model's own per-instruction costs (per-API cycles per repeat, start-up,
  bank conflicts; scalar GM/UB accesses as the model charges them), so the bound follows any
  change of those costs. ``cores`` is the larger of ``aiv_cores`` and ``aic_cores``;
* a core's GM channel (MTE2, MTE3 and Fixpipe share it) moves one transfer at a time, HBM bytes
  at most at the chip's HBM bandwidth / active cores and L2 bytes at the L2 bandwidth / active
  cores, so the busiest core needs at least the memory term. The timer counts a byte as HBM
  traffic exactly when it charges it at the HBM rate (line fills, write-backs, around-L2
  accesses, misalignment transactions of accesses that reach HBM) and as L2 traffic otherwise.

A profile read from ``msprof op`` has no L2 counts: its memory term is GM bytes / HBM bandwidth
(L2 hits count as HBM there). Without per-pipe busy times the vector and cube terms fall back
to work counts at peak rate (:data:`~ascendopt.profile.model.VEC_FALLBACK_ELEM_BYTES`).
``achieved_fraction`` = roofline / task duration, at most 1 under the model.

**Bound**: the pipe busiest on the slowest core, or ``HBM`` when the chip's HBM time (HBM bytes /
bandwidth over the kernel time) is at least as large, or at least :data:`HBM_BOUND_FRACTION` of
the busiest pipe's when that is a GM copy pipe (whose busy time holds the HBM transfers);
:data:`LATENCY_BOUND` when nothing is busy more than half of the time (the kernel waits on
latencies and synchronisation, not on a pipe).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ascendopt.profile.csvio import _soc_params
from ascendopt.profile.model import (
    CUBE_FLOPS_PER_FRACTAL,
    HBM_BOUND_FRACTION,
    PIPES,
    SOC_DEFAULTS,
    VEC_FALLBACK_ELEM_BYTES,
    BlockProfile,
    Summary,
)

if TYPE_CHECKING:
    from ascendopt.profile.core import Profile

LATENCY_BOUND = "latency/synchronization"
BUSY_HALF = 0.5
GM_COPY_PIPES = ("MTE2", "MTE3", "FIX")
# roofline term name of each pipe whose summed busy time is a term
PIPE_TERMS = {"V": "vector", "M": "cube", "MTE1": "MTE1", "FIX": "FIX", "S": "scalar"}


def _busy_sum(rows: list[BlockProfile], pipe: str) -> float | None:
    """Busy cycles of ``pipe`` summed over the rows that report it (None: none does)."""
    vals = [b.pipes[pipe].busy_cycles for b in rows if pipe in b.pipes]
    return sum(vals) if vals else None


def roofline_terms(prof: "Profile", p: dict[str, float], notes: list[str]) -> dict[str, float]:
    """The roofline's terms in microseconds (see the module docstring), by name; a term whose
    inputs the profile lacks is absent. ``p``: SoC figures (:data:`SOC_DEFAULTS` keys and
    ``l2_bytes_per_cycle``)."""
    clock = p["clock_ghz"]
    to_us = 1.0 / (clock * 1e3) if clock > 0 else 0.0
    cores = max(p["aiv_cores"], p["aic_cores"], 1.0)
    terms: dict[str, float] = {}
    work = prof.work
    hbm_bytes = work.hbm_bytes if work.hbm_bytes is not None else work.gm_bytes
    if hbm_bytes is not None and p["hbm_bytes_per_cycle"] > 0:
        terms["HBM"] = hbm_bytes / p["hbm_bytes_per_cycle"] * to_us
        l2_rate = p.get("l2_bytes_per_cycle", 0.0)
        if work.hbm_bytes is not None and work.l2_hit_bytes and l2_rate > 0:
            terms["L2"] = work.l2_hit_bytes / l2_rate * to_us
    else:
        notes.append("no GM byte counts: HBM term of the roofline unknown")
    for pipe, name in PIPE_TERMS.items():
        busy = _busy_sum(prof.blocks, pipe)
        if busy is not None:
            terms[name] = busy / cores * to_us
    if "vector" not in terms:
        peak = p["vec_bytes_per_cycle"] * p["aiv_cores"] * clock * 1e3
        fops = [b.vec_fops for b in prof.blocks if b.vec_fops is not None]
        if work.vec_bytes is not None and peak > 0:
            terms["vector"] = work.vec_bytes / peak
        elif (work.vec_elems is not None or fops) and peak > 0:
            elems = work.vec_elems if work.vec_elems is not None else sum(fops)
            terms["vector"] = elems * VEC_FALLBACK_ELEM_BYTES / peak
            notes.append(f"vector work from element counts, assuming {VEC_FALLBACK_ELEM_BYTES}-byte elements")
    if "cube" not in terms:
        peak = p["cube_flops_per_cycle"] * p["aic_cores"] * clock * 1e3
        fops = [b.cube_fops for b in prof.blocks if b.cube_fops is not None]
        flops = work.cube_flops if work.cube_flops is not None else (sum(fops) if fops else None)
        if flops is not None and peak > 0:
            terms["cube"] = flops / peak
    return terms


def _memory(terms: dict[str, float]) -> tuple[str, float] | None:
    """The memory term (HBM + L2 time, which one core's GM channel serialises), named by the
    larger part."""
    if "HBM" not in terms:
        return None
    hbm, l2 = terms["HBM"], terms.get("L2", 0.0)
    return ("HBM" if hbm >= l2 else "L2"), hbm + l2


def choose_bound(slowest: dict[str, float], hbm_share: float | None) -> tuple[str, float]:
    """The bound and its busy share from the slowest core's pipe ratios and the chip's HBM share
    (rules in the module docstring)."""
    pipe, share = max(slowest.items(), key=lambda kv: kv[1], default=("", 0.0))
    if hbm_share is not None and hbm_share > BUSY_HALF and (
            hbm_share >= share or (pipe in GM_COPY_PIPES and hbm_share >= HBM_BOUND_FRACTION * share)):
        return "HBM", hbm_share
    if not pipe:
        return "unknown", 0.0
    if share <= BUSY_HALF:
        return LATENCY_BOUND, share
    return pipe, share


def summarize(prof: "Profile", soc: Any = None, top: int = 10) -> Summary:
    """:meth:`Profile.summary`: ratios (busy / core cycles per row, averaged over the rows that
    report the pipe, and on the slowest row), the roofline and the bound."""
    soc_name, params = _soc_params(soc if soc is not None else (prof.soc or None))
    p = {k: float(params.get(k, v)) for k, v in SOC_DEFAULTS.items()}
    if params.get("l2_bytes_per_cycle") is not None:
        p["l2_bytes_per_cycle"] = float(params["l2_bytes_per_cycle"])
    if "cube_flops_per_cycle" not in params and params.get("cube_cycles_per_fractal"):
        p["cube_flops_per_cycle"] = CUBE_FLOPS_PER_FRACTAL / float(params["cube_cycles_per_fractal"])
    notes: list[str] = []
    rows = [b for b in prof.blocks if b.cycles > 0] or list(prof.blocks)
    slowest = max(rows, key=lambda b: b.cycles) if rows else None
    # the simulator writes a core doing cube and vector work as two rows of one block with the
    # same cycles (cube pipes on one, the rest on the other): the slowest core is both rows
    slow_rows = [b for b in rows if slowest is not None and b.block_id == slowest.block_id
                 and b.cycles == slowest.cycles]
    mean: dict[str, float] = {}
    slow: dict[str, float] = {}
    for pipe in PIPES:
        vals = [r for r in (b.ratio(pipe) for b in rows) if r is not None]
        if vals:
            mean[pipe] = sum(vals) / len(vals)
        mine = [r for r in (b.ratio(pipe) for b in slow_rows) if r is not None]
        if mine:
            slow[pipe] = max(mine)
    duration = prof.basic.task_duration_us
    kernel_us = max((b.time_us for b in rows), default=0.0) or duration
    terms = roofline_terms(prof, p, notes)
    if "vector" not in terms and any(b.ratio("V") for b in rows):
        notes.append("no vector work counts: vector term of the roofline unknown")
    candidates = [(k, v) for k, v in terms.items() if k in PIPE_TERMS.values()]
    mem = _memory(terms)
    if mem is not None:
        candidates.append(mem)
    limiter, work_us = max(candidates, key=lambda kv: kv[1], default=("launch", 0.0))
    if work_us <= 0:
        limiter = "launch"
    launch = p["launch_overhead_us"]
    roof = work_us + launch
    hbm_us = terms.get("HBM")
    hbm_share = hbm_us / kernel_us if hbm_us is not None and kernel_us > 0 else None
    bound, bound_ratio = choose_bound(slow, hbm_share)
    if bound == LATENCY_BOUND:
        notes.append(f"no pipe is busy more than half of the slowest core's time (busiest "
                     f"{max(slow, key=lambda k: slow[k])} {bound_ratio:.0%}): latency/synchronization bound")
    agg: dict[tuple[str, str], list[float]] = {}
    for ins in prof.instrs:
        a = agg.setdefault((ins.name, ins.pipe), [0, 0.0])
        a[0] += ins.count
        a[1] += ins.cycles
    total_cyc = sum(a[1] for a in agg.values()) or 1.0
    top_rows = [{"name": n, "pipe": pp, "count": int(c), "cycles": cyc, "share": cyc / total_cyc}
                for (n, pp), (c, cyc) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]]
    if prof.trace_truncated:
        notes.append(f"instruction trace truncated ({prof.trace_truncated} records dropped)")

    gm = prof.work.gm_bytes
    return Summary(
        op_name=prof.basic.op_name, op_type=prof.basic.op_type, soc=soc_name or prof.soc,
        task_duration_us=duration, kernel_time_us=kernel_us, block_dim=prof.basic.block_dim,
        mix_block_dim=prof.basic.mix_block_dim, rows=len(prof.blocks),
        slowest_block=None if slowest is None else slowest.block_id,
        pipe_ratio_mean=mean, pipe_ratio_slowest=slow, bound=bound, bound_ratio=bound_ratio,
        hbm_time_us=hbm_us, vec_time_us=terms.get("vector"), cube_time_us=terms.get("cube"),
        launch_overhead_us=launch, roofline_us=roof, roofline_limiter=limiter,
        achieved_fraction=roof / duration if duration > 0 else None, gm_bytes=gm,
        hbm_bytes=prof.work.hbm_bytes if prof.work.hbm_bytes is not None else gm,
        top_instructions=top_rows, notes=notes, split=work_split(prof.blocks),
        l2_time_us=terms.get("L2"), scalar_time_us=terms.get("scalar"), roofline_terms_us=terms)


def work_split(blocks: list[BlockProfile]) -> dict[str, int] | None:
    """How the GM traffic is split among the cores, when the split is uneven and regular.

    A tiling hands each core a whole number of work units (an aligned element block, a row):
    the cores' GM bytes (read + written) then differ by multiples of one unit, the greatest
    common divisor of their differences. Returns ``{"blocks": B, "unit_bytes": u, "units": W}``
    with ``W`` = all bytes / ``u``, or None when every core moves the same bytes, bytes are
    unknown, or a core's bytes are not whole units (each core also reads something of its
    own, e.g. a shared weight: then ``W`` cannot be told). Only the rows of the most frequent
    core type count (the vector rows of a vector kernel).
    """
    types = [b.core_type for b in blocks]
    if not types:
        return None
    kind = max(set(types), key=types.count)
    rows = [b for b in blocks if b.core_type == kind]
    if any(b.gm_read_bytes is None and b.gm_write_bytes is None for b in rows):
        return None
    per = [round((b.gm_read_bytes or 0.0) + (b.gm_write_bytes or 0.0)) for b in rows]
    if len(set(per)) < 2:
        return None
    least = min(per)
    unit = math.gcd(*(v - least for v in per))
    if least % unit:  # a per-core constant (a shared weight read by every core)
        return None
    return {"blocks": len(per), "unit_bytes": unit, "units": sum(per) // unit}
