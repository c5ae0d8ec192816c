"""``evo``: the project's evolutionary tiling search (steady-state, elitist, failure-aware).

Profiling in the loop: whenever a config becomes the fastest so far, its profile is diagnosed
(:mod:`ascendopt.profile.diagnosis`, answered by :mod:`ascendopt.tiling.moves`: idle cores, an
uneven split, memory pipes waiting between transfers, small transfers, a gap to the roofline) and the moves that answer the findings (core
caps up or to an even split, buffers to the pipeline's overlap depth, bigger or smaller tiles,
no UB reserve; all together, then each alone) are asked
next, before older advice and before anything else. So a search first climbs along what the
profiles say and evolves from there.

After the original config (the baseline) and the directed moves, the next proposal is the SoC
prior config (:meth:`~ascendopt.tiling.space.KnobSpace.prior_config`: all cores, double
buffering, no UB reserve) when it differs; the rest of the first ``init_size`` proposals is a
Latin hypercube (every knob's range covered evenly, small domains value by value), so one good
value of a single knob is found early. Parents are drawn by tournament from the
``population_size`` fastest *feasible* configs told so far (so the best are never lost:
elitism; configs that failed or were never told are never parents). A child is a uniform
crossover of two parents (with probability ``crossover_rate``) followed by mutation: each knob
moves with probability ``mutation_rate`` (at least one does) by a neighbour step, a power-of-
two jump or a resample. Failures teach: a failed config adds one failure, shared by the knobs
whose value region differs from the fastest feasible config (the suspects), successes add one
success to each (knob, value-region) they used, and of ``candidates`` children generated per
ask one is picked with weight prod((1 + s) / (1 + s + penalty * f)), so regions that failed are
sampled less but not forbidden, with one exception: a knob that only ever worked at one value
and failed at ``retire_after`` others, each time as the only knob changed from a feasible
config, is retired (pinned to that value): the sources depend on it as a fact (a hardware
unit, an operator's arity), and a search whose knobs are all retired stops. With probability
``immigrant_rate`` an ask is an immigrant instead of a child: failure-weighted random configs,
or with ``immigrants="parzen"`` the TPE-like proposal of
:mod:`~ascendopt.tiling.strategies.parzen`. Configs already asked are not asked again when
avoidable.

After the combined profile move (all findings answered at once) a dial search
(:class:`~ascendopt.tiling.dial.DialSearch`: doubling offsets while latency does not rise, then
bisection) refines the knob the move left coarse: a tile knob the move doubled or halved, from
the new value back toward the old; otherwise the UB reserve when the move left it at its
minimum (the move changed the structure and took all the UB it could, the slowest point of the
reserve's sawtooth, whose best point is the edge of the tooth). A new fastest config the dial
finds is diagnosed when the dial ends.

When ``adjacent_after`` results in a row bring no new fastest config, the adjacent programs of
the fastest config are asked (:func:`~ascendopt.tiling.adjacent.adjacent_programs`: per knob
and direction, the nearest value that launches another device program on the benchmark
case), once per fastest config. The tune loop sets :attr:`program_of`, an oracle running the
host tiling alone (no device run, no budget); without it this stage is skipped. On a
staircase landscape (the UB reserve sets the tile size, the tile size the tile count and
tail) evolution settles on one step; the adjacent program is the next step however far away.

An optional :class:`LLMMutator` may rewrite the evolvable region's *logic*; its proposals ride
in the config under :data:`~ascendopt.tiling.space.REGION_KEY`. It is unused by default.
"""

from __future__ import annotations

import random
from dataclasses import fields
from collections.abc import Mapping
from typing import Any

from ascendopt.tiling.adjacent import ProgramOf, adjacent_programs
from ascendopt.tiling.moves import diagnose, directed_moves, kernel_cores
from ascendopt.tiling.dial import DialSearch
from ascendopt.tiling.priors import is_reserve
from ascendopt.tiling.space import MUTATIONS, REGION_KEY, Config, KnobSpace
from ascendopt.tiling.strategies import parzen
from ascendopt.tiling.strategies.base import Strategy, TrialResult
from ascendopt.tiling.strategies.evo_config import (  # noqa: F401 (re-exported)
    DEFAULT_MUTATION_WEIGHTS,
    EVO_OPTIONS,
    EvoConfig,
    LLMMutator,
)

IMMIGRANTS = ("parzen", "random")


