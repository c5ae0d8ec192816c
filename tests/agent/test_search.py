"""Stage I's search reaches a composition whose first step alone is neutral, accepts a chain
only when its end is faster, records the chain, and replays the same path from the records."""

from __future__ import annotations

from ascendopt.agent import AgentConfig, optimize
from ascendopt.agent_beam import Frontier, Node
from ascendopt.evaluate.store import MemoryStore

from .fakes import FakeEvaluator, FakeRewriter, Step, budgeted, toy

#: stage alone is neutral (100 us), stage then vec is 2.5x faster; slow is 10 % slower;
#: other is neutral, and other then vec does not apply (vec needs stage).
STEPS = [Step("slow"), Step("stage"), Step("other"), Step("vec", ("stage",))]


def latency(tok: list[str]) -> float:
    t = 100.0
    if "slow" in tok:
        t *= 1.1
    if "vec" in tok:
        t *= 0.4
    return t


def _run(cfg: AgentConfig, budget: int = 60, store=None, run_id=None, interrupt_after=None):
    beval = budgeted(FakeEvaluator(latency, interrupt_after), budget, store, run_id)
    return optimize(toy(), [], beval, FakeRewriter(list(STEPS)), None, cfg), beval


def test_a_chain_through_a_neutral_step_is_found_within_budget_60():
    res, beval = _run(AgentConfig(only="stage1", rewind_budget=0))
    assert res.best_us is not None and abs(res.best_us - 40.0) < 1e-9
    [acc] = res.accepted
    assert [c["rewrite"] for c in acc.chain] == ["stage", "vec"]
    assert [c["verdict"] for c in acc.chain] == ["neutral", "accepted"]
    assert acc.what == "stage: add stage -> vec: add vec" and acc.parent == toy().digest
    assert res.charged <= 60
    assert any(s.get("chain") == ["stage: add stage"] for s in res.steps)       # the step from the node
    assert res.to_dict()["accepted"][0]["chain"][1]["latency_us"] == 40.0


def test_greedy_stage1_does_not_find_it():
    res, _ = _run(AgentConfig(only="stage1", rewind_budget=0, beam_width=0))
    assert res.best_us == 100.0 and res.accepted == []


def test_a_chain_is_not_accepted_when_its_end_is_not_faster():
    steps = [Step("stage"), Step("vec", ("stage",))]
    beval = budgeted(FakeEvaluator(lambda tok: 100.0 - 0.4 * len(tok)), 60)  # every step within tau (1 us)
    res = optimize(toy(), [], beval, FakeRewriter(steps), None, AgentConfig(only="stage1", rewind_budget=0))
    assert res.accepted == [] and res.best_us == 99.6


def test_the_frontier_keeps_the_fastest_neutral_nodes_of_bounded_width_and_depth():
    op = toy()
    ev = lambda us: type("E", (), {"latency_us": us})()   # noqa: E731
    chain = lambda n: [object()] * n                       # noqa: E731
    nodes = [Node(op.with_file("op_kernel/toy.cpp", f"n{i}\n"), ev(us), chain(d))
             for i, (us, d) in enumerate([(101.0, 1), (99.0, 1), (100.0, 1), (90.0, 2), (80.0, 0)])]
    f = Frontier(width=2, depth=2)
    f.admit(nodes)
    assert [n.ev.latency_us for n in f.nodes] == [99.0, 100.0]


def test_an_interrupted_run_resumes_to_the_same_chain():
    full, _ = _run(AgentConfig(rewind_budget=0))
    store = MemoryStore()
    cut, beval = _run(AgentConfig(rewind_budget=0), store=store, interrupt_after=4)
    assert cut.stop_reason == "interrupted" and cut.accepted == []
    again, _ = _run(AgentConfig(rewind_budget=0), store=store, run_id=beval.run_id)
    assert [a.chain for a in again.accepted] == [a.chain for a in full.accepted]
    assert [s["stage"] for s in again.schedule] == [s["stage"] for s in full.schedule]
    assert again.best_us == full.best_us == 40.0


def test_measure_callbacks_see_every_judged_proposal_and_the_acceptance():
    """The post-evaluation effects run as an ordered list: the loop's own (the result's record,
    the online experience), then the caller's, which get the run's end (``finished``) last."""
    seen = []
    beval = budgeted(FakeEvaluator(latency), 60)
    res = optimize(toy(), [], beval, FakeRewriter(list(STEPS)), None, AgentConfig(only="stage1", rewind_budget=0),
                   callbacks=[lambda m: seen.append((m.event, m.stage, getattr(m.verdict, "reason", None),
                                                     m.candidate.digest))])
    judged = [s for s in seen if s[0] == "judged"]
    accepted = [s for s in seen if s[0] == "accepted"]
    assert len(judged) == sum(len(s["tried"]) for s in res.steps if s.get("stage") == "stage1") > 0
    assert accepted == [("accepted", "stage1", "accepted", res.best_op.digest)]
    assert seen[-1] == ("finished", "run", None, res.best_op.digest)


def test_clean_profiles_removes_the_run_profiles_when_it_ends(tmp_path):
    from ascendopt.evaluate.verdict import clean_profiles

    profiles = tmp_path / "profiles"
    (profiles / "abc").mkdir(parents=True)
    seen = []
    beval = budgeted(FakeEvaluator(latency), 5)
    optimize(toy(), [], beval, FakeRewriter(list(STEPS)), None, AgentConfig(only="stage1", rewind_budget=0),
             callbacks=[lambda m: seen.append((m.event, profiles.exists())), clean_profiles(profiles)])
    assert len(seen) > 1 and all(kept for _, kept in seen)  # kept while the run reads them
    assert seen[-1][0] == "finished" and not profiles.exists()


def test_measure_callbacks_run_in_order():
    from ascendopt.evaluate.verdict import MeasureCallbacks

    order = []
    cbs = MeasureCallbacks([lambda m: order.append(1)])
    cbs.append(lambda m: order.append(2))
    cbs(None)
    assert order == [1, 2]
