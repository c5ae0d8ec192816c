"""Adjacent programs: the nearest config per knob and direction that launches another program."""

from __future__ import annotations

from ascendopt.tiling.adjacent import adjacent_programs
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import EvoConfig, EvoStrategy, TrialResult


def _space() -> KnobSpace:
    return KnobSpace.synthetic({
        "reserve": Domain("int", 32, 0, 4096, 32),
        "cores": Domain("int", 48, 1, 48, 1),
        "mode": Domain("cat", 0, choices=(0, 1)),
    })


class Staircase:
    """Programs change every 1000 bytes of reserve and every 8 cores; counts oracle calls."""

    def __init__(self, fail_from: int | None = None):
        self.calls = 0
        self.fail_from = fail_from

    def __call__(self, c):
        self.calls += 1
        if self.fail_from is not None and c["reserve"] >= self.fail_from:
            return None
        return f"{c['reserve'] // 1000}/{c['cores'] // 8}/{c['mode']}"


def test_nearest_other_program_per_knob_and_direction():
    space, oracle = _space(), Staircase()
    base = {"reserve": 32, "cores": 48, "mode": 0}
    # reserve up: 1024 is the first grid value past 1000 (30 grid steps away); reserve down and
    # cores up stay on the step or have no room; cores down: 47 is already another program;
    # categorical knobs are left to the search
    assert adjacent_programs(space, base, oracle) == [{**base, "reserve": 1024}, {**base, "cores": 47}]
    assert oracle.calls < 25                    # doubling strides and bisection, not a scan
    mid = {"reserve": 2016, "cores": 20, "mode": 1}
    assert adjacent_programs(space, mid, Staircase()) == [
        {**mid, "reserve": 3008}, {**mid, "reserve": 1984}, {**mid, "cores": 24}, {**mid, "cores": 15}]


def test_walk_stops_at_a_failing_tiling_and_needs_a_known_program():
    space = _space()
    base = {"reserve": 32, "cores": 48, "mode": 0}
    assert adjacent_programs(space, base, Staircase(fail_from=512)) == [{**base, "cores": 47}]
    assert adjacent_programs(space, base, lambda c: None) == []


def test_evo_asks_the_adjacent_programs_of_a_stalled_best():
    space, oracle = _space(), Staircase()

    def latency(c):  # the 1000..1999 reserve step is the fastest, far beyond neighbour steps
        return 10.0 - (1.0 if 1000 <= c["reserve"] < 2000 else 0.0) + abs(c["cores"] - 40) * 0.01

    evo = EvoStrategy(space, 0, EvoConfig(use_prior=False, profile_guided=False, adjacent_after=3))
    evo.program_of = oracle
    asked = []
    for _ in range(12):
        c = evo.ask()[0]
        asked.append(c)
        evo.tell(c, TrialResult("ok", latency(c), True))
    assert evo._probed                          # a stall came, and the best's neighbours were probed
    first = evo._probed[0]
    probes = adjacent_programs(space, first, Staircase())
    assert probes and all(p in asked for p in probes)
    assert min(latency(c) for c in asked) < 9.5   # the far step was reached
    # without an oracle (a backend that cannot run the tiling alone) nothing is probed
    off = EvoStrategy(space, 0, EvoConfig(use_prior=False, profile_guided=False, adjacent_after=3))
    for _ in range(12):
        c = off.ask()[0]
        off.tell(c, TrialResult("ok", latency(c), True))
    assert off._probed == []