class EvoStrategy(Strategy):
    """Evolutionary search; see the module docstring. Its options: :class:`EvoConfig`."""

    name = "evo"

    def __init__(self, space: KnobSpace, seed: int = 0, cfg: EvoConfig = EvoConfig()):
        """Raises ValueError for an unknown mutation or immigrant kind."""
        super().__init__(space, seed, cfg.start_with_default, cfg.max_tries)
        self.cfg = cfg
        for f in fields(cfg):  # the options as attributes (mutation_weights completed below)
            setattr(self, f.name, getattr(cfg, f.name))
        w = dict(cfg.mutation_weights or DEFAULT_MUTATION_WEIGHTS)
        unknown = set(w) - set(MUTATIONS)
        if unknown:
            raise ValueError(f"unknown mutations {sorted(unknown)}; known: {MUTATIONS}")
        self.mutation_weights = w
        self._lhs: list[Config] | None = None                  # initial design, consumed in order
        if cfg.immigrants not in IMMIGRANTS:
            raise ValueError(f"unknown immigrants {cfg.immigrants!r}; known: {IMMIGRANTS}")
        self._directed: list[Config] = []                      # moves answering the best's profile
        self.program_of: ProgramOf | None = None               # set by the tune loop (not state)
        self._adjacent: list[Config] = []                      # adjacent programs of the best, queued
        self._probed: list[Config] = []                        # best configs whose adjacent programs were queued
        self._stale = 0                                        # tells since the fastest config last changed
        self._combined: Config | None = None                   # the latest combined profile move
        self._combined_from: Config | None = None              # the config it was made from
        self._dial: DialSearch | None = None                   # the UB reserve's line search, while on
        self._dialed: list[Config] = []                        # configs a dial search started from
        self._held: tuple[Config, dict] | None = None          # a dial's new best, diagnosed when it ends
        self.population: list[tuple[Config, float]] = []       # fastest feasible first
        self.stats: dict[tuple[str, int], list] = {}           # (knob, bucket) -> [successes, failures]
        self._failed_alone: dict[str, list] = {}               # knob -> distinct values that failed as the one change
        self.retired: dict[str, Any] = {}                      # knob -> the one value that ever worked (pinned)

    @classmethod
    def from_options(cls, space: KnobSpace, seed: int = 0, **options: Any) -> EvoStrategy:
        """The strategy with the named options of :class:`EvoConfig` (the registry's factory)."""
        return cls(space, seed, EvoConfig(**options))

    # -- proposing -------------------------------------------------------------------------
    def _propose(self) -> Config:
        """A new config with the retired knobs at their one working value."""
        if not self.retired:
            return self._propose_free()
        if self.exhausted:  # nothing left to search
            return {**(self.population[0][0] if self.population else self.space.defaults()), **self.retired}
        c = {**self._propose_free(), **self.retired}
        for _ in range(self.max_tries):
            if not self.seen(c):
                break
            c = {**self._propose_free(), **self.retired}
        return c

    def verify_bar(self) -> float | None:
        """Parents are drawn from the ``population_size`` fastest usable configs: until that
        many were told every candidate may become one (None); then the slowest of them (a
        slower candidate never enters). None too while a dial search runs or the combined
        profile move is pending: the dial walks from configs not only the fastest."""
        pending = self._combined is not None and self.space.key(self._combined) not in self._results
        if len(self.population) < self.population_size or self._dial is not None or pending:
            return None
        return self.population[-1][1]

    @property
    def exhausted(self) -> str:
        ids = self.space.ids
        if ids and all(k in self.retired for k in ids):
            return "every knob retired (each worked at one value only)"
        return ""

    def _propose_free(self) -> Config:
        while self._directed:
            c = self._directed.pop(0)
            if not self.seen(c):
                return c
        if self.use_prior:
            prior = self.space.prior_config()
            if not self.seen(prior):
                return prior
        c = self._dial_next()
        if c is not None:
            return c
        if self.adjacent_after and self._stale >= self.adjacent_after and not self._adjacent:
            self._plan_adjacent()
        while self._adjacent:
            c = self._adjacent.pop(0)
            if not self.seen(c):
                return c
        if not self.population or len(self.asked) < self.init_size:
            if self._lhs is None:
                self._lhs = latin_hypercube(self.space, self.init_size, self.rng)
            while self._lhs:
                c = self._lhs.pop(0)
                if not self.seen(c):
                    return c
            cands = [self.space.sample(self.rng) for _ in range(self.candidates)]
        else:
            if self.llm_mutator is not None and self.llm_rate > 0 and self.rng.random() < self.llm_rate:
                c = self._llm_child()
                if c is not None and not self.seen(c):
                    return c
            if self.rng.random() < self.immigrant_rate:  # an immigrant: keeps exploring
                if self.immigrants == "parzen":
                    c = parzen.propose(self.space, self.history, self.rng, exclude=self.seen)
                    if c is not None:
                        return c
                cands = [self.space.sample(self.rng) for _ in range(self.candidates)]
            else:
                cands = [self._child() for _ in range(self.candidates)]
        fresh = [c for c in cands if not self.seen(c)]
        tries = 0
        while not fresh and tries < self.max_tries:
            c = self._child() if self.population else self.space.sample(self.rng)
            if not self.seen(c):
                fresh.append(c)
            tries += 1
        if not fresh:
            return self._unseen_sample()
        weights = [self.weight(c) for c in fresh]
        return self.rng.choices(fresh, weights=weights, k=1)[0]

    def weight(self, config: Mapping[str, Any]) -> float:
        """Failure-aware sampling weight of a candidate (1.0 when nothing failed near it)."""
        w = 1.0
        for k in self.space.knobs:
            s, f = self.stats.get((k.id, self.space.domain(k.id).bucket(config[k.id])), (0, 0))
            w *= (1.0 + s) / (1.0 + s + self.fail_penalty * f)
        return w

    def _tournament(self) -> Config:
        k = min(self.tournament_size, len(self.population))
        idx = sorted(self.rng.sample(range(len(self.population)), k))
        return dict(self.population[idx[0]][0])  # population is sorted: lowest index is fastest

    def _child(self) -> Config:
        a = self._tournament()
        if len(self.population) > 1 and self.rng.random() < self.crossover_rate:
            b = self._tournament()
            a = {key: (a[key] if self.rng.random() < 0.5 else b.get(key, a[key])) for key in a}
            if REGION_KEY in b and REGION_KEY not in a and self.rng.random() < 0.5:
                a[REGION_KEY] = b[REGION_KEY]
        return self._mutate(a)

    def _mutate(self, c: Config) -> Config:
        ids = self.space.ids
        if not ids:
            return c
        chosen = [i for i in ids if self.rng.random() < self.mutation_rate] or [self.rng.choice(ids)]
        ops, w = zip(*self.mutation_weights.items())
        for kid in chosen:
            c = self.space.mutate_knob(c, kid, self.rng.choices(ops, weights=w, k=1)[0], self.rng)
        return c

    def _plan_adjacent(self) -> None:
        """Queues the adjacent programs (:func:`~ascendopt.tiling.adjacent.adjacent_programs`)
        of the fastest config, once per fastest config, when the tune loop gave a program
        oracle. Evolution moves by small steps and recombination; on a staircase it settles on
        one step, and the next step may lie further than any neighbour step reaches."""
        self._stale = 0
        if self.program_of is None or not self.population:
            return
        best = self.population[0][0]
        if any(self.space.key(b) == self.space.key(best) for b in self._probed):
            return
        self._probed.append(dict(best))
        self._adjacent = [c for c in adjacent_programs(self.space, best, self.program_of) if not self.seen(c)]
        self._stale = -len(self._adjacent)  # the next stall is counted after these

    def _dial_next(self) -> Config | None:
        """The dial search's next config; values asked before are told to it from the history."""
        while self._dial is not None:
            self._dial.program_of = self.program_of  # the tune loop's oracle (not state)
            c = self._dial.next()
            if c is None:
                if self._dial.pending is None:       # over (not waiting for a result)
                    self._end_dial()
                return None
            if not self.seen(c):
                return c
            told = self._results.get(self.space.key(c))
            if told is None:                         # asked in this batch: wait for its result
                return None
            self._dial.tell(c, told.latency_us if told.usable else None)
        return None

    def _maybe_start_dial(self, config: Config, result: TrialResult) -> None:
        """Starts a dial search (:class:`~ascendopt.tiling.dial.DialSearch`) from the combined
        profile move, once per config, on the knob the move left coarse:

        * a tile knob the move doubled or halved (not a ``min…PerCore`` threshold): searched from
          the new value back toward the old one, the doubling being only a coarse probe;
        * otherwise the UB reserve when the move left it at its minimum: the move changed the
          candidate's structure (cores, buffers) and took all the UB it could, which is the
          slowest point of the reserve's tooth; searched upwards.
        """
        if not (self.dial and self._dial is None and result.usable and self._combined is not None
                and self.space.key(config) == self.space.key(self._combined)):
            return
        if any(self.space.key(c) == self.space.key(config) for c in self._dialed):
            return
        start = self._combined_from or {}
        knob, direction = None, 1
        for k in self.space.knobs:
            d = self.space.domain(k.id)
            if (k.role == "tile" and d.kind != "cat"
                    and k.id in start and start[k.id] != config[k.id]):
                knob, direction = k.id, (1 if start[k.id] > config[k.id] else -1)
                break
        if knob is None:
            reserve = next((k for k in self.space.knobs if is_reserve(k) and len(self.space.domain(k.id).grid()) > 1),
                           None)
            if reserve is None or config[reserve.id] != self.space.domain(reserve.id).lo:
                return
            knob = reserve.id
        self._dialed.append(dict(config))
        self._dial = DialSearch(self.space, config, knob, float(result.latency_us),  # type: ignore[arg-type]
                                self.program_of, direction)

    def _end_dial(self) -> None:
        """Closes the dial search; a new fastest config it found is diagnosed now."""
        self._dial = None
        held, self._held = self._held, None
        if held is not None and self.population and self.population[0][0] == held[0]:
            self._diagnose(*held)

    def _diagnose(self, config: Config, profile: dict) -> None:
        """Queues the moves a new fastest config's profile suggests, before older advice."""
        found = diagnose(profile, kernel_cores(self.space, profile))
        moves = directed_moves(self.space, config, found)
        if moves:
            self._combined, self._combined_from = moves[0], dict(config)
        self._directed = moves + [c for c in self._directed if c not in moves]

    def _llm_child(self) -> Config | None:
        parent = self._tournament()
        text = parent.get(REGION_KEY, self.space.region_text)
        assert self.llm_mutator is not None
        new = self.llm_mutator.propose(text, list(self.history))
        if not new or new == text:
            return None
        return {**parent, REGION_KEY: new}

    # -- learning --------------------------------------------------------------------------
    def _observe(self, config: Config, result: TrialResult) -> None:
        keys = {k.id: (k.id, self.space.domain(k.id).bucket(config[k.id])) for k in self.space.knobs}
        from_dial = self._dial is not None and self._dial.tell(config, result.latency_us if result.usable else None)
        self._maybe_start_dial(config, result)  # before a diagnosis of this config replaces the combined move
        if result.usable:
            for key in keys.values():
                self.stats.setdefault(key, [0, 0])[0] += 1
            self.population.append((dict(config), float(result.latency_us)))  # type: ignore[arg-type]
            self.population.sort(key=lambda t: t[1])  # stable: earlier wins ties
            del self.population[self.population_size:]
            self._stale = 0 if self.population[0][0] == config else self._stale + 1
            if self.profile_guided and self.population[0][0] == config and result.profile:
                # a new fastest config: what its profile says to try goes before older advice;
                # one found by the dial search is diagnosed when the search ends
                if from_dial:
                    self._held = (dict(config), dict(result.profile))
                else:
                    self._diagnose(config, dict(result.profile))
        else:
            self._stale += 1
        if not result.usable and keys:
            # credit assignment: the failure is shared by the knobs whose value region differs
            # from the fastest feasible config (the suspects), not charged in full to each knob
            best = self.population[0][0] if self.population else None
            suspects = [kid for kid, key in keys.items()
                        if best is None or self.space.domain(kid).bucket(best.get(kid, config[kid])) != key[1]]
            suspects = suspects or list(keys)
            for kid in suspects:
                self.stats.setdefault(keys[kid], [0, 0])[1] += 1.0 / len(suspects)
            self._retire_if_dead(config)

    def _retire_if_dead(self, failed: Config) -> None:
        """Retires a knob that only ever worked at one value: when ``retire_after`` distinct
        values of it failed as the *only* difference from a feasible config of the population,
        the failures are its own (no other knob moved), so the knob is a fact the sources depend
        on (a hardware unit, an arity), not a choice. It is pinned to its working value, and a
        search whose knobs are all retired stops asking new configs instead of spending its
        budget on failures."""
        if self.retire_after <= 0:
            return
        for good, _ in self.population:
            moved = [kid for kid in self.space.ids if failed.get(kid) != good.get(kid)]
            if len(moved) == 1:
                break
        else:
            return
        kid = moved[0]
        values = self._failed_alone.setdefault(kid, [])
        if failed[kid] not in values:
            values.append(failed[kid])
        if len(values) < self.retire_after:
            return
        worked = {c[kid] for c, r in self.history if r.usable}  # the values of this knob that ever worked
        if len(worked) == 1:
            self.retired[kid] = worked.pop()


def latin_hypercube(space: KnobSpace, n: int, rng: random.Random) -> list[Config]:
    """``n`` configs that spread every knob over its whole domain: each knob's range is cut into
    ``n`` strata (log-scaled for log domains) and each stratum is used once, in a random order
    per knob; a knob with at most ``n`` values cycles through all of them."""
    rows: list[Config] = [{} for _ in range(n)]
    for k in space.knobs:
        d = space.domain(k.id)
        grid = d.grid()
        if len(grid) <= n:
            vals = [grid[i % len(grid)] for i in range(n)]
        else:
            lo, hi = grid[0], grid[-1]
            log = d.log and lo > 0
            vals = []
            for j in range(n):
                u = (j + rng.random()) / n
                x = lo * (hi / lo) ** u if log else lo + u * (hi - lo)
                vals.append(d.snap(x))
        rng.shuffle(vals)
        for row, v in zip(rows, vals):
            row[k.id] = v
    return rows
