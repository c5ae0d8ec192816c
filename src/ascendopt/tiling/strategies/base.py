"""The ask/tell interface every tiling search strategy implements.

A strategy proposes configs (``ask``) and is told how they fared (``tell``). It owns no I/O, no
storage handle and no global RNG: its randomness comes from its own ``random.Random(seed)``,
so given its seed and what it is told it asks the same configs again: a resumed run (the one
resume mechanism, :meth:`ascendopt.session.Session.resume_run`) rebuilds a strategy by
replaying the run, its recorded evaluations answering without charge.

The evaluation budget is not a strategy's concern: the caller decides how many configs to ask.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ascendopt.tiling.space import Config, KnobSpace

@dataclass(frozen=True)
class TrialResult:
    """What an evaluation of one config told.

    Attributes:
        status: ``"ok"`` or a failure status (``"compile_error"``, ``"wrong_result"``, ...).
        latency_us: Measured latency in microseconds (None when not measured).
        feasible: True if the candidate built, ran and was correct.
        profile: Compact profile summary of the benchmark run
            (:func:`~ascendopt.profile.diagnosis.compact_profile`), when there is one.
    """

    status: str
    latency_us: float | None
    feasible: bool
    profile: Mapping[str, Any] | None = None

    @property
    def usable(self) -> bool:
        """Feasible with a latency: may become a parent / be modelled."""
        return self.feasible and self.latency_us is not None

    def to_json(self) -> dict:
        d = {"status": self.status, "latency_us": self.latency_us, "feasible": self.feasible}
        if self.profile:
            d["profile"] = dict(self.profile)
        return d

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> TrialResult:
        return TrialResult(str(d["status"]), d.get("latency_us"), bool(d["feasible"]), d.get("profile"))


class Strategy(ABC):
    """Base class: bookkeeping of asked / told configs, RNG, iteration.

    Subclasses implement :meth:`_propose` (one new config) and may override :meth:`_observe`.

    Args:
        space: The knob space to search.
        seed: Seed of this strategy's own RNG.
        start_with_default: Ask the original sources' config first (the baseline).
        max_tries: Attempts to find a not-yet-asked config before accepting a repeat.
    """

    name: ClassVar[str] = "base"

    def __init__(self, space: KnobSpace, seed: int = 0, start_with_default: bool = True, max_tries: int = 64):
        self.space = space
        self.seed = seed
        self.start_with_default = start_with_default
        self.max_tries = max_tries
        self.rng = random.Random(seed)
        self.iteration = 0                               # configs asked so far
        self.asked: list[Config] = []
        self.history: list[tuple[Config, TrialResult]] = []
        self._asked_keys: set[tuple] = set()
        self._results: dict[tuple, TrialResult] = {}

    # -- public API ------------------------------------------------------------------------
    def ask(self, n: int = 1) -> list[Config]:
        """Proposes ``n`` configs (complete: every knob set), not asked before if avoidable."""
        out = []
        for _ in range(n):
            if self.start_with_default and self.iteration == 0 and not self.seen(self.space.defaults()):
                c = self.space.defaults()
            else:
                c = self.space.complete(self._propose())
            self._mark_asked(c)
            out.append(c)
        return out

    def tell(self, config: Mapping[str, Any], result: TrialResult) -> None:
        """Records the result of a config (asked by this strategy or not)."""
        c = self.space.complete(config)
        k = self.space.key(c)
        self._results[k] = result
        self._asked_keys.add(k)
        self.history.append((c, result))
        self._observe(c, result)

    def best(self) -> tuple[Config, float] | None:
        """The fastest usable config told so far, with its latency."""
        ok = [(c, r.latency_us) for c, r in self.history if r.usable]
        return min(ok, key=lambda t: t[1]) if ok else None  # type: ignore[return-value]

    def verify_bar(self) -> float | None:
        """The latency above which a candidate can neither become the best nor be used as a
        parent by this strategy: such a candidate need not be verified on every case before
        it is told (the tune loop times it first; :data:`~ascendopt.evaluate.evaluation.UNVERIFIED`).
        None: every candidate may matter. Here: the fastest usable latency told (a strategy
        that proposes from other configs than the fastest overrides this)."""
        best = self.best()
        return None if best is None else best[1]

    @property
    def exhausted(self) -> str:
        """Why nothing is left to ask (the search should stop), or "" while something is."""
        return ""

    def seen(self, config: Mapping[str, Any]) -> bool:
        return self.space.key(config) in self._asked_keys

    # -- for subclasses --------------------------------------------------------------------
    @abstractmethod
    def _propose(self) -> Config:
        """One new config (the base class marks it asked)."""

    def _observe(self, config: Config, result: TrialResult) -> None:
        """Hook after a result was recorded."""

    def _mark_asked(self, c: Config) -> None:
        self.asked.append(c)
        self._asked_keys.add(self.space.key(c))
        self.iteration += 1

    def _unseen_sample(self) -> Config:
        """A random config not asked before (a repeat only if ``max_tries`` samples all were)."""
        c = self.space.sample(self.rng)
        for _ in range(self.max_tries):
            if not self.seen(c):
                return c
            c = self.space.sample(self.rng)
        return c


class RandomStrategy(Strategy):
    """Uniform (prior-weighted) random sampling without repeats: the baseline."""

    name = "random"

    def _propose(self) -> Config:
        return self._unseen_sample()
