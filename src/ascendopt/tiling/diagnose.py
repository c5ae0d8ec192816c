"""Profile-guided moves: what a candidate's profile says to try next, in knob roles.

An expert reading a profile does not sample at random: idle cores call for a wider split,
a memory pipe that waits between transfers calls for deeper buffering, many small transfers
call for bigger tiles, work that does not divide evenly among the cores calls for a core
count that divides it, a gap to the roofline without a clearer cause calls for probing the
tile size. :func:`diagnose` turns one profile summary (the simulator's and the
msprof parser's :class:`~ascendopt.profile.model.Summary` share the fields used here) into
such findings, and :func:`directed_moves` turns findings into concrete configs of a knob
space, by knob role: all findings answered together first, then each answer alone. Every
move is only a proposal; the search evaluates it like any other candidate.

The thresholds are heuristics of the search, not hardware facts:

* memory stalls are read off the pipes, not the roofline's bound: only when the busiest pipe
  measured is a memory pipe. When the vector pipe is the busiest, more buffers shrink every
  tile and add instructions to that pipe (rms_norm on its float16 benchmark case has V 92 %,
  MTE2 70 % busy, and 3 buffers are slower than 2; the roofline labelled it HBM until its
  vector term counted the model's per-instruction cycles);
* a memory pipe busier than :data:`SATURATED` of the time has no gaps left to fill; below it
  the buffer count asked is the pipeline's overlap depth (:func:`overlap_depth`), at least one
  more than now: the busy time of all pipes but the scalar one over the busiest pipe's is how
  many tiles must be in flight for the busiest pipe to run on without waiting for the others
  (with one buffer, a tile's copy-in, compute and copy-out run one after another);
* a candidate within :data:`HEADROOM` of its roofline with no other finding is done, below it
  the tile size is probed both ways (per-iteration costs against pipeline fill and tails);
* an uneven split is answered by the most cores, at least half of them, that divide the work
  units evenly (:func:`balanced_cores`; the units are inferred from the cores' GM bytes,
  :func:`ascendopt.profile.core.work_split`): an even split also starts every core's data on
  the same alignment;
* a transfer smaller than :data:`SMALL_TRANSFER_BYTES` pays a noticeable fixed cost: on the
  Ascend910B2 model a DMA costs about 28 cycles of issue and turnaround
  (``dma_issue_cycles + dma_latency_cycles`` in ``socs/Ascend910B2.toml``), about 5 % of a
  16 KiB transfer at the per-core rate of 32 bytes per cycle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ascendopt.profile.diagnosis import MEMORY_PIPES, SMALL_TRANSFER_BYTES  # noqa: F401 - re-exported
from ascendopt.tiling.priors import is_core_knob, is_reserve
from ascendopt.tiling.space import Config, KnobSpace

SATURATED = 0.95
HEADROOM = 0.97
FINDINGS = ("idle_cores", "uneven_split", "memory_stalls", "small_transfers", "headroom")

# the compact profile a strategy is told: the fields of a Summary that diagnose() reads
_KEEP = ("op_type", "block_dim", "bound", "pipe_ratio_mean", "gm_bytes", "achieved_fraction", "split")


def compact_profile(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The part of a profile summary (``Summary.to_dict()``) a strategy needs, JSON-small:
    op type (vector / cube / mix), block dim, bound, mean pipe ratios, GM bytes, achieved
    roofline fraction, the uneven split of the work among the cores when there is one
    (``split``) and the number of memory-pipe instructions (``transfers``, from the
    top-instruction table)."""
    if not summary:
        return None
    out = {k: summary.get(k) for k in _KEEP if summary.get(k) is not None}
    rows = [r for r in summary.get("top_instructions") or () if r.get("pipe") in MEMORY_PIPES]
    if rows:
        out["transfers"] = int(sum(int(r.get("count") or 0) for r in rows))
    return out or None


@dataclass(frozen=True)
class Finding:
    """One thing the profile says (``kind`` in :data:`FINDINGS`) and why; ``value`` is the
    number a move needs (the balanced core count of ``uneven_split``, the overlap depth of
    ``memory_stalls``)."""

    kind: str
    reason: str
    value: int | None = None


