"""``tpe``, ``cmaes``, ``nsga2``: Optuna samplers driven through Optuna's ask/tell API.

Each strategy keeps a private in-memory study (direction: minimise ``latency_us``). Failed
configs are told as ``FAIL`` (Optuna's samplers then ignore them). When a sampler proposes a
config whose result is already known, it is told that result at once and asked again (up to
``max_tries`` times), so the caller is not made to re-evaluate it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    IntDistribution,
)
from optuna.trial import TrialState

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import Config, KnobSpace
from ascendopt.tiling.strategies.base import Strategy, TrialResult


def _distribution(d: Domain) -> BaseDistribution:
    if d.kind == "cat":
        return CategoricalDistribution(list(d.choices))
    if d.kind == "pow2":
        g = d.grid()
        return IntDistribution(int(math.log2(g[0])), int(math.log2(g[-1])))
    if d.log and d.lo > 0:
        return IntDistribution(d.lo, d.hi, log=True)
    hi = d.lo + (d.hi - d.lo) // d.step * d.step
    return IntDistribution(d.lo, hi, step=d.step)


def _admits(dist: BaseDistribution, v: int) -> bool:
    if isinstance(dist, CategoricalDistribution):
        return v in dist.choices
    assert isinstance(dist, IntDistribution)
    return dist.low <= v <= dist.high and (dist.log or (v - dist.low) % dist.step == 0)


class OptunaStrategy(Strategy):
    """Base of the Optuna-backed strategies; subclasses build the sampler."""

    name = "optuna"

    def __init__(self, space: KnobSpace, seed: int = 0, start_with_default: bool = True, max_tries: int = 16,
                 **sampler_options: Any):
        super().__init__(space, seed, start_with_default, max_tries)
        self.sampler_options = sampler_options
        self._dists = {k.id: _distribution(space.domain(k.id)) for k in space.knobs}
        self._build()

    # -- sampler -------------------------------------------------------------------------
    def make_sampler(self) -> optuna.samplers.BaseSampler:
        raise NotImplementedError

    def _build(self) -> None:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.study = optuna.create_study(direction="minimize", sampler=self.make_sampler())
        self._pending: dict[tuple, list[int]] = {}
        if self.start_with_default:
            params = self._encode(self.space.defaults())
            if params is not None:
                self.study.enqueue_trial(params)

    def _encode(self, config: Mapping[str, Any]) -> dict | None:
        out = {}
        for k in self.space.knobs:
            v, dist, dom = config[k.id], self._dists[k.id], self.space.domain(k.id)
            if dom.kind == "pow2":
                v = int(math.log2(v)) if v > 0 and v & (v - 1) == 0 else None
            if v is None or not _admits(dist, v):
                return None
            out[k.id] = v
        return out

    def _decode(self, params: Mapping[str, Any]) -> Config:
        c = {}
        for k in self.space.knobs:
            dom, v = self.space.domain(k.id), params[k.id]
            c[k.id] = (1 << int(v)) if dom.kind == "pow2" else (int(v) if dom.kind == "cat" else dom.snap(int(v)))
        return c

    @staticmethod
    def _tell_study(study: optuna.Study, number: int, result: TrialResult) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if result.usable:
                study.tell(number, float(result.latency_us))  # type: ignore[arg-type]
            else:
                study.tell(number, state=TrialState.FAIL)

    # -- ask / tell ----------------------------------------------------------------------
    def ask(self, n: int = 1) -> list[Config]:
        out = []
        for _ in range(n):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                trial = self.study.ask(self._dists)
                c = self._decode(trial.params)
                tries = 0
                while self.space.key(c) in self._results and tries < self.max_tries:
                    self._tell_study(self.study, trial.number, self._results[self.space.key(c)])
                    trial = self.study.ask(self._dists)
                    c = self._decode(trial.params)
                    tries += 1
            self._pending.setdefault(self.space.key(c), []).append(trial.number)
            self._mark_asked(c)
            out.append(c)
        return out

    def _propose(self) -> Config:  # not used: ask() is overridden
        raise NotImplementedError

    def tell(self, config: Mapping[str, Any], result: TrialResult) -> None:
        c = self.space.complete(config)
        key = self.space.key(c)
        numbers = self._pending.get(key)
        if numbers:
            self._tell_study(self.study, numbers.pop(0), result)
        else:  # a config this strategy did not ask: add it as a finished trial
            params = self._encode(c)
            if params is not None:
                dists = self._dists
                state = TrialState.COMPLETE if result.usable else TrialState.FAIL
                self.study.add_trial(optuna.trial.create_trial(
                    params=params, distributions=dists, state=state,
                    value=float(result.latency_us) if result.usable else None))  # type: ignore[arg-type]
        super().tell(c, result)


class TPEStrategy(OptunaStrategy):
    """Optuna's TPESampler."""

    name = "tpe"

    def make_sampler(self) -> optuna.samplers.BaseSampler:
        o = {"n_startup_trials": 10, "multivariate": False, **self.sampler_options}
        return optuna.samplers.TPESampler(seed=self.seed, **o)


class CmaEsStrategy(OptunaStrategy):
    """Optuna's CmaEsSampler (needs the ``cmaes`` package); categorical knobs fall back to random."""

    name = "cmaes"

    def make_sampler(self) -> optuna.samplers.BaseSampler:
        import cmaes  # noqa: F401  (fail early and clearly if the optional dependency is missing)

        o = {"n_startup_trials": 1, "warn_independent_sampling": False, **self.sampler_options}
        return optuna.samplers.CmaEsSampler(seed=self.seed, **o)


class NSGA2Strategy(OptunaStrategy):
    """Optuna's NSGAIISampler on the single latency objective."""

    name = "nsga2"

    def make_sampler(self) -> optuna.samplers.BaseSampler:
        o = {"population_size": 16, **self.sampler_options}
        return optuna.samplers.NSGAIISampler(seed=self.seed, **o)


TPE_OPTIONS = {
    "n_startup_trials": (10, "random trials before TPE models the history"),
    "multivariate": (False, "model knobs jointly (Optuna's multivariate TPE)"),
    "start_with_default": (True, "ask the original sources' config first"),
    "max_tries": (16, "re-asks when the sampler proposes an already-known config"),
}
CMAES_OPTIONS = {
    "n_startup_trials": (1, "random trials before CMA-ES starts"),
    "sigma0": (None, "initial step size (Optuna's default: 1/6 of the range)"),
    "restart_strategy": (None, "None, 'ipop' or 'bipop' (Optuna's CmaEsSampler)"),
    "start_with_default": (True, "ask the original sources' config first"),
    "max_tries": (16, "re-asks when the sampler proposes an already-known config"),
}
NSGA2_OPTIONS = {
    "population_size": (16, "NSGA-II generation size"),
    "mutation_prob": (None, "per-parameter mutation probability (Optuna's default: 1/#knobs)"),
    "crossover_prob": (0.9, "probability of crossover"),
    "start_with_default": (True, "ask the original sources' config first"),
    "max_tries": (16, "re-asks when the sampler proposes an already-known config"),
}
