"""Use large UB tiles (optimization ``shrink_tile``, family ``tile_size``).

Motif ``shrink_tile`` (rewind, removes it): Shrink the tiles: a tile-size knob -> a quarter of its value; UB left for tiles -> a quarter.

Large UB tiles amortise the fixed cost of every DMA (issue + per-burst) and every vector
instruction (start-up) over many bytes. With a quarter of the tile, the same data takes four
times as many copies and instructions.

Sites come from the Stage II knob space (:meth:`ascendopt.tiling.space.KnobSpace.from_operator`),
read by mechanism in the tiling function's def-use graph (:mod:`._knobflow`):

* a **tile knob** is a ``tile``-role knob whose value reaches a tiling-data field
  (``tiling.set_x(...)``) but *not* the ``SetBlockDim`` argument, or a kernel compile-time
  tile constant. A ``tile``-role knob that reaches the block dim is a per-core minimum share
  (how finely work is split over cores, e.g. ``minBytesPerCore``), not a tile size: shrinking
  it spreads work over *more* cores, so it is no site here.
  New value: a quarter, floored to the knob's domain step, not below its domain's minimum.
* a **reserve knob** (:func:`ascendopt.tiling.priors.is_reserve`) whose value reaches the
  subtrahend of ``<UB size> - ...`` (the UB size being what ``GetCoreMemSize`` returns): the
  tiles get what is left. New value: the reserve that leaves a quarter of what the tiles had
  (``old + 3/4 (UB - old)``, 32-byte aligned). This deliberately exceeds the Stage II prior
  domain of a zero reserve (UB/4): the domain is a search prior, not a feasibility rule.
"""

from __future__ import annotations

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.operator import Operator
from ascendopt.tiling.priors import UB_ALIGN_BYTES, SocLimits, is_core_knob, is_reserve
from ascendopt.tiling.space import KnobSpace
from ascendopt.transforms.base import Edit, Motif, Site
from ascendopt.transforms.library._knobflow import knob_edits, knob_site, tiling_flow
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="shrink_tile",
    family="tile_size",
    title="Use large UB tiles",
    mechanism="Every DMA and every vector instruction has a fixed cost (issue, per-burst set-up, "
              "vector start-up); large tiles amortise it over many bytes and cut the number of "
              "loop iterations and queue hand-offs.",
    bottleneck="4x the DMA and vector instructions for the same data: fixed per-instruction costs and "
               "scalar loop overhead dominate, MTE2/V busy time grows while bytes moved stay equal",
    scope="host",
    relieves=("small_transfers", "scalar_heavy"),
)


def quarter(value: int, lo: int, step: int) -> int:
    step = max(1, step)
    return max(lo, value // 4 // step * step)


@register
class ShrinkTile(Motif):
    name = "shrink_tile"
    optimization = OPTIMIZATION

    def __init__(self, soc: str = DEFAULT_SOC):
        self.soc = soc

    def find(self, op: Operator) -> list[Site]:
        space = KnobSpace.from_operator(op, self.soc)
        if not len(space):
            return []
        flow = tiling_flow(op, space)
        to_cores = flow.block_dim_sources() if flow else set()
        to_tiling = flow.tiling_data_sources() if flow else set()
        reserved = flow.subtracted_from_ub() if flow else set()
        ub = SocLimits.load(self.soc).ub_bytes
        sites = []
        for k in space:
            d = space.domain(k.id)
            if is_reserve(k) and k.scope != "kernel" and k.name in reserved:
                new = (k.default + (ub - k.default) * 3 // 4) // UB_ALIGN_BYTES * UB_ALIGN_BYTES
                if new > k.default:
                    sites.append(knob_site(self.name, k, new,
                                           f"{k.id}: UB reserve {k.default} -> {new} (tiles get a quarter)"))
                continue
            if k.role != "tile" or k.flag or is_core_knob(k) or d.kind != "int":
                continue
            if k.scope != "kernel" and (k.name in to_cores or k.name not in to_tiling):
                continue  # a per-core minimum (reaches the block dim) or dead: not a tile size
            new = quarter(k.default, d.lo, d.step)
            if new < k.default:
                sites.append(knob_site(self.name, k, new, f"{k.id}: tile {k.default} -> {new}"))
        return sorted(sites, key=lambda s: (s.file, s.start))

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        return knob_edits(op, site, self.soc)