def diagnose(profile: Mapping[str, Any] | None, cores: int) -> list[Finding]:
    """Findings of a compact profile (see :func:`compact_profile`) on a SoC with ``cores``
    cores of the kernel's type, most important first."""
    if not profile:
        return []
    found: list[Finding] = []
    block_dim = int(profile.get("block_dim") or 0)
    if 0 < block_dim < cores:
        found.append(Finding("idle_cores", f"block dim {block_dim} of {cores} cores"))
    split = profile.get("split")
    if split and block_dim:
        even = balanced_cores(int(split["units"]), cores)
        if even and even != block_dim:
            found.append(Finding("uneven_split", f"{split['units']} units of {split['unit_bytes']} B do not divide "
                                                 f"among {block_dim} cores; {even} cores split them evenly", even))
    ratios = {p: float(r) for p, r in (profile.get("pipe_ratio_mean") or {}).items() if r is not None}
    busiest = max(ratios, key=lambda p: ratios[p], default=None)
    # the pipes' measured busy time decides; the roofline's label only stands in without it
    memory_bound = busiest in MEMORY_PIPES if busiest is not None else profile.get("bound") == "HBM"
    mem = max((ratios.get(p, 0.0) for p in MEMORY_PIPES), default=0.0)
    if memory_bound and mem < SATURATED:
        depth = overlap_depth(ratios)
        found.append(Finding("memory_stalls", f"memory bound, busiest memory pipe {mem:.0%} busy"
                                              + (f", the pipes' work overlaps {depth} deep" if depth else ""), depth))
    transfers, gm = profile.get("transfers"), profile.get("gm_bytes")
    if transfers and gm and gm / transfers < SMALL_TRANSFER_BYTES:
        found.append(Finding("small_transfers", f"{gm / transfers / 1024:.1f} KiB per transfer"))
    achieved = profile.get("achieved_fraction")
    if all(f.kind == "uneven_split" for f in found) and achieved is not None and achieved < HEADROOM:
        # an uneven split explains little of a gap to the roofline: the tile size is still probed
        found.append(Finding("headroom", f"{achieved:.0%} of the roofline and no clearer cause: probe the tile size"))
    return found


def overlap_depth(ratios: Mapping[str, float]) -> int | None:
    """Tiles in flight for the busiest pipe to run on without waiting: the busy ratios of all
    pipes but the scalar one summed, over the busiest one's, rounded up (None without busy
    pipes). Pipes that run one after another per tile need that many buffers to overlap."""
    busy = [r for p, r in ratios.items() if p != "S" and r > 0]
    if not busy:
        return None
    return max(1, math.ceil(sum(busy) / max(busy) - 1e-6))


def balanced_cores(units: int, cores: int) -> int | None:
    """The most cores, at least half of ``cores``, among which ``units`` divide evenly."""
    for n in range(cores, cores // 2 - 1, -1):
        if n > 0 and units % n == 0:
            return n
    return None


def kernel_cores(space: KnobSpace, profile: Mapping[str, Any] | None = None) -> int:
    """Cores of the kernel's type on the space's SoC: cube cores for a cube or mix kernel (the
    profile's op type; block dim then counts cube cores) or when a core cap says so, vector
    cores otherwise; 0 when the space has no SoC."""
    soc = space.soc
    if soc is None:
        return 0
    cube = (profile or {}).get("op_type") in ("cube", "mix") or any(k.cores == "aic" for k in space.knobs)
    return soc.aic_cores if cube else soc.aiv_cores


def _moved(space: KnobSpace, config: Mapping[str, Any], move: str, value: int | None = None) -> Config:
    """``config`` with the knobs that ``move`` concerns moved (by role and name); ``value`` is
    the finding's number (the core count of ``cores_even``, the buffer count of ``buffers_up``)."""
    c = space.complete(config)
    for k in space.knobs:
        d = space.domain(k.id)
        v = c[k.id]
        if d.kind == "cat":
            continue
        new = v
        if move == "cores_up":
            if is_core_knob(k):
                new = d.hi
            elif k.role == "core_grain":  # less work per core: more cores
                new = d.snap(v / 4)
        elif move == "cores_even":
            if is_core_knob(k) and value is not None:
                new = value
        elif move == "buffers_up":  # more buffers (the overlap depth, at least one more), and the UB they need
            if k.role == "buffer_num":
                new = d.snap(max(v + 1, value or 0))
            elif is_reserve(k):
                new = d.lo
        elif move in ("tiles_up", "tiles_down"):
            up = move == "tiles_up"
            if is_reserve(k) and up:
                new = d.lo
            elif k.role == "ub_parts":
                new = d.snap(v - 1 if up else v + 1)
            elif k.role == "tile":
                new = d.snap(2 * v if up else v / 2)
        if new != v and d.contains(new):
            c[k.id] = new
    return c


# the moves answering each finding: alternatives, the first one is used in the combined move
ANSWERS = {"idle_cores": ("cores_up",), "uneven_split": ("cores_even",), "memory_stalls": ("buffers_up",),
           "small_transfers": ("tiles_up",), "headroom": ("tiles_up", "tiles_down")}


def directed_moves(space: KnobSpace, config: Mapping[str, Any], findings: list[Finding]) -> list[Config]:
    """Configs answering ``findings`` from ``config``: the first answer of every finding at
    once first, then each answer alone; configs equal to ``config`` or to an earlier move are
    dropped."""
    base = space.complete(config)
    combined = dict(base)
    for f in findings:
        combined = _moved(space, combined, ANSWERS[f.kind][0], f.value)
    out: list[Config] = []
    seen = {space.key(base)}
    for c in [combined] + [_moved(space, base, m, f.value) for f in findings for m in ANSWERS[f.kind]]:
        if space.key(c) not in seen:
            seen.add(space.key(c))
            out.append(c)
    return out
