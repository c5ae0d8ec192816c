"""Default value domains (priors, not rules) for knobs, from their role, value and the SoC.

Ranges come from the SoC's UB size and core counts; infeasible values inside them are left for
evaluations to discover. Tile-like sizes are log-scaled grids of 32-byte granules (bytes) or
8-element granules (element/row counts: one fp32 32-byte block), up to UB/2 bytes. Whether a
knob counts bytes, and the granule the code rounds it to, are read off its uses
(:attr:`Knob.bytes`, :attr:`Knob.granule`), never off its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.knobs import Knob

UB_ALIGN_BYTES = 32
ELEM_GRANULE = 8


@dataclass(frozen=True)
class SocLimits:
    """The SoC figures the priors use."""

    name: str
    ub_bytes: int
    aiv_cores: int
    aic_cores: int

    @staticmethod
    def load(name: str) -> SocLimits:
        from ascendopt.hw.soc import load_soc

        soc = load_soc(name)
        return SocLimits(soc.name, int(soc.get("ub_bytes")), int(soc.get("aiv_cores")),
                         int(soc.get("aic_cores", soc.get("aiv_cores"))))

    def to_json(self) -> dict:
        return {"name": self.name, "ub_bytes": self.ub_bytes, "aiv_cores": self.aiv_cores, "aic_cores": self.aic_cores}


def _floor_to(v: int, g: int) -> int:
    return max(g, v // g * g)


def domain_for(knob: Knob, soc: SocLimits) -> tuple[int, Domain]:
    """Returns (default, domain) for a knob; a core cap's default is the SoC's core count."""
    cores = soc.aic_cores if knob.cores == "aic" else soc.aiv_cores
    d = knob.default
    if knob.render == "cap":
        return cores, Domain("int", cores, 1, cores, 1)
    if knob.flag:
        return d, Domain("cat", d, choices=(0, 1))
    is_bytes = knob.bytes
    if knob.role in ("core_cap", "block_dim"):
        return d, Domain("int", d, 1, max(cores, d), 1)
    if knob.role == "buffer_num":
        return d, Domain("int", d, 1, max(4, d), 1)
    if knob.role == "ub_parts":
        return d, Domain("int", d, 1, max(8, 2 * d), 1)
    if d <= 0:
        if is_bytes or is_reserve(knob):
            return d, Domain("int", d, 0, _floor_to(soc.ub_bytes // 4, UB_ALIGN_BYTES), UB_ALIGN_BYTES)
        return d, Domain("int", d, 0, 16, 1)
    if d < 32 and not is_bytes:
        hi = max(16, 4 * d)
        return d, Domain("int", d, 1, hi, 1, log=hi > 64)
    if is_bytes:
        g = UB_ALIGN_BYTES
        hi = max(soc.ub_bytes // 2, 16 * d)
        if is_reserve(knob):  # UB held back cannot exceed the UB
            hi = max(min(hi, soc.ub_bytes), d)
    else:
        g = ELEM_GRANULE if d % ELEM_GRANULE == 0 else 1
        hi = max(min(soc.ub_bytes // 4, 64 * d), 2 * d)
    if knob.granule > 1 and d % knob.granule == 0:
        g = max(g, knob.granule) if max(g, knob.granule) % min(g, knob.granule) == 0 else knob.granule
    return d, Domain("int", d, g, _floor_to(hi, g), g, log=True)


def is_core_knob(knob: Knob) -> bool:
    """A core cap or block dim: how many cores the kernel runs on."""
    return knob.render == "cap" or knob.role in ("core_cap", "block_dim")


def is_reserve(knob: Knob) -> bool:
    """UB held back from the tiles: the knob's value is subtracted from the UB size."""
    return knob.role == "ub_reserve"


def prior_value(knob: Knob, domain: Domain, default: int) -> int:
    """The textbook AscendC choice for a knob, where its role implies one: every core for core
    caps and block dims, double buffering, no UB held in reserve; otherwise ``default``.
    (A prior, not a rule: the search still evaluates it.)"""
    if is_core_knob(knob):
        v = domain.hi
    elif knob.role == "buffer_num":
        v = 2
    elif is_reserve(knob):
        v = domain.lo
    else:
        v = default
    return v if domain.contains(v) else default
