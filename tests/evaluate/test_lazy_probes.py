"""Equivalence with lazy tiling probes (LaunchIndex) makes the decisions full launch keys make,
with fewer tiling-only runs; builds of a candidate whose host objects are built start at once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ascendopt.backends.base import BuildResult
from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig
from ascendopt.evaluate.evaluator import Evaluator
from ascendopt.evaluate.store import MemoryStore

from .conftest import HOST, KERNEL, comment_variant, edit
from .test_equivalence import CAP, knobbed


class ProbeCounting(Evaluator):
    """Counts evaluations and tiling-only runs."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.calls = self.probes = 0
        self._count_lock = threading.Lock()

    def evaluate(self, *a, **kw):
        self.calls += 1
        return super().evaluate(*a, **kw)

    def launch_part(self, *a, **kw):
        with self._count_lock:
            self.probes += 1
        return super().launch_part(*a, **kw)


@pytest.fixture(scope="module")
def capped(base):
    return edit(base, HOST, "uint32_t tileLength = 1024;",
                f"uint32_t tileLength = 1024;\n    uint32_t {CAP} = 4096;\n"
                f"    tileLength = tileLength < {CAP} ? tileLength : {CAP};", origin="original")


@pytest.fixture(scope="module")
def space(capped):
    from ascendopt.tiling.space import KnobSpace

    return KnobSpace.from_operator(capped)


def _decisions(evs):
    return [(e.status, e.duplicate, e.same_as, e.latency_us, e.digest) for e in evs]


def _script(s, space, capped, cases):
    """The equivalence test's sequence, plus a kernel change and a repeat of an answered one."""
    out = [s.evaluate(knobbed(space, capped), cases),
           s.evaluate(knobbed(space, capped, **{CAP: 8192}), cases),
           s.evaluate(knobbed(space, capped, **{CAP: 512}), cases)]
    out += s.evaluate_many([knobbed(space, capped, **{CAP: 2048}), knobbed(space, capped, **{CAP: 16384}),
                            knobbed(space, capped, **{CAP: 256}), knobbed(space, capped, **{CAP: 128}),
                            knobbed(space, capped, **{CAP: 16384})], cases)
    out.append(s.evaluate(comment_variant(knobbed(space, capped), 1), cases))
    out.append(s.evaluate(knobbed(space, capped, **{CAP: 8192}), cases))  # asked again: answered again
    return out


def test_lazy_probes_make_the_decisions_full_keys_make(backend, config, space, capped, cases):
    runs = {}
    for lazy in (False, True):
        ev = ProbeCounting(backend, config)
        s = BudgetedEvaluator(ev, MemoryStore(), budget=20, run_label="scale_copy", reuse=ReuseConfig(lazy_probes=lazy))
        assert s.lazy_probes == lazy
        runs[lazy] = (_decisions(_script(s, space, capped, cases)), ev.calls, ev.probes, s.report("scale_copy"))
    (full, full_calls, full_probes, full_rep), (lazy, lazy_calls, lazy_probes, lazy_rep) = runs[False], runs[True]
    assert lazy == full
    assert [d[1] for d in full] == [False, True, False, True, True, False, False, True, False, True]
    assert lazy_calls == full_calls == 5 and (lazy_rep.charged, lazy_rep.duplicates) == (full_rep.charged,
                                                                                          full_rep.duplicates)
    assert lazy_probes < full_probes


def test_a_new_binary_is_not_probed(backend, config, space, capped, cases):
    ev = ProbeCounting(backend, config)
    s = BudgetedEvaluator(ev, MemoryStore(), budget=5, reuse=ReuseConfig(lazy_probes=True))
    first = s.evaluate(knobbed(space, capped), cases)
    rewrite = s.evaluate(comment_variant(knobbed(space, capped), 2), cases)
    assert ev.probes == 0 and not rewrite.duplicate and ev.calls == 2
    assert first.launch_key == "" == rewrite.launch_key  # never probed on every case: no key recorded
    s.evaluate(knobbed(space, capped, **{CAP: 8192}), cases)  # same binary as the first: probed against it
    assert ev.probes > 0 and ev.calls == 2


