"""The options of the ``evo`` tiling strategy (:mod:`ascendopt.tiling.strategies.evo`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from ascendopt.tiling.space import Config
from ascendopt.tiling.strategies.base import TrialResult

DEFAULT_MUTATION_WEIGHTS: dict[str, float] = {"neighbour": 0.5, "pow2": 0.25, "resample": 0.25}


@runtime_checkable
class LLMMutator(Protocol):
    """Proposes a rewritten evolvable region (the text between the markers).

    ``history`` holds (config, result) pairs told so far, oldest first. Returns None to decline.
    """

    def propose(self, region_text: str, history: Sequence[tuple[Config, TrialResult]]) -> str | None: ...


@dataclass(frozen=True)
class EvoConfig:
    """The options of :class:`~ascendopt.tiling.strategies.evo.EvoStrategy`; each is documented
    in :data:`EVO_OPTIONS`."""

    population_size: int = 16
    init_size: int = 8
    tournament_size: int = 3
    crossover_rate: float = 0.5
    mutation_rate: float = 0.3
    mutation_weights: Mapping[str, float] | None = field(default_factory=lambda: dict(DEFAULT_MUTATION_WEIGHTS))
    fail_penalty: float = 2.0
    candidates: int = 8
    llm_mutator: LLMMutator | None = None
    llm_rate: float = 0.0
    start_with_default: bool = True
    max_tries: int = 64
    immigrant_rate: float = 0.25
    immigrants: str = "random"
    profile_guided: bool = True
    adjacent_after: int = 10
    dial: bool = True
    use_prior: bool = True
    retire_after: int = 8


_DOCS: dict[str, str] = {
    "population_size": "fastest feasible configs kept as parents (elitist, steady state)",
    "init_size": "configs asked (default, SoC prior, then a Latin hypercube) before evolving",
    "tournament_size": "parents are the fastest of this many random population members",
    "crossover_rate": "probability a child is a uniform crossover of two parents",
    "mutation_rate": "per-knob mutation probability (at least one knob always mutates)",
    "mutation_weights": "relative odds of neighbour step / power-of-two jump / resample",
    "fail_penalty": "how strongly failures of a (knob, value region) down-weight it",
    "candidates": "children generated per ask; one is picked by failure-aware weight",
    "llm_mutator": "optional LLMMutator that rewrites the region's logic",
    "llm_rate": "probability an ask uses the LLM mutator (when one is given)",
    "start_with_default": "ask the original sources' config first",
    "max_tries": "attempts to avoid re-asking a config before accepting a repeat",
    "immigrant_rate": "probability an ask after the initial design is an immigrant instead of a "
                             "child (keeps exploring)",
    "immigrants": "how immigrants are drawn: 'random' (failure-weighted random configs) or "
                             "'parzen' (the best of 24 draws by the density ratio of the fastest tenth of the "
                             "history to the rest, as in TPE; slower on the Stage II benchmark, see docs/stage2.md)",
    "profile_guided": "when a config becomes the fastest, ask the moves its profile diagnosis suggests "
                             "(core caps up, more buffers, bigger tiles) next",
    "adjacent_after": "tells without a new fastest config before the adjacent programs of the fastest "
                           "config (per knob and direction, the nearest value launching another device "
                           "program; needs the tune loop's program oracle) are asked; 0: never",
    "dial": "after the combined profile move of a new fastest config, a bracketing line search "
                   "(tiling/dial.py) of a tile knob it doubled or halved (back toward the old value), or else of "
                   "the UB reserve it left at its minimum (upwards, to the edge of the reserve's tooth)",
    "use_prior": "ask the SoC prior config (all cores, double buffering, no UB reserve) second",
    "retire_after": "distinct values of a knob that failed as the only change from a feasible config, "
                        "with no other value of it ever working, before the knob is pinned (a fact, not a "
                        "choice); 0: never",
}

#: option name -> (default, doc), as every strategy's registry entry has them
EVO_OPTIONS: dict[str, tuple[Any, str]] = {f.name: (getattr(EvoConfig(), f.name), _DOCS[f.name])
                                           for f in fields(EvoConfig)}
