"""Every strategy replayed on CPU against a synthetic landscape with an infeasible region."""

from __future__ import annotations

import statistics

import pytest

from ascendopt.tiling.space import REGION_KEY
from ascendopt.tiling.strategies import (
    STRATEGIES,
    EvoConfig,
    EvoStrategy,
    LLMMutator,
    TrialResult,
    make_strategy,
)

from .landscape import evaluate, make_space

ALL = list(STRATEGIES)


def run(strategy, steps: int, batch: int = 1) -> list[dict]:
    out = []
    while len(out) < steps:
        cs = strategy.ask(batch)
        for c in cs:
            strategy.tell(c, evaluate(c))
        out += cs
    return out


@pytest.mark.parametrize("name", ALL)
def test_configs_stay_in_space_and_are_fresh(name):
    if name == "cmaes":
        pytest.importorskip("cmaes")
    space = make_space()
    s = make_strategy(name, space, seed=3)
    cs = run(s, 30, batch=3)
    assert cs[0] == space.defaults()
    for c in cs:
        assert space.contains(c) and set(c) == set(space.ids), c
    keys = [space.key(c) for c in cs]
    if name in ("evo", "random"):
        assert len(set(keys)) == len(keys)
    else:
        assert len(set(keys)) >= 0.8 * len(keys)
    assert s.iteration == 30 and len(s.history) == 30
    best = s.best()
    assert best is not None and best[1] > 0


