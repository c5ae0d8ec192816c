"""What the agent and rewind write back after each evaluation: the outcome row, the values of
the experiences that led to it (:mod:`ascendopt.bank.outcomes`), then the failure rule the outcome
concerns (:mod:`ascendopt.bank.rules`). The calls a post-evaluation verdict callback makes."""

from __future__ import annotations

from typing import Any

from ascendopt.bank.outcomes import Outcome, outcome_class, record
from ascendopt.bank.rules import learn
from ascendopt.bank.store import ExperienceBank


def learn_from(bank: ExperienceBank, o: Outcome) -> bool:
    """Records ``o`` (:func:`ascendopt.bank.outcomes.record`) and, when the row was new,
    re-derives the rule it concerns; returns whether the row was new."""
    new = record(bank, o)
    if new:
        learn(bank, o)
    return new


def record_outcome(bank: ExperienceBank, op_name: str, proposal: Any, evaluation: Any, verdict: Any,
                   diagnosis: Any = None) -> Outcome:
    """Writes what came of one Stage I proposal (role ``rewrite``): the call a post-evaluation
    verdict callback makes. ``diagnosis`` is that of the kernel the proposal was made from."""
    detail = verdict.detail if verdict.reason != "failed" else (evaluation.error or verdict.detail)
    o = Outcome("rewrite", op_name, proposal.op.digest, proposal.op.parent or "", proposal.rewrite, proposal.family,
                outcome_class(verdict.reason, evaluation.status, evaluation.error_kind), proposal.site,
                (detail or "").strip()[:500], evaluation.latency_us, getattr(diagnosis, "text", "") or "",
                list(getattr(diagnosis, "findings", None) or ()), list(proposal.experiences),
                list(getattr(proposal, "rules", ()) or ()))
    learn_from(bank, o)
    return o


def record_step(bank: ExperienceBank, op_name: str, step: Any) -> None:
    """Writes the outcome of every proposal a Stage I step evaluated
    (:class:`ascendopt.refine.stage1.StepResult`)."""
    for t in step.tried:
        record_outcome(bank, op_name, t.proposal, t.evaluation, t.verdict, step.diagnosis)


def record_rewind(bank: ExperienceBank, op_name: str, attempt: Any) -> Outcome:
    """Writes one rewind attempt (role ``rewind``): it counts for every experience whose
    optimization the attempt's motif removes (``applicability.motif``), a success when the
    removal was kept as a measurable lesson."""
    exps = [e.id for e in bank.entries() if e.experience.applicability.get("motif") == attempt.motif]
    o = Outcome("rewind", op_name, attempt.digest or f"{attempt.motif}@{attempt.site}", attempt.parent, attempt.motif,
                attempt.family, attempt.reason or "failed", attempt.site, attempt.detail, attempt.latency_us,
                experiences=exps)
    if attempt.reason:  # an attempt never evaluated (budget) teaches nothing
        learn_from(bank, o)
    return o
