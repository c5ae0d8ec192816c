"""Seeded inputs kept for tiling-only runs."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.evaluator import InputCache

SCALE_COPY = Path(__file__).resolve().parents[1] / "fixtures" / "ops" / "scale_copy"


@pytest.fixture(scope="module")
def cases():
    return load_op_cases(SCALE_COPY)


def test_inputs_equal_a_fresh_draw_and_are_kept_read_only(cases):
    cache = InputCache()
    a = cache.get(cases[0], 7)
    fresh = make_inputs(cases[0], 7)
    assert set(a) == set(fresh) and all(np.array_equal(a[k], fresh[k]) for k in a)
    assert cache.get(cases[0], 7) is a and len(cache) == 1          # a hit: the same arrays
    assert cache.get(cases[0], 8) is not a and len(cache) == 2      # another seed: another draw
    with pytest.raises(ValueError):
        next(iter(a.values()))[0] = 1                                 # nobody can change a kept input


def test_least_recently_used_go_beyond_the_limit(cases):
    one = sum(v.nbytes for v in make_inputs(cases[0], 0).values())
    cache = InputCache(limit_bytes=2 * one)
    for seed in (0, 1, 2):
        cache.get(cases[0], seed)
    assert len(cache) == 2
    first = cache.get(cases[0], 1)                                    # still there
    assert cache.get(cases[0], 1) is first
    assert InputCache(limit_bytes=0).get(cases[0], 0) is not None     # too big to keep: still given
    again = pickle.loads(pickle.dumps(cache))
    assert len(again) == 0 and again.limit_bytes == 2 * one           # a pickled copy starts empty