@pytest.mark.parametrize("name", ALL)
def test_a_replayed_strategy_asks_what_an_uninterrupted_one_asks(name):
    """The one resume mechanism: a fresh strategy with the run's seed, told the recorded
    results of what it asks again, goes on as the uninterrupted strategy did."""
    if name == "cmaes":
        pytest.importorskip("cmaes")
    space = make_space()
    n = 24
    full = run(make_strategy(name, space, seed=11), n, batch=2)
    replayed = make_strategy(name, space, seed=11)
    first = run(replayed, n // 2, batch=2)  # answered from the records on a resumed run
    assert first == full[:n // 2]
    assert first + run(replayed, n // 2, batch=2) == full


def _best_after(name: str, seed: int, budget: int) -> float:
    s = make_strategy(name, make_space(), seed=seed)
    run(s, budget)
    return s.best()[1]


def test_evo_beats_random_on_average():
    seeds = range(10)
    evo = statistics.mean(_best_after("evo", s, 60) for s in seeds)
    rnd = statistics.mean(_best_after("random", s, 60) for s in seeds)
    assert evo < rnd * 0.95, (evo, rnd)


def test_failed_configs_never_become_parents():
    space = make_space()
    s = EvoStrategy(space, 2, EvoConfig(init_size=4))
    failed = set()
    for _ in range(40):
        for c in s.ask(2):
            r = evaluate(c)
            s.tell(c, r)
            if not r.usable:
                failed.add(space.key(c))
        assert not any(space.key(c) in failed for c, _ in s.population)
        assert all(lat > 0 for _, lat in s.population)
    assert failed  # the landscape's infeasible region was visited
    # and failures make their region less likely
    big = {**space.defaults(), "tile": 16384, "buf": 4}
    assert s.weight(big) < s.weight(space.defaults())


def test_evo_learns_infeasible_region():
    space = make_space()
    s = EvoStrategy(space, seed=4)
    run(s, 120)
    late = s.history[60:]
    early = s.history[:60]
    fail_rate = lambda h: sum(not r.feasible for _, r in h) / len(h)
    assert fail_rate(late) <= fail_rate(early) + 0.05


def test_untold_pending_configs_are_not_reasked():
    space = make_space()
    s = make_strategy("evo", space, seed=0)
    cs = s.ask(40)
    assert len({space.key(c) for c in cs}) == 40


def test_tell_of_unasked_config_is_accepted():
    space = make_space()
    for name in ("evo", "tpe", "random"):
        s = make_strategy(name, space, seed=0)
        c = {**space.defaults(), "tile": 2048}
        s.tell(c, TrialResult("ok", 50.0, True))
        s.tell({**c, "buf": 4, "tile": 16384}, TrialResult("ub_overflow", None, False))
        assert s.best() == (c, 50.0)
        assert all(space.contains(x) for x in s.ask(3))


def test_registry_options_documented_and_validated():
    for name, (factory, options) in STRATEGIES.items():
        assert callable(factory)
        for opt, spec in options.items():
            assert isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str) and spec[1]
    with pytest.raises(ValueError):
        make_strategy("nope", make_space())
    with pytest.raises(ValueError):
        make_strategy("evo", make_space(), bogus=1)
    s = make_strategy("evo", make_space(), seed=1, population_size=4, mutation_weights={"pow2": 1.0})
    assert s.population_size == 4


class FakeLLM:
    def __init__(self):
        self.calls = 0

    def propose(self, region_text, history):
        self.calls += 1
        return region_text + f"\n// variant {self.calls}\n"


def test_llm_mutator_slot():
    assert isinstance(FakeLLM(), LLMMutator)
    space = make_space()
    space.region_text = "uint32_t tile = 1024;"
    llm = FakeLLM()
    s = EvoStrategy(space, 0, EvoConfig(llm_mutator=llm, llm_rate=0.5, init_size=4))
    cs = run(s, 30)
    assert llm.calls > 0
    assert any(REGION_KEY in c for c in cs)
    assert len({space.key(c) for c in cs}) == len(cs)
    # unused by default
    assert all(REGION_KEY not in c for c in run(EvoStrategy(space, seed=0), 20))


def test_evo_asks_the_soc_prior_right_after_the_baseline():
    from pathlib import Path

    from ascendopt.operator import Operator
    from ascendopt.tiling.space import KnobSpace

    op = Operator.load(Path(__file__).resolve().parents[2] / "ops" / "level1" / "gelu")
    space = KnobSpace.from_operator(op)
    poor = space.apply(op, {"maxCoreNum": 1, "BUFFER_NUM": 1, "ubReserveBytes": 40960})
    pspace = KnobSpace.from_operator(poor)
    prior = pspace.prior_config()
    by_role = {k.id: k for k in pspace.knobs}
    assert prior["BUFFER_NUM"] == 2 and prior["ubReserveBytes"] == pspace.domain("ubReserveBytes").lo
    cap = next(k for k in by_role.values() if k.render == "cap" or k.role == "core_cap")
    assert prior[cap.id] == pspace.domain(cap.id).hi == 48
    evo = make_strategy("evo", pspace, seed=3)
    first, second = evo.ask()[0], evo.ask()[0]
    assert first == pspace.defaults() and second == pspace.complete(prior)
    # off by option; other strategies never use it
    assert make_strategy("evo", pspace, seed=3, use_prior=False).ask(2)[1] != pspace.complete(prior)


def test_initial_design_covers_every_knob_range():
    import random as _random

    from ascendopt.tiling.domain import Domain
    from ascendopt.tiling.space import KnobSpace
    from ascendopt.tiling.strategies.evo import latin_hypercube

    space = KnobSpace.synthetic({"buf": Domain("int", 2, 1, 4, 1),
                                 "tile": Domain("int", 1024, 32, 65536, 32, log=True),
                                 "flag": Domain("cat", 0, choices=(0, 1))})
    rows = latin_hypercube(space, 8, _random.Random(5))
    assert len(rows) == 8 and all(space.contains(r) for r in rows)
    assert sorted(r["buf"] for r in rows) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert sorted(r["flag"] for r in rows) == [0] * 4 + [1] * 4
    # one value per eighth of the log range
    import math as _math
    strata = sorted(int(8 * _math.log(r["tile"] / 32) / _math.log(65536 / 32) - 1e-9) for r in rows)
    assert strata == list(range(8))


def test_failure_is_shared_by_the_knobs_that_differ_from_the_best():
    from ascendopt.tiling.domain import Domain
    from ascendopt.tiling.space import KnobSpace

    space = KnobSpace.synthetic({"a": Domain("int", 2, 1, 4, 1), "b": Domain("int", 2, 1, 4, 1),
                                 "c": Domain("int", 2, 1, 4, 1)})
    evo = make_strategy("evo", space, seed=0)
    base = {"a": 2, "b": 2, "c": 2}
    evo.tell(base, TrialResult("ok", 10.0, True))
    evo.tell({"a": 4, "b": 4, "c": 2}, TrialResult("ub_overflow", None, False))
    bucket = {k: space.domain(k).bucket for k in "abc"}
    assert evo.stats[("a", bucket["a"](4))][1] == 0.5 and evo.stats[("b", bucket["b"](4))][1] == 0.5
    assert evo.stats[("c", bucket["c"](2))][1] == 0  # c was as in the best config: not a suspect
    assert evo.weight({"a": 2, "b": 2, "c": 2}) == 1.0 > evo.weight({"a": 4, "b": 2, "c": 2})


def _dead_knob_space():
    from ascendopt.tiling.domain import Domain
    from ascendopt.tiling.space import KnobSpace

    # "unit" works only at its default (a hardware unit the sources divide by); "tile" works anywhere
    return KnobSpace.synthetic({"unit": Domain("int", 32, 32, 98304, 1, log=True),
                                "tile": Domain("int", 1024, 8, 16384, 8, log=True)})


def _dead_knob_eval(c):
    if c["unit"] != 32:
        return TrialResult("runtime_error", None, False)
    return TrialResult("ok", 100.0 - c.get("tile", 0) / 1024, True)


def test_evo_retires_a_knob_that_only_ever_worked_at_one_value():
    space = _dead_knob_space()
    s = make_strategy("evo", space, seed=0)
    fails_after = []
    for _ in range(120):
        retired = bool(s.retired)
        c = s.ask(1)[0]
        r = _dead_knob_eval(c)
        s.tell(c, r)
        if retired:
            fails_after.append(not r.feasible)
    assert s.retired == {"unit": 32}
    assert len(fails_after) > 40 and not any(fails_after)  # once retired, no config moves it again
    assert "tile" not in s.retired  # a knob that worked at many values is never retired


def test_evo_with_every_knob_retired_asks_only_known_configs():
    from ascendopt.tiling.domain import Domain
    from ascendopt.tiling.space import KnobSpace

    space = KnobSpace.synthetic({"unit": Domain("int", 32, 32, 98304, 1, log=True)})
    s = make_strategy("evo", space, seed=1)
    for _ in range(40):
        c = s.ask(1)[0]
        s.tell(c, _dead_knob_eval(c))
    assert s.retired == {"unit": 32}
    assert all(s.seen(c) and c == {"unit": 32} for c in s.ask(5))
    # retire_after=0 keeps the old behaviour: the knob is searched to the end
    s0 = make_strategy("evo", space, seed=1, retire_after=0)
    for _ in range(40):
        c = s0.ask(1)[0]
        s0.tell(c, _dead_knob_eval(c))
    later = [_dead_knob_eval(c).feasible for c in s0.ask(20)]
    assert not s0.retired and later.count(False) >= 15


def test_evo_does_not_retire_a_knob_on_failures_shared_with_other_knobs():
    space = _dead_knob_space()
    s = make_strategy("evo", space, seed=0)
    s.tell({"unit": 32, "tile": 1024}, TrialResult("ok", 99.0, True))
    for i, u in enumerate((64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)):
        # both knobs moved: the failure cannot be laid on "unit" alone
        s.tell({"unit": u, "tile": 2048 + 8 * i}, TrialResult("runtime_error", None, False))
    assert not s.retired
