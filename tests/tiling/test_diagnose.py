"""Profile diagnosis and the directed moves evo asks from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import compact_profile
from ascendopt.tiling.moves import diagnose, directed_moves
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import TrialResult, make_strategy

OPS = Path(__file__).resolve().parents[2] / "ops"

# a profile summary as Summary.to_dict() gives it (fields diagnose() does not read trimmed)
SUMMARY = {
    "task_duration_us": 45.6, "block_dim": 48, "bound": "MTE2", "achieved_fraction": 0.66,
    "pipe_ratio_mean": {"S": 0.0, "V": 0.38, "MTE2": 0.60, "MTE3": 0.31},
    "gm_bytes": 32960000.0, "notes": [],
    "top_instructions": [{"name": "DataCopyPad", "pipe": "MTE2", "count": 576, "cycles": 1.0, "share": 0.4},
                         {"name": "DataCopyPad", "pipe": "MTE3", "count": 528, "cycles": 1.0, "share": 0.2},
                         {"name": "Mul", "pipe": "V", "count": 8976, "cycles": 1.0, "share": 0.1}],
}


def kinds(profile, cores=48):
    return [f.kind for f in diagnose(profile, cores)]


def test_compact_profile_keeps_what_diagnosis_reads():
    p = compact_profile(SUMMARY)
    assert p == {"block_dim": 48, "bound": "MTE2", "pipe_ratio_mean": SUMMARY["pipe_ratio_mean"],
                 "gm_bytes": 32960000.0, "achieved_fraction": 0.66, "transfers": 1104}
    assert compact_profile(None) is None and compact_profile({}) is None


def test_findings():
    p = compact_profile(SUMMARY)
    assert kinds(p) == ["memory_stalls"]                       # 60 % busy MTE2, big transfers
    assert kinds({**p, "block_dim": 1}) == ["idle_cores", "memory_stalls"]
    assert kinds({**p, "transfers": 100000}) == ["memory_stalls", "small_transfers"]  # ~330 B each
    saturated = {**p, "pipe_ratio_mean": {"V": 0.4, "MTE2": 0.97, "MTE3": 0.3}, "achieved_fraction": 0.98}
    assert kinds(saturated) == []                              # no gaps left to fill, at the roofline
    vector_bound = {**saturated, "bound": "V", "pipe_ratio_mean": {"V": 0.96, "MTE2": 0.7, "MTE3": 0.4}}
    assert kinds(vector_bound) == []                           # more buffers do not help
    # the roofline says HBM, the pipes say the vector pipe is the busiest: the memory pipes hide
    # behind it, so no memory stalls; the gap to the roofline is probed by tile size
    vector_busiest = {**vector_bound, "bound": "HBM", "achieved_fraction": 0.88,
                      "pipe_ratio_mean": {"S": 0.0, "V": 0.92, "MTE2": 0.70, "MTE3": 0.43}}
    assert kinds(vector_busiest) == ["roofline_gap"]
    assert kinds({"bound": "HBM", "achieved_fraction": 0.98}) == ["memory_stalls"]  # no pipe ratios: the label
    # far from the roofline without a clearer cause: probe the tile size
    assert kinds({**saturated, "achieved_fraction": 0.9}) == ["roofline_gap"]
    assert kinds(None) == [] and kinds({}) == []


@pytest.fixture(scope="module")
def gelu_space():
    op = Operator.load(OPS / "level1" / "gelu")
    space = KnobSpace.from_operator(op)
    poor = space.apply(op, {"maxCoreNum": 1, "BUFFER_NUM": 1, "ubReserveBytes": 40960, "minBytesPerCore": 8192})
    return KnobSpace.from_operator(poor)


def test_directed_moves_follow_knob_roles(gelu_space):
    space = gelu_space
    cap = next(k.id for k in space.knobs if k.role == "core_cap")
    lo = space.domain("ubReserveBytes").lo
    base = space.defaults()
    assert base[cap] == 1 and base["BUFFER_NUM"] == 1
    p = {**compact_profile(SUMMARY), "block_dim": 1, "transfers": 100000}
    moves = directed_moves(space, base, diagnose(p, 48))
    combined, idle, stalls, small = moves
    assert idle == {**base, cap: 48, "minBytesPerCore": 2048}
    # V 38 % + MTE2 60 % + MTE3 31 % of the time: 2.15 busiest pipes' worth of work, 3 deep
    assert stalls == {**base, "BUFFER_NUM": 3, "ubReserveBytes": lo}
    assert small == {**base, "ubReserveBytes": lo}               # no plain tile knob here but the reserve
    assert combined == {**base, cap: 48, "minBytesPerCore": 2048, "BUFFER_NUM": 3, "ubReserveBytes": lo}
    assert all(space.contains(c) for c in moves)
    # nothing to answer: no moves; a move that changes nothing is dropped
    assert directed_moves(space, base, []) == []
    top = {**base, cap: 48}
    assert directed_moves(space, top, diagnose({"block_dim": 40}, 48)) == [{**top, "minBytesPerCore": 2048}]


def test_memory_stalls_ask_the_overlap_depth_in_buffers(gelu_space):
    from ascendopt.profile.diagnosis import overlap_depth

    assert overlap_depth({"S": 0.9, "V": 0.38, "MTE2": 0.60, "MTE3": 0.31}) == 3   # the scalar pipe is not a stage
    assert overlap_depth({"V": 0.26, "MTE2": 0.74, "MTE3": 0.005}) == 2
    assert overlap_depth({"V": 0.5, "MTE2": 0.5}) == 2 and overlap_depth({"MTE2": 0.5}) == 1
    assert overlap_depth({}) is None and overlap_depth({"S": 0.4, "V": 0.0}) is None
    stalls = diagnose(compact_profile(SUMMARY), 48)
    assert [(f.kind, f.value) for f in stalls] == [("memory_stalls", 3)] and "3 deep" in stalls[0].reason
    space = gelu_space
    cap = next(k.id for k in space.knobs if k.role == "core_cap")
    lo = space.domain("ubReserveBytes").lo
    base = {**space.defaults(), cap: 48}
    deep = {"block_dim": 48, "bound": "MTE2", "pipe_ratio_mean": {"V": 0.5, "MTE2": 0.55, "MTE3": 0.5}}
    shallow = {**deep, "pipe_ratio_mean": {"V": 0.1, "MTE2": 0.5, "MTE3": 0.1}}
    assert directed_moves(space, base, diagnose(deep, 48)) == [{**base, "BUFFER_NUM": 3, "ubReserveBytes": lo}]
    # at least one buffer more than now, and never past the knob's range
    assert directed_moves(space, base, diagnose(shallow, 48)) == [{**base, "BUFFER_NUM": 2, "ubReserveBytes": lo}]
    four = {**base, "BUFFER_NUM": 3}
    wide = {**deep, "pipe_ratio_mean": {"V": 0.3, "MTE2": 0.35, "MTE3": 0.3, "MTE1": 0.3, "M": 0.3, "FIX": 0.3}}
    assert directed_moves(space, four, diagnose(wide, 48))[0]["BUFFER_NUM"] == 4


SPLIT = {"blocks": 48, "unit_bytes": 96, "units": 262144}  # 2^18 units: 5461.33 per core on 48


def test_uneven_split_asks_a_core_count_that_divides_the_work(gelu_space):
    from ascendopt.profile.diagnosis import balanced_cores

    assert balanced_cores(262144, 48) == 32 and balanced_cores(1000, 48) == 40 and balanced_cores(96, 48) == 48
    assert balanced_cores(97, 48) is None                 # only 1 and 97: fewer than half the cores
    p = {**compact_profile({**SUMMARY, "split": SPLIT})}
    assert p["split"] == SPLIT
    found = diagnose(p, 48)
    assert [f.kind for f in found] == ["uneven_split", "memory_stalls"]
    assert found[0].value == 32 and "262144 units of 96 B" in found[0].reason
    assert kinds({**p, "split": {**SPLIT, "units": 97 * 48 + 1}}) == ["memory_stalls"]   # no balanced count
    # idle cores and an uneven split: the combined move takes the balanced count
    assert kinds({**p, "block_dim": 20}) == ["idle_cores", "uneven_split", "memory_stalls"]
    # an uneven split does not stand in for a clearer cause of a gap to the roofline
    far = {"block_dim": 48, "achieved_fraction": 0.9, "split": SPLIT}
    assert kinds(far) == ["uneven_split", "roofline_gap"] and kinds({**far, "block_dim": 1, "split": None}) == ["idle_cores"]
    space = gelu_space
    cap = next(k.id for k in space.knobs if k.role == "core_cap")
    top = {**space.defaults(), cap: 48, "BUFFER_NUM": 2}
    moves = directed_moves(space, top, diagnose({"block_dim": 48, "split": SPLIT}, 48))
    assert moves == [{**top, cap: 32}]
    # a space without core knobs has nothing to move
    none = KnobSpace([k for k in space.knobs if k.id != cap])
    assert directed_moves(none, none.defaults(), diagnose({"block_dim": 48, "split": SPLIT}, 48)) == []


def test_headroom_probes_tiles_both_ways():
    op = Operator.load(OPS / "level2" / "rms_norm")
    space = KnobSpace.from_operator(op)
    base = space.defaults()
    assert base["groupRows"] == 64
    moves = directed_moves(space, base, diagnose({"block_dim": 48, "achieved_fraction": 0.9}, 48))
    lo = space.domain("UB_RESERVED_BYTES").lo
    assert moves == [{**base, "groupRows": 128, "UB_RESERVED_BYTES": lo},  # the combined move (= up)
                     {**base, "groupRows": 32}]


def test_evo_asks_the_moves_of_a_new_best_first(gelu_space):
    space = gelu_space
    evo = make_strategy("evo", space, seed=1)
    base = evo.ask()[0]
    profile = {**compact_profile(SUMMARY), "block_dim": 1}
    evo.tell(base, TrialResult("ok", 600.0, True, profile))
    expected = directed_moves(space, base, diagnose(profile, 48))
    asked = evo.ask(len(expected))
    assert asked == expected
    # a faster config's advice is asked before the rest of the older one
    evo2 = make_strategy("evo", space, seed=1)
    evo2.tell(evo2.ask()[0], TrialResult("ok", 600.0, True, profile))
    first = evo2.ask()[0]
    evo2.tell(first, TrialResult("ok", 30.0, True, compact_profile(SUMMARY)))
    newer = [c for c in directed_moves(space, first, diagnose(compact_profile(SUMMARY), 48)) if not evo2.seen(c)]
    older = [c for c in expected[1:] if c not in newer]
    assert newer and older
    assert evo2.ask(len(newer) + len(older)) == newer + older
    # slower results and results without a profile give no advice; the option turns it off
    off = make_strategy("evo", space, seed=1, profile_guided=False)
    off.tell(off.ask()[0], TrialResult("ok", 600.0, True, profile))
    assert off.ask()[0] == space.complete(space.prior_config())


def test_profile_and_advice_replay_the_same_asks(gelu_space):
    space = gelu_space
    profile = {**compact_profile(SUMMARY), "block_dim": 1}
    runs = []
    for _ in range(2):
        evo = make_strategy("evo", space, seed=1)
        evo.tell(evo.ask()[0], TrialResult("ok", 600.0, True, profile))
        assert evo.history[0][1].profile == profile
        runs.append(evo.ask(3))
    assert runs[0] == runs[1]
    assert TrialResult.from_json(TrialResult("ok", 1.0, True, profile).to_json()).profile == profile



def test_cube_kernels_count_cube_cores(gelu_space):
    from ascendopt.tiling.moves import kernel_cores

    cube = {"op_type": "cube", "block_dim": 24, "bound": "MTE2", "pipe_ratio_mean": {"MTE2": 0.97},
            "achieved_fraction": 0.99}
    assert compact_profile(cube)["op_type"] == "cube"
    assert kernel_cores(gelu_space, cube) == 24 and kernel_cores(gelu_space, {**cube, "op_type": "mix"}) == 24
    assert kernel_cores(gelu_space, {**cube, "op_type": "vector"}) == 48 == kernel_cores(gelu_space)
    # a matmul on all 24 cube cores of an Ascend910B2 has no idle cores (it used to be told 24 of 48)
    assert diagnose(cube, kernel_cores(gelu_space, cube)) == []