def test_a_resumed_run_answers_equivalents_of_its_replayed_candidates(backend, config, space, capped, cases):
    store = MemoryStore()
    s = BudgetedEvaluator(ProbeCounting(backend, config), store, budget=5, reuse=ReuseConfig(lazy_probes=True))
    first = s.evaluate(knobbed(space, capped), cases)
    again = ProbeCounting(backend, config)
    r = BudgetedEvaluator(again, store, budget=5, run_id=s.run_id, reuse=ReuseConfig(lazy_probes=True))
    assert r.lazy_probes
    assert r.evaluate(knobbed(space, capped), cases).duplicate  # the replay: answered by digest
    same = r.evaluate(knobbed(space, capped, **{CAP: 8192}), cases)
    assert same.duplicate and same.same_as == first.digest and again.calls == 0


def test_lazy_probes_are_not_taken_on_a_store_with_other_runs(backend, config):
    store = MemoryStore()
    store.create_run("other", {})
    assert not BudgetedEvaluator(Evaluator(backend, config), store, reuse=ReuseConfig(lazy_probes=True)).lazy_probes
    assert not BudgetedEvaluator(Evaluator(backend, config), MemoryStore(),
                                 reuse=ReuseConfig(equivalence=False, lazy_probes=True)).lazy_probes


def test_an_interrupted_batch_leaves_no_member_behind(backend, config, space, capped, cases):
    class Interrupting(ProbeCounting):
        stop = False

        def evaluate(self, *a, **kw):
            if self.stop:
                raise KeyboardInterrupt
            return super().evaluate(*a, **kw)

    ev = Interrupting(backend, config)
    s = BudgetedEvaluator(ev, MemoryStore(), budget=5, reuse=ReuseConfig(lazy_probes=True))
    s.evaluate(knobbed(space, capped), cases)
    ev.stop = True
    with pytest.raises(KeyboardInterrupt):
        s.evaluate(knobbed(space, capped, **{CAP: 512}), cases)
    ev.stop = False
    # the candidate that was never evaluated is no member (it would answer from a dead batch)
    (index,) = s._indexes.values()
    assert all(m.evaluation is not None for ms in index._members.values() for m in ms)
    got = s.evaluate(knobbed(space, capped, **{CAP: 512}), cases)
    assert got.ok and not got.duplicate and ev.calls == 2


class TimedBuilds(Evaluator):
    """Builds that take 0.2 s and record when they ran (nothing is compiled)."""

    def __init__(self, *a, fail=(), **kw):
        super().__init__(*a, **kw)
        self.spans, self.fail = [], set(fail)

    def _build(self, op, dtypes):
        t0 = time.perf_counter()
        time.sleep(0.2)
        self.spans.append((tuple(sorted(dtypes.items())), t0, time.perf_counter()))
        bad = tuple(sorted(dtypes.items())) in self.fail
        return BuildResult(None if bad else "runner", error="boom" if bad else "", key=str(dtypes))


def _overlapped(spans) -> bool:
    return any(a[1] < b[2] and b[1] < a[2] for i, a in enumerate(spans) for b in spans[i + 1:])


def test_builds_of_a_built_host_start_together(backend, config, base):
    ev = TimedBuilds(backend, config)
    combos = [(("x", "float"),), (("x", "float16"),)]
    with ThreadPoolExecutor(2) as pool:
        assert list(ev._builds(base, combos, pool)) == combos
        assert not _overlapped(ev.spans)  # new host sources: the first build compiles them alone
        ev.spans.clear()
        kernel_change = comment_variant(base, 1, KERNEL)
        assert all(b.ok for b in ev._builds(kernel_change, combos, pool).values())
        assert _overlapped(ev.spans)  # host objects built: every combination at once
        ev.spans.clear()
        host_change = comment_variant(base, 1, HOST)
        ev.fail = {combos[0]}
        got = ev._builds(host_change, combos, pool)
        assert list(got) == combos[:1] and not got[combos[0]].ok  # stops after a failing first build
        assert len(ev.spans) == 1
