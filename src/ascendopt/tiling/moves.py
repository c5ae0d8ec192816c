"""Profile-guided moves: what a candidate's diagnosis says to try next, in knob roles.

An expert reading a profile does not sample at random: idle cores call for a wider split,
a memory pipe that waits between transfers calls for deeper buffering, many small transfers
call for bigger tiles, work that does not divide evenly among the cores calls for a core
count that divides it, a gap to the roofline without a clearer cause calls for probing the
tile size. The findings and their thresholds are the one diagnosis of
:mod:`ascendopt.profile.diagnosis` (:func:`~ascendopt.profile.diagnosis.findings`); this module
turns them into concrete configs of a knob space, by knob role (never by name): all findings
answered together first, then each answer alone. Every move is only a proposal; the search
evaluates it like any other candidate.

* ``idle_cores``: core caps and block dims to the most cores, the work per core
  (``core_grain``) to a quarter;
* ``uneven_split``: core knobs to the balanced core count;
* ``memory_stalls``: the buffer count to the overlap depth (at least one more), and no UB held
  in reserve (the buffers need it);
* ``small_transfers``: bigger tiles (tiles doubled, fewer UB parts, no reserve);
* ``roofline_gap``: tiles probed both ways (per-iteration costs against pipeline fill and tails).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ascendopt.profile.diagnosis import Finding, findings as diagnose  # noqa: F401 - Stage II's findings
from ascendopt.tiling.priors import is_core_knob, is_reserve
from ascendopt.tiling.space import Config, KnobSpace


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
    """``config`` with the knobs that ``move`` concerns moved (by role); ``value`` is
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
           "small_transfers": ("tiles_up",), "roofline_gap": ("tiles_up", "tiles_down")}


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
