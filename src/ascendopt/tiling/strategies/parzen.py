"""Model-based proposals: a univariate Parzen density ratio over the history (the idea of TPE).

The history is split into the *good* configs (the fastest ``gamma`` fraction of the usable
ones) and the rest (slower usable configs and failures). Per knob, each side is a Parzen
density: Gaussian kernels on the told values, in the knob's [0, 1] coordinate (log-scaled for
log and power-of-two domains), plus a flat prior component; categorical knobs use smoothed
counts. Candidates are drawn from the good density knob by knob and the one with the largest
summed log ratio good / rest is proposed. So a value region that several good configs share
(e.g. a window of UB reserve sizes under which tiles divide the work evenly) keeps being
proposed, with the other knobs recombined from other good configs, even when no single parent
contains the whole combination.

Everything here is a pure function of the history and the caller's RNG, so a strategy that
uses it needs no extra state to resume.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import Config, KnobSpace
from ascendopt.tiling.strategies.base import TrialResult

MIN_BANDWIDTH = 0.02
MAX_BANDWIDTH = 0.5


def _log_scaled(d: Domain) -> bool:
    return d.kind == "pow2" or d.log


@functools.lru_cache(maxsize=256)
def _ends(d: Domain) -> tuple[int, int]:
    """The lowest and highest admissible values (the grid is built once per domain: it is
    asked for every point and every candidate's density)."""
    g = d.grid()
    return min(g), max(g)


def to_unit(d: Domain, v: int) -> float:
    """``v``'s position in [0, 1] on the domain's scale (log for log and power-of-two domains)."""
    lo, hi = _ends(d)
    if d.kind == "cat":
        return d.choices.index(v) / max(len(d.choices) - 1, 1) if v in d.choices else 0.5
    if hi <= lo:
        return 0.5
    if _log_scaled(d):
        s = max(d.step, 1) if lo <= 0 else 0
        return (math.log(v + s) - math.log(lo + s)) / (math.log(hi + s) - math.log(lo + s))
    return (v - lo) / (hi - lo)


def from_unit(d: Domain, u: float) -> int:
    """The admissible value nearest to position ``u`` (inverse of :func:`to_unit`)."""
    lo, hi = _ends(d)
    u = min(max(u, 0.0), 1.0)
    if d.kind == "cat":
        return d.choices[round(u * (len(d.choices) - 1))]
    if _log_scaled(d):
        s = max(d.step, 1) if lo <= 0 else 0
        return d.snap(math.exp(math.log(lo + s) + u * (math.log(hi + s) - math.log(lo + s))) - s)
    return d.snap(lo + u * (hi - lo))


class _Density:
    """One knob's Parzen density over one side of the split."""

    def __init__(self, d: Domain, values: Sequence[int]):
        self.d = d
        self.n = len(values)
        if d.kind == "cat":
            self.counts = {c: sum(v == c for v in values) for c in d.choices}
            return
        self.points = [to_unit(d, v) for v in values]
        if self.n > 1:
            mean = sum(self.points) / self.n
            sd = math.sqrt(sum((p - mean) ** 2 for p in self.points) / (self.n - 1))
        else:
            sd = 1 / math.sqrt(12)  # a flat prior's spread
        self.h = min(max(1.06 * sd * self.n ** -0.2, MIN_BANDWIDTH), MAX_BANDWIDTH)

    def sample(self, rng: random.Random) -> int:
        d = self.d
        if d.kind == "cat":
            weights = [self.counts[c] + 1 for c in d.choices]
            return rng.choices(d.choices, weights=weights, k=1)[0]
        if rng.random() < 1 / (self.n + 1):
            return from_unit(d, rng.random())
        return from_unit(d, rng.choice(self.points) + rng.gauss(0.0, self.h))

    def log_pdf(self, v: int) -> float:
        d = self.d
        if d.kind == "cat":
            return math.log((self.counts.get(v, 0) + 1) / (self.n + len(d.choices)))
        u = to_unit(d, v)
        kern = sum(math.exp(-0.5 * ((u - p) / self.h) ** 2) for p in self.points) / (self.h * math.sqrt(2 * math.pi))
        return math.log((1.0 + kern) / (self.n + 1))


def split(history: Sequence[tuple[Config, TrialResult]], gamma: float) -> tuple[list[Config], list[Config]]:
    """(good, rest): the fastest ``ceil(gamma * usable)`` usable configs (at least 1, at most
    25), and every other told config, failures included."""
    usable = sorted((r.latency_us, i) for i, (_, r) in enumerate(history) if r.usable)
    n_good = min(max(1, math.ceil(gamma * len(usable))), 25)
    good_idx = {i for _, i in usable[:n_good]}
    good = [c for i, (c, _) in enumerate(history) if i in good_idx]
    rest = [c for i, (c, _) in enumerate(history) if i not in good_idx]
    return good, rest


def propose(space: KnobSpace, history: Sequence[tuple[Config, TrialResult]], rng: random.Random, *,
            candidates: int = 24, gamma: float = 0.1, exclude=lambda c: False) -> Config | None:
    """The candidate (of ``candidates`` drawn from the good densities, ``exclude``-d ones
    skipped) with the largest good / rest log density ratio; None without a usable config."""
    if not any(r.usable for _, r in history):
        return None
    good, rest = split(history, gamma)
    dens = {k.id: (_Density(space.domain(k.id), [c[k.id] for c in good]),
                   _Density(space.domain(k.id), [c[k.id] for c in rest])) for k in space.knobs}
    best, best_score = None, -math.inf
    for _ in range(candidates):
        c = {kid: lg[0].sample(rng) for kid, lg in dens.items()}
        if exclude(c):
            continue
        score = sum(lg[0].log_pdf(c[kid]) - lg[1].log_pdf(c[kid]) for kid, lg in dens.items())
        if score > best_score:
            best, best_score = c, score
    return best
