"""The Parzen density-ratio proposals evo's immigrants are drawn from."""

from __future__ import annotations

import random

import pytest

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import EvoConfig, EvoStrategy, TrialResult
from ascendopt.tiling.strategies.parzen import from_unit, propose, split, to_unit

RESERVE = Domain("int", 0, 0, 49152, 32, log=True)
CORES = Domain("int", 48, 1, 48, 1)
MODE = Domain("cat", 0, choices=(0, 1, 2))


@pytest.mark.parametrize("d", [RESERVE, CORES, Domain("pow2", 64, 8, 4096), MODE])
def test_unit_coordinates_round_trip(d):
    for v in d.grid():
        u = to_unit(d, v)
        assert 0.0 <= u <= 1.0
        assert from_unit(d, u) == v
    assert to_unit(d, d.grid()[0]) == 0.0 and to_unit(d, d.grid()[-1]) == 1.0


def _history(rng: random.Random, n: int):
    """Fast configs have 32 cores and a reserve in [2048, 3072]; the mode does not matter."""
    space = KnobSpace.synthetic({"reserve": RESERVE, "cores": CORES, "mode": MODE})
    hist = []
    for _ in range(n):
        c = space.sample(rng)
        window = 2048 <= c["reserve"] <= 3072
        lat = 20.0 + abs(c["cores"] - 32) * 0.5 + (0.0 if window else 1.0)
        hist.append((c, TrialResult("ok", lat, True)))
    for r in (2112, 2496, 2880):  # three good configs inside the window
        hist.append(({"reserve": r, "cores": 32, "mode": rng.choice((0, 1, 2))}, TrialResult("ok", 20.0, True)))
    hist.append(({"reserve": 40000, "cores": 32, "mode": 0}, TrialResult("ub_overflow", None, False)))
    return space, hist


def test_proposals_concentrate_where_the_good_configs_are():
    rng = random.Random(0)
    space, hist = _history(rng, 30)
    good, rest = split(hist, 0.1)
    assert len(good) == 4 and len(good) + len(rest) == len(hist)
    props = [propose(space, hist, rng) for _ in range(60)]
    inside = sum(1800 <= c["reserve"] <= 3400 for c in props)
    uniform = sum(1800 <= space.sample(rng)["reserve"] <= 3400 for _ in range(600)) / 10
    assert inside >= 30 > 3 * uniform, (inside, uniform)
    assert sum(28 <= c["cores"] <= 36 for c in props) >= 30
    assert all(space.contains(c) for c in props)


def test_nothing_to_model_and_excluded_configs():
    space, hist = _history(random.Random(1), 5)
    assert propose(space, [], random.Random(0)) is None
    assert propose(space, [(hist[-1][0], hist[-1][1])], random.Random(0)) is None  # only a failure
    assert propose(space, hist, random.Random(0), exclude=lambda c: True) is None


def test_evo_immigrants_option():
    space, _ = _history(random.Random(2), 1)
    with pytest.raises(ValueError, match="immigrants"):
        EvoStrategy(space, 0, EvoConfig(immigrants="nope"))
    a, b = EvoStrategy(space, seed=5), EvoStrategy(space, 5, EvoConfig(immigrants="parzen"))
    for s in (a, b):
        for _ in range(40):
            c = s.ask(1)[0]
            s.tell(c, TrialResult("ok", 20.0 + abs(c["cores"] - 32) + c["reserve"] / 1e4, True))
    assert a.asked[:10] == b.asked[:10]   # the initial design does not use immigrants
    assert a.asked != b.asked
