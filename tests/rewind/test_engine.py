from ascendopt.bank.store import ExperienceBank
from ascendopt.cxx.syntax import calls
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.rewind.engine import RewindConfig, rewind
from ascendopt.transforms import get_motif as get
from ascendopt.transforms.base import Edit, Motif, Site, kernel_parsed

from .fake import BASE_US, SINGLE_US, FakeEvaluator, fake_op


class RacyMotif(Motif):
    """Test motif: marks the kernel racy (the fake evaluator then fails it with a race)."""

    name, family, title, mechanism, bottleneck = "racy", "sync_elimination", "t", "m", "b"

    def find(self, op):
        p = kernel_parsed(op)[0]
        return [self.site(p, n, "racy") for n in calls(p, ["InitBuffer"])][:1]

    def edits(self, op, site):
        return [Edit(site.file, site.end, site.end, "; // race\n")]


def run(budget, depth, motifs=None, bank=None, store=None):
    ev = FakeEvaluator()
    be = BudgetedEvaluator(ev, store or MemoryStore(), budget=budget, run_label="fake_op")
    res = rewind(fake_op(), ["case0"], be, motifs or [get("double_buffer")], RewindConfig(depth=depth), bank=bank)
    return res, ev, be


def test_chains_removals_and_distills_every_kept_pair():
    bank = ExperienceBank()
    res, ev, be = run(budget=10, depth=2, bank=bank)
    # tier first, then depth: the first queue's removal, then *its* first-tier removal (the other
    # queue, depth 2) before the root's second-tier one; the last depth-2 candidate is the same
    # program again and is not re-tried
    assert res.baseline_us == BASE_US
    assert [(a.depth, a.reason) for a in res.attempts] == [(1, "kept"), (2, "kept"), (1, "kept")]
    assert res.attempts[1].latency_us == BASE_US + 2 * SINGLE_US
    assert res.charged == 4 == ev.calls and res.stop_reason == "exhausted"
    exps = res.experiences
    assert len(exps) == 3 and all(e.family == "pipeline_overlap" for e in exps)
    assert exps[0].expected_effect["speedup"] == (BASE_US + SINGLE_US) / BASE_US
    assert exps[0].applicability["rewrite"] == "double_buffer"  # Stage I's matcher sees the removal
    assert "+        pipe.InitBuffer(inQ, BUFFER_NUM, 256);" in exps[0].diff  # slow -> fast
    assert exps[1].source["depth"] == 2
    # the depth-2 removal changes the same line as a depth-1 one: same normalised diff, one
    # row measured twice
    assert len(bank) == 2
    assert sorted(e.support for e in bank.entries()) == [1, 2]


def test_depth_one_does_not_chain_and_budget_stops_it():
    res, ev, _ = run(budget=10, depth=1)
    assert [a.depth for a in res.attempts] == [1, 1] and ev.calls == 3
    res, ev, _ = run(budget=2, depth=2)
    assert ev.calls == 2 and res.stop_reason == "budget" and res.charged == 2


def test_racy_removal_is_rejected_and_not_chained():
    res, _, _ = run(budget=10, depth=2, motifs=[RacyMotif()])
    assert [(a.reason, a.status) for a in res.attempts] == [("failed", "runtime_error")]
    assert not res.experiences


def test_a_rerun_on_the_same_store_is_free():
    store = MemoryStore()
    run(budget=10, depth=2, store=store)
    res, ev, _ = run(budget=10, depth=2, store=store)
    assert ev.calls == 0 and len(res.kept) == 3
    assert not any(a.charged for a in res.attempts)
