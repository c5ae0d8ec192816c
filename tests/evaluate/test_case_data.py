"""The input pool: candidates share a few seeds, whose inputs and goldens are computed once;
an evaluation is the same whether they came from the cache or were drawn afresh."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from ascendopt.cases import make_inputs
from ascendopt.cases.golden_worker import golden_worker
from ascendopt.evaluate.casedata import CaseData, shared
from ascendopt.evaluate.evaluator import EvalConfig, Evaluation, Evaluator

from .conftest import comment_variant


def _same(a, b):
    return set(a) == set(b) and all(np.array_equal(a[k], b[k]) for k in a)


def test_entries_equal_a_fresh_draw_and_golden_and_are_read_only(cases):
    data, case = CaseData(), cases[0]
    inputs, expected = data.get(case, 11)
    assert _same(inputs, make_inputs(case, 11))
    fresh = golden_worker().run(case.golden, case, make_inputs(case, 11))
    assert len(expected) == len(fresh) and all(np.array_equal(e, f) for e, f in zip(expected, fresh))
    assert data.get(case, 11)[0] is inputs and (data.hits, data.misses) == (1, 1)   # kept
    assert data.get(case, 12)[0] is not inputs and data.misses == 2                 # another seed
    with pytest.raises(ValueError):
        next(iter(inputs.values()))[0] = 1                                          # nobody changes them
    with pytest.raises(ValueError):
        expected[0].reshape(-1)[0] = 1


def test_least_recently_used_go_beyond_the_limit(cases):
    inputs, expected = CaseData().get(cases[0], 0)
    one = sum(a.nbytes for a in inputs.values()) + sum(a.nbytes for a in expected)
    data = CaseData(limit_bytes=2 * one)
    for seed in (0, 1, 2):
        data.get(cases[0], seed)
    assert len(data) == 2
    assert data.get(cases[0], 2)[0] is data.get(cases[0], 2)[0]


def test_seeds_come_from_the_pool_picked_by_digest(backend, base):
    ev = Evaluator(backend, EvalConfig(seed=7, input_pool=4))
    pool = ev.pool_seeds()
    assert len(set(pool)) == 4
    picked = [ev.seed_for(comment_variant(base, n)) for n in range(40)]
    assert set(picked) == set(pool)                              # every seed used, only those
    assert ev.seed_for(base) == ev.seed_for(base)                # a replay sees the same data
    assert set(Evaluator(backend, EvalConfig(seed=8, input_pool=4)).pool_seeds()).isdisjoint(pool)
    fresh = Evaluator(backend, EvalConfig(seed=7, input_pool=0))
    assert len({fresh.seed_for(comment_variant(base, n)) for n in range(40)}) == 40
    # a config written before the pool existed keeps its meaning: fresh seeds
    assert EvalConfig.from_dict({"seed": 7}).input_pool == 0


def _plain(ev: Evaluation) -> dict:
    d = ev.to_dict()
    d.pop("timings")
    for c in (*d["cases"], *d["benchmark"]):
        c.pop("run_seconds"), c.pop("build_seconds")
    for p in d["profile"].values():
        p.pop("summary_error", None)
    return d


def test_an_evaluation_from_kept_data_equals_one_drawn_afresh(backend, base, cases, config):
    pooled = Evaluator(backend, dataclasses.replace(config, input_pool=2))
    v1 = comment_variant(base, 1)
    first = pooled.evaluate(v1, cases)
    misses = pooled.case_data.misses
    again = pooled.evaluate(v1, cases)                           # every case from the kept data
    assert pooled.case_data.misses == misses and pooled.case_data.hits >= len(cases)
    fresh = Evaluator(backend, dataclasses.replace(config, input_pool=2))
    fresh.case_data = None                                       # no cache object at all...
    fresh.config = dataclasses.replace(config, input_pool=0)     # ...and check_case draws itself
    drawn = fresh.evaluate(v1, cases, seed=first.seed, config_key=first.config_key)
    assert first.ok, first.error
    assert _plain(first) == _plain(again) == _plain(drawn)


def test_evaluators_of_a_process_share_it_and_a_pickled_one_is_the_processes(backend, base, cases, config):
    one = Evaluator(backend, dataclasses.replace(config, input_pool=1))
    other = Evaluator(backend, dataclasses.replace(config, input_pool=1, jobs=1))   # another pair, same seeds
    assert one.case_data is other.case_data is shared()
    assert pickle.loads(pickle.dumps(one)).case_data is shared()
    v = comment_variant(base, 7)
    first = one.evaluate(v, cases)
    misses = shared().misses
    second = other.evaluate(comment_variant(base, 8), cases)     # the pool's one seed: every case kept
    assert shared().misses == misses and first.seed == second.seed
    assert [c.max_abs_err for c in first.cases] == [c.max_abs_err for c in second.cases]
