"""The dial search: a bracketing line search to the edge of a descending tooth, and evo's use of it."""

from __future__ import annotations

import dataclasses

from ascendopt.tiling.dial import DialSearch
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import EvoConfig, EvoStrategy, TrialResult

GRID = Domain("int", 0, 0, 49152, 32)


def sawtooth(reserve: int) -> float:
    """Teeth 20000 bytes wide: latency falls 1 us per 10000 bytes toward each tooth's edge, in
    steps of 1024 bytes (one program per step), then jumps back; the second tooth is shallower."""
    step = reserve // 1024 * 1024
    tooth, into = divmod(step, 20480)
    return 20.0 + tooth * 0.5 - into / 10000


def program(c) -> str:
    return str(c["reserve"] // 1024)


def run(search: DialSearch, latency=sawtooth) -> list[int]:
    asked = []
    while (c := search.next()) is not None:
        asked.append(c["reserve"])
        search.tell(c, latency(c["reserve"]))
    return asked


def test_dial_search_finds_the_edge_of_the_descending_tooth():
    space = KnobSpace.synthetic({"reserve": GRID, "cores": Domain("int", 48, 1, 48, 1)})
    base = {"reserve": 0, "cores": 32}
    s = DialSearch(space, base, "reserve", sawtooth(0), program)
    asked = run(s)
    assert s.done and s.best["reserve"] // 1024 == 19 and s.best["cores"] == 32   # the last step before 20480
    assert s.best_latency == sawtooth(19456) < sawtooth(0)
    assert len(asked) <= 12 and len(set(asked)) == len(asked)                    # doubling, then bisection
    assert all(c // 1024 != 0 for c in asked)                                     # the base's program is not asked
    # without an oracle every probe is evaluated, and the search still ends at the edge
    s = DialSearch(space, base, "reserve", sawtooth(0))
    asked = run(s)
    assert s.best["reserve"] // 1024 == 19 and len(asked) <= 2 * 11


def test_dial_search_stops_at_a_slower_or_failing_value():
    space = KnobSpace.synthetic({"reserve": GRID})
    s = DialSearch(space, {"reserve": 0}, "reserve", 10.0, program)
    assert run(s, lambda r: 11.0) and s.best == {"reserve": 0} and s.best_latency == 10.0  # nothing faster
    s = DialSearch(space, {"reserve": 0}, "reserve", sawtooth(0), program)
    c = s.next()
    assert s.next() is None                                  # waits for the asked value's result
    assert not s.tell({"reserve": c["reserve"] + 32}, 1.0)   # not the asked value
    assert s.tell(c, None) and s.hi is not None and s.best == {"reserve": 0}  # a failure brackets
    top = DialSearch(space, {"reserve": 49152}, "reserve", 1.0, program)
    assert top.next() is None and top.done                   # no room above


def _evo_space() -> KnobSpace:
    space = KnobSpace.synthetic({"ubReserveBytes": GRID, "cores": Domain("int", 48, 1, 48, 1),
                                 "BUFFER_NUM": Domain("int", 2, 1, 4, 1)})
    roles = {"cores": "core_cap", "BUFFER_NUM": "buffer_num", "ubReserveBytes": "ub_reserve"}
    return KnobSpace([dataclasses.replace(k, role=roles.get(k.id, k.role)) for k in space.knobs])


STALLED = {"block_dim": 48, "bound": "HBM", "pipe_ratio_mean": {"V": 0.4, "MTE2": 0.8, "MTE3": 0.5}}


def test_evo_turns_the_reserve_after_the_combined_move():
    space = _evo_space()

    def result(c):  # the sawtooth for 3 buffers; the original (2 buffers) is slower than its start
        lat = sawtooth(c["ubReserveBytes"]) + (0.0 if c["BUFFER_NUM"] == 3 else 0.5)
        return TrialResult("ok", lat, True, STALLED)

    evo = EvoStrategy(space, 0, EvoConfig(use_prior=False))
    evo.program_of = lambda c: f"{c['ubReserveBytes'] // 1024}/{c['cores']}/{c['BUFFER_NUM']}"
    base = evo.ask()[0]
    evo.tell(base, result(base))
    combined = evo.ask()[0]
    assert combined == {**base, "BUFFER_NUM": 3}       # memory stalls 2.1 deep: 3 buffers, reserve at its minimum
    evo.tell(combined, result(combined))
    asked = []
    for _ in range(12):
        c = evo.ask()[0]
        asked.append(c)
        evo.tell(c, result(c))
        if evo._dial is None:
            break
    dial = [c for c in asked if c["BUFFER_NUM"] == 3 and c["cores"] == 48]
    assert dial and all(c["ubReserveBytes"] > 0 for c in dial)
    best = min(evo.history, key=lambda t: t[1].latency_us)[0]
    assert best["ubReserveBytes"] // 1024 == 19 and best["BUFFER_NUM"] == 3
    # one dial per start config; the option switches it off
    assert evo._dialed == [combined]
    off = EvoStrategy(space, 0, EvoConfig(use_prior=False, dial=False))
    off.tell(off.ask()[0], result(base))
    c = off.ask()[0]
    off.tell(c, result(c))
    assert off._dial is None


def test_dial_search_downwards_and_evo_turns_a_doubled_tile_back():
    space = KnobSpace.synthetic({"rows": Domain("int", 64, 8, 4096, 1)})
    # latency falls from 128 rows down to 88, then rises: the edge below a doubled tile
    lat = lambda r: 18.0 - (0.05 if 88 <= r <= 92 else 0.0) + (0.1 if r < 88 else 0.0)  # noqa: E731
    s = DialSearch(space, {"rows": 128}, "rows", lat(128), direction=-1)
    while (c := s.next()) is not None:
        s.tell(c, lat(c["rows"]))
    assert 88 <= s.best["rows"] <= 92 and s.best_latency == lat(90)
    # evo: a headroom finding doubles the tile (64 -> 128); the dial walks back toward 64
    tiles = KnobSpace([dataclasses.replace(k, role="tile") for k in
                       KnobSpace.synthetic({"groupRows": Domain("int", 64, 8, 4096, 1)}).knobs])
    evo = EvoStrategy(tiles, 0, EvoConfig(use_prior=False))
    far = {"block_dim": 48, "achieved_fraction": 0.9}          # headroom: tiles x 2, then / 2
    base = evo.ask()[0]
    evo.tell(base, TrialResult("ok", lat(64), True, far))
    combined = evo.ask()[0]
    assert combined == {"groupRows": 128}
    evo.tell(combined, TrialResult("ok", lat(128), True, far))
    assert evo._dial is not None and evo._dial.direction == -1 and evo._dial.knob == "groupRows"
    for _ in range(20):
        c = evo.ask()[0]
        evo.tell(c, TrialResult("ok", lat(c["groupRows"]), True, far))
        if evo._dial is None:
            break
    assert 88 <= min(evo.history, key=lambda t: t[1].latency_us)[0]["groupRows"] <= 92
