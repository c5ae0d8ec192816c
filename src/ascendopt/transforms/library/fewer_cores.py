"""Split the work over all AI cores (optimization ``fewer_cores``, family ``multi_core``).

Motif ``fewer_cores`` (rewind, removes it): Use fewer AI cores: a core-count knob -> 1 (and, as a separate site, -> half).

The tiling splits the work over ``blockDim`` AI cores that run concurrently; each core moves
and computes only its share. On one core the whole tensor goes through one core's MTE2/V/MTE3
pipes and one core's share of the GM bandwidth.

Sites are the Stage II knobs whose role says they set how many cores run
(:func:`ascendopt.tiling.priors.is_core_knob`): a cap on the platform core count
(``maxCoreNum = coreNum`` -> ``(coreNum < 1U ? coreNum : 1U)``) or a literal ``SetBlockDim(N)``
argument. Each knob yields two sites: one core (``one``), and half its cores (``half``) when
that differs from one core and from the original. A core count computed outside any knob
(``SetBlockDim(usedCores)`` with ``usedCores`` derived from the shape only) is no site.
"""

from __future__ import annotations

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.operator import Operator
from ascendopt.tiling.priors import is_core_knob
from ascendopt.tiling.space import KnobSpace
from ascendopt.transforms.base import Edit, Motif, Site
from ascendopt.transforms.library._knobflow import knob_edits, knob_site
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="fewer_cores",
    family="multi_core",
    title="Split the work over all AI cores",
    mechanism="Every AI core has its own MTE2/V/MTE3 pipes and its own share of GM bandwidth; "
              "splitting the tensor over all cores runs the shares concurrently.",
    bottleneck="one (or few) cores do all the work: per-core MTE2/V/MTE3 busy time grows with the "
               "whole tensor while the other cores idle; GM bandwidth far below the chip's",
    scope="host",
    relieves=("idle_cores",),
)


@register
class FewerCores(Motif):
    name = "fewer_cores"
    optimization = OPTIMIZATION

    def __init__(self, soc: str = DEFAULT_SOC):
        self.soc = soc

    def find(self, op: Operator) -> list[Site]:
        space = KnobSpace.from_operator(op, self.soc)
        sites = []
        for k in space:
            if not is_core_knob(k) or k.default <= 1:
                continue
            lo = max(1, space.domain(k.id).lo)
            what = "core cap" if k.render == "cap" else "block dim"
            sites.append(knob_site(self.name, k, lo, f"{k.id}: {what} {k.default} -> {lo} (one core)"))
            half = max(lo, k.default // 2)
            if lo < half < k.default:
                sites.append(knob_site(self.name, k, half, f"{k.id}: {what} {k.default} -> {half} (half the cores)"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        return knob_edits(op, site, self.soc)
