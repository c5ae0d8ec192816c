"""Domains and knob spaces: membership, sampling, moves, JSON."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ascendopt.operator import Operator
from ascendopt.tiling import Domain, KnobSpace

ROOT = Path(__file__).resolve().parents[2]

DOMAINS = [
    Domain("int", 1024, 8, 16384, 8, log=True),
    Domain("int", 2, 1, 4, 1),
    Domain("int", 0, 0, 49152, 32),
    Domain("pow2", 64, 8, 4096),
    Domain("cat", 1, choices=(0, 1)),
    Domain("int", 1000, 8, 4096, 8, log=True),   # default off the grid
]


@pytest.mark.parametrize("d", DOMAINS, ids=lambda d: f"{d.kind}-{d.default}")
def test_domain_moves_stay_inside(d):
    rng = random.Random(1)
    v = d.default
    assert d.contains(v)
    for _ in range(300):
        for new in (d.sample(rng), d.neighbour(v, rng), d.pow2_jump(v, rng)):
            assert d.contains(new), (d, v, new)
        n = d.neighbour(v, rng)
        if d.size() > 1:
            assert n != v
        v = d.sample(rng)
    top = d.snap(10**9)
    assert d.contains(top) and all(x <= top for x in d.grid() if x != d.default)
    assert Domain.from_json(json.loads(json.dumps(d.to_json()))) == d


def test_log_domain_prefers_powers_of_two():
    d = Domain("int", 1024, 8, 16384, 8, log=True)
    rng = random.Random(0)
    s = [d.sample(rng) for _ in range(2000)]
    p2 = sum(1 for v in s if v & (v - 1) == 0)
    assert p2 > 800                                         # ~half are powers of two
    assert sum(1 for v in s if v <= 256) > 400              # log-uniform: small tiles are not rare
    assert d.pow2_jump(1024, random.Random(3)) in (512, 2048)
    assert d.pow2_jump(1000, random.Random(3)) in (512, 1024)


def test_pow2_domain_includes_its_lower_end():
    # regression: a power-of-two lower end was left out of the grid (8..4096 started at 16)
    assert Domain("pow2", 64, 8, 4096).grid()[:2] == [8, 16]
    assert Domain("pow2", 64, 5, 100).grid() == [8, 16, 32, 64]
    assert Domain("pow2", 1, 1, 4).grid() == [1, 2, 4]


def test_domain_validation():
    with pytest.raises(ValueError):
        Domain("int", 1, 4, 1)
    with pytest.raises(ValueError):
        Domain("cat", 1)
    with pytest.raises(ValueError):
        Domain("float", 1, 0, 1)


def test_space_sample_neighbours_json():
    op = Operator.load(ROOT / "ops/level3/matmul_custom")
    space = KnobSpace.from_operator(op)
    rng = random.Random(5)
    for _ in range(50):
        c = space.sample(rng)
        assert space.contains(c) and set(c) == set(space.ids)
        n = space.neighbour(c, rng)
        assert space.contains(n) and sum(n[k] != c[k] for k in c) == 1
    nb = space.neighbours(space.defaults())
    assert nb and all(space.contains(c) for c in nb)
    assert all(sum(c[k] != space.defaults()[k] for k in c) == 1 for c in nb)
    assert not space.contains({"baseM": 17}) and not space.contains({"nope": 1})
    again = KnobSpace.from_json(json.loads(json.dumps(space.to_json())))
    assert again.ids == space.ids and again.defaults() == space.defaults()
    assert again.template == space.template and again.region_text == space.region_text
    c = space.sample(rng)
    assert again.apply(op, c).files == space.apply(op, c).files
    with pytest.raises(ValueError):
        KnobSpace.from_json({**space.to_json(), "version": 99})


def test_space_priors_follow_soc():
    op = Operator.load(ROOT / "ops/level1/gelu")
    space = KnobSpace.from_operator(op, "Ascend910B2")
    assert space.soc.ub_bytes == 196608 and space.domain("maxCoreNum").hi == space.soc.aiv_cores
    assert space.domain("BUFFER_NUM").lo == 1 and space.domain("BUFFER_NUM").hi == 4
    assert space.domain("minBytesPerCore").log
    d = space.domain("ubReserveBytes")   # subtracted from the UB size: bytes, 32-byte steps
    assert d.step == 32 and d.hi <= space.soc.ub_bytes



def test_ub_reserve_never_ranges_beyond_the_ub():
    """A large reserve default (a poor start) used to get 16 x its value as range: 700 KiB
    of a 192 KiB UB, every value above the UB a certain failure."""
    op = Operator.load(ROOT / "ops/level1/gelu")
    space = KnobSpace.from_operator(op, "Ascend910B2")
    big = KnobSpace.from_operator(space.apply(op, {"ubReserveBytes": 44000}), "Ascend910B2")
    assert big.domain("ubReserveBytes").hi == space.soc.ub_bytes
    assert big.domain("minBytesPerCore").hi == space.domain("minBytesPerCore").hi  # a GM share, not UB
    norm = Operator.load(ROOT / "ops/level2/rms_norm")
    huge = KnobSpace.from_operator(norm, "Ascend910B2")
    assert huge.domain("UB_RESERVED_BYTES").hi <= huge.soc.ub_bytes
