"""The agent writes back what came of every proposal (outcome, the experiences that led to it,
their values) and learns an online experience from an accepted rewrite of any rewriter; a
frozen bank is left as it was. Also rewind attempts count for the rewind role."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ascendopt.agent import AgentConfig, optimize
from ascendopt.bank.feedback import record_rewind
from ascendopt.bank.outcomes import outcomes, values
from ascendopt.bank.store import ExperienceBank
from ascendopt.bank.transfer import export_dict

from ..agent.fakes import FakeEvaluator, FakeRewriter, Step, budgeted, toy
from .test_store import make

STEPS = [Step("slow"), Step("stage"), Step("vec", ("stage",))]


def latency(tok: list[str]) -> float | None:
    if "bad" in tok:
        return None
    return 100.0 * (1.1 if "slow" in tok else 1.0) * (0.4 if "vec" in tok else 1.0)


class Guided(FakeRewriter):
    """Credits every retrieved experience with each proposal (as a rewriter naming its family would)."""

    def propose(self, ctx: Any, n: int):
        out = super().propose(ctx, n)
        for p in out:
            p.experiences = [h.experience.id for h in ctx.hits]
        return out


def run(bank: ExperienceBank, freeze: bool = False):
    beval = budgeted(FakeEvaluator(latency), 30)
    cfg = AgentConfig(only="stage1", rewind_budget=0, freeze_bank=freeze, k=1)
    return optimize(toy(), [], beval, Guided([*STEPS, Step("bad")]), bank, cfg)


def test_every_proposal_is_written_back_with_its_experiences_and_values():
    bank = ExperienceBank()
    exp_id, _ = bank.add(make(op="other_op"))
    res = run(bank)
    rows = outcomes(bank)
    got = {o.rewrite: o.outcome for o in rows}
    assert got == {"slow": "not_faster", "stage": "neutral", "vec": "faster", "bad": "wrong_result"}
    assert all(o.op == "toy" and o.role == "rewrite" and o.diagnosis is not None for o in rows)
    # the accepted chain's last link is an online experience though no transform made it
    assert res.bank_added == 1
    (online,) = [e for e in bank.entries() if e.experience.origin == "online"]
    assert online.seen_on == ("toy",) and online.experience.family == "other"
    assert online.experience.applicability["rewriter"] == "vec"
    # before the accept the shipped experience led every proposal, after it the one just learnt
    accepted_at = next(i for i, o in enumerate(rows) if o.outcome == "faster")
    assert {tuple(o.experiences) for o in rows[: accepted_at + 2]} == {(exp_id,)}
    assert {tuple(o.experiences) for o in rows[accepted_at + 2:]} == {(online.id,)}
    v = values(bank)[exp_id]   # 2 not_faster, 1 neutral, 2 wrong_result, 1 faster
    assert (v.tries, v.successes, v.failures) == (6, 1.0, 4.5) and abs(v.mean - 2 / 7.5) < 1e-9


def test_a_frozen_bank_is_left_as_it_was():
    bank = ExperienceBank()
    bank.add(make(op="other_op"))
    before = export_dict(bank)
    res = run(bank, freeze=True)
    assert res.bank_added == 0 and outcomes(bank) == [] and export_dict(bank) == before


def test_rewind_attempts_count_for_the_experiences_of_their_motif():
    bank = ExperienceBank()
    exp_id, _ = bank.add(make(op="other_op"))          # applicability.motif "x"
    kept = SimpleNamespace(motif="x", family="pipeline_overlap", site="s", digest="d1", parent="p", reason="kept",
                           detail="", latency_us=2.0)
    record_rewind(bank, "toy", kept)
    record_rewind(bank, "toy", SimpleNamespace(**{**kept.__dict__, "digest": "d2", "reason": "not_slower"}))
    record_rewind(bank, "toy", SimpleNamespace(**{**kept.__dict__, "digest": "", "reason": ""}))  # never evaluated
    v = values(bank, "rewind")[exp_id]
    assert (v.successes, v.failures, v.tries) == (1.0, 1.0, 2) and values(bank, "rewrite") == {}
