"""The gain schedule gives the budget to the stage that gains per charged evaluation, tries an
untried stage first, and retries a stalled stage once the other stalls too; ``fixed`` keeps the
old rounds."""

from __future__ import annotations

import math

import pytest

import ascendopt.agent as agent
from ascendopt.agent import AgentConfig, optimize
from ascendopt.agent_schedule import GainScheduler
from ascendopt.evaluate.budget import BudgetExhausted, SubBudget

from .fakes import FakeEvaluator, FakeRewriter, budgeted, toy, with_token


def test_untried_stages_first_then_the_higher_gain_per_evaluation():
    s = GainScheduler(("stage1", "stage2"))
    assert s.pick() == "stage1"
    s.record("stage1", 0.0, 3, changed=False)
    assert s.pick() == "stage2"                               # optimistic prior for the untried one
    s.record("stage2", math.log(1.25), 20, changed=True)
    assert s.pick() == "stage2"                               # 0.011 per evaluation vs the floor
    s.record("stage2", 0.0, 20, changed=False)
    assert s.pick() == "stage2"                               # window of 2: still 0.0056 per evaluation
    s.record("stage2", 0.0, 20, changed=False)
    assert s.pick() == "stage1"                               # stalled: both at the floor, stage1 ran longer ago
    s.record("stage1", math.log(2.0), 6, changed=True)
    assert s.pick() == "stage1"


def test_a_stage_with_nothing_new_is_idle_until_the_kernel_changes():
    s = GainScheduler(("stage1", "stage2"))
    s.record("stage1", 0.0, 0, changed=False)
    assert s.pick() == "stage2"
    s.record("stage2", 0.0, 0, changed=False)
    assert s.pick() is None
    s.idle.discard("stage2")
    s.record("stage2", 0.1, 20, changed=True)
    assert s.idle == set() and s.pick() == "stage2"


def _latency(tok: list[str]) -> float:
    t = 100.0 * 1.05 ** sum(x.startswith("slow") for x in tok)
    return t * 0.9 ** min(3, sum(x.startswith("tile") and x.endswith("-0") for x in tok))


@pytest.fixture
def fake_stage2(monkeypatch):
    """Stage II as ``stage2_steps`` candidates per round; the first is 10 % faster in its
    first three rounds and no faster later."""

    def round_(st, cases, beval, cfg, rnd, res, emit):
        cur, cur_ev = st.cur, st.cur_ev
        sub = SubBudget(beval, cur.name, cfg.stage2_steps)
        cands = [with_token(cur, f"tile{rnd}-{i}", "stage2/fake") for i in range(cfg.stage2_steps)]
        try:
            evs = sub.evaluate_many(cands, cases)
        except BudgetExhausted as e:
            evs = e.results
        best = min(((e, c) for e, c in zip(evs, cands) if e is not None), key=lambda p: (p[0].latency_us, p[1].digest))
        res.steps.append({"round": rnd, "stage": "stage2", "charged": len(evs)})
        if best[0].latency_us < cur_ev.latency_us * 0.99:
            res.best_op, res.best_us = best[1], best[0].latency_us
            return best[1], best[0]
        return cur, cur_ev

    monkeypatch.setattr(agent, "_stage2_round", round_)


def _run(schedule: str, budget: int = 100):
    beval = budgeted(FakeEvaluator(_latency), budget)
    cfg = AgentConfig(schedule=schedule, rewind_budget=0, stage2_steps=10)
    return optimize(toy(), [], beval, FakeRewriter(endless=True), None, cfg)


def test_the_gain_schedule_spends_on_the_stage_that_gains(fake_stage2):
    gain, fixed = _run("gain"), _run("fixed")
    assert gain.charged == fixed.charged == 100
    # Stage I only ever proposes slower kernels: the gain schedule tries it once, then again
    # only when Stage II has stalled (two rounds without a gain), then alternates
    stages = [s["stage"] for s in gain.schedule]
    assert stages[:7] == ["stage1", "stage2", "stage2", "stage2", "stage2", "stage2", "stage1"]
    assert gain.charged_by_stage["stage1"] < fixed.charged_by_stage["stage1"]
    assert gain.best_us is not None and fixed.best_us is not None and gain.best_us <= fixed.best_us
    assert abs(gain.best_us - 100 * 0.9 ** 3) < 1e-6


def test_an_unknown_schedule_is_refused():
    with pytest.raises(ValueError, match="schedule"):
        optimize(toy(), [], budgeted(FakeEvaluator(_latency), 5), FakeRewriter(), None,
                 AgentConfig(schedule="round-robin", rewind_budget=0))


def test_stage2_keeps_its_strategy_while_the_kernel_is_unchanged(monkeypatch):
    from types import SimpleNamespace

    import ascendopt.tiling.search as search
    import ascendopt.tiling.space as space
    import ascendopt.tiling.strategies as strategies

    made, used = [], []
    monkeypatch.setattr(space.KnobSpace, "from_operator", staticmethod(lambda op, soc="": SimpleNamespace(knobs=[1])))
    monkeypatch.setattr(strategies, "make_strategy", lambda name, sp, seed=0: made.append(seed) or object())

    def tune(op, cases, sub, sp, strategy, name):
        used.append(strategy)
        n = len(used)
        ev = sub.evaluate(with_token(op, f"tile{n}", "stage2/fake"), cases)   # 1 % slower: never accepted
        return SimpleNamespace(charged=1, best_op=None, best_latency_us=ev.latency_us, stop_reason="", best_config={})

    monkeypatch.setattr(search, "tune", tune)
    beval = budgeted(FakeEvaluator(lambda tok: 100.0 * 1.01 ** (len(tok) - 1)), 50)
    res = optimize(toy(), [], beval, FakeRewriter(), None, AgentConfig(schedule="fixed", rewind_budget=0, rounds=3))
    assert res.rounds == 3 and len(used) == 3
    assert made == [1] and all(s is used[0] for s in used)        # one strategy, seeded for round 1


def test_a_resumed_run_makes_the_same_schedule(fake_stage2):
    from ascendopt.evaluate.store import MemoryStore

    cfg = AgentConfig(rewind_budget=0, stage2_steps=10)
    full = optimize(toy(), [], budgeted(FakeEvaluator(_latency), 100), FakeRewriter(endless=True), None, cfg)
    store = MemoryStore()
    first = budgeted(FakeEvaluator(_latency, interrupt_after=37), 100, store)
    cut = optimize(toy(), [], first, FakeRewriter(endless=True), None, cfg)
    assert cut.stop_reason == "interrupted"
    again = optimize(toy(), [], budgeted(FakeEvaluator(_latency), 100, store, first.run_id),
                     FakeRewriter(endless=True), None, cfg)
    assert [(s["stage"], s["charged"]) for s in again.schedule] == [(s["stage"], s["charged"]) for s in full.schedule]
    assert again.best_us == full.best_us and again.charged == full.charged == 100
