"""Adjacent programs: the nearest configs, knob by knob, that launch a different device program.

Many knob values launch the same device program: a UB reserve sets the tile size only up to
alignment and rounding, a core cap above the work's split changes nothing. Latency is then a
staircase over the knob, and a neighbour step usually stays on the current step. Which
program a config launches is cheap to know: the host tiling alone tells it (the launch key,
:meth:`~ascendopt.evaluate.evaluator.Evaluator.launch_key`; milliseconds, no device run,
no budget). :func:`adjacent_programs` walks each knob's grid away from a config in both
directions, with doubling strides and then bisection, to the first value whose program
differs: the next step of the staircase on either side, whatever its distance in knob values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ascendopt.tiling.space import Config, KnobSpace

ProgramOf = Callable[[Mapping[str, Any]], "str | None"]


def adjacent_programs(space: KnobSpace, config: Mapping[str, Any], program_of: ProgramOf) -> list[Config]:
    """For every non-categorical knob and both directions, the config nearest to ``config``
    (only that knob changed) whose program differs from ``config``'s; per knob upwards first.

    ``program_of`` returns a config's program key, or None when its tiling fails (the walk
    stops there: the far side of a failure is left to the search). Nothing is returned when
    ``config``'s own program is unknown.
    """
    base = space.complete(config)
    here = program_of(base)
    if here is None:
        return []
    out: list[Config] = []
    for k in space.knobs:
        d = space.domain(k.id)
        grid = d.grid()
        if d.kind == "cat" or base[k.id] not in grid:
            continue
        i = grid.index(base[k.id])
        for sign in (1, -1):
            j = _first_change(lambda off: program_of({**base, k.id: grid[i + sign * off]}),
                              here, (len(grid) - 1 - i) if sign > 0 else i)
            if j is not None:
                out.append({**base, k.id: grid[i + sign * j]})
    return out


def _first_change(program_at: Callable[[int], "str | None"], here: str, room: int) -> int | None:
    """An offset in 1..``room`` where ``program_at`` differs from ``here`` right after one
    where it does not (doubling strides, then bisection between the last equal and the first
    different stride): the smallest such offset when the program changes once in between.
    None when no stride differs, or when a failing tiling (None) comes first."""
    same, off = 0, 1
    while True:
        off = min(off, room)
        if off <= same:
            return None
        p = program_at(off)
        if p is None:
            return None
        if p != here:
            break
        same, off = off, off * 2
    lo, hi = same, off  # program_at(lo) == here (or lo == 0), program_at(hi) differs
    while hi - lo > 1:
        mid = (lo + hi) // 2
        p = program_at(mid)
        if p is None:
            return None
        if p == here:
            lo = mid
        else:
            hi = mid
    return hi
