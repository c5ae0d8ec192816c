"""A synthetic tiling landscape (kernel_tuner style) to replay strategies against on CPU.

Four knobs like an elementwise operator's: a tile length, a buffer count, a core cap and a 0/1
mode flag. Latency falls with bigger tiles, more cores (up to a launch cost) and double
buffering; configs whose buffers overflow the 192 KiB UB fail, like on the device. The optimum
sits right at the edge of the infeasible region, as real ones usually do.
"""

from __future__ import annotations

import math

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import TrialResult

UB_BYTES = 196608
N_ELEMS = 1 << 20
OVERLAP = {1: 1.0, 2: 0.62, 3: 0.55, 4: 0.6}


def make_space() -> KnobSpace:
    return KnobSpace.synthetic({
        "tile": Domain("int", 1024, 8, 16384, 8, log=True),
        "buf": Domain("int", 2, 1, 4, 1),
        "cores": Domain("int", 48, 1, 48, 1),
        "mode": Domain("cat", 0, choices=(0, 1)),
    })


def feasible(c: dict) -> bool:
    return c["buf"] * c["tile"] * 4 * 2 <= UB_BYTES


def latency_us(c: dict) -> float:
    share = N_ELEMS / c["cores"]
    tiles = math.ceil(share / c["tile"])
    per_tile = 1.0 + c["tile"] * 0.002
    return tiles * per_tile * OVERLAP[c["buf"]] + 0.3 * c["cores"] + (0.0 if c["mode"] == 1 else 3.0)


def evaluate(c: dict) -> TrialResult:
    if not feasible(c):
        return TrialResult("ub_overflow", None, False)
    return TrialResult("ok", latency_us(c), True)


def optimum(space: KnobSpace) -> float:
    best = math.inf
    for t in space.domain("tile").grid():
        for b in (1, 2, 3, 4):
            for cores in range(1, 49):
                c = {"tile": t, "buf": b, "cores": cores, "mode": 1}
                if feasible(c):
                    best = min(best, latency_us(c))
    return best
