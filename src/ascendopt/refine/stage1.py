"""One Stage I step: diagnose -> retrieve -> rewrite -> validate -> greedy accept.

1. The current kernel's evaluation is diagnosed (:mod:`ascendopt.profile.diagnosis`).
2. The top-k experiences for that diagnosis are retrieved from the bank (none in the
   ``--no-experience`` ablation), leaving out those learnt only on ``exclude_ops``; the
   bank's failure rules in force for the diagnosis go to the rewriter.
3. The rewriter proposes up to ``candidates`` rewrites, best first.
4. Each is evaluated like any candidate (charged to the budget, recorded); a failed one may be
   repaired by the rewriter (LLM only), each repair another charged evaluation.
5. The fastest proposal that is correct, adds no hazard and is faster than the current kernel
   by more than its measured ``tau`` is accepted (greedy); otherwise the kernel stays.
   Proposals judged ``neutral`` (correct, no new hazard, within ``tau`` of the current kernel)
   are listed in :attr:`StepResult.neutral`: the agent's search (:mod:`ascendopt.agent_beam`)
   may step on from them. A step may start from such a node instead of the current kernel
   (``reference``: the current kernel's evaluation): its proposals are then judged against
   the current kernel, so a chain is accepted only when its end beats the current kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.bank.retrieve import Hit, retrieve
from ascendopt.bank.rules import in_force
from ascendopt.bank.store import ExperienceBank
from ascendopt.cases import Case
from ascendopt.evaluate.budget import BudgetExhausted
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis, diagnose_evaluation
from ascendopt.refine.rewriter import Proposal, RewriteContext, Rewriter
from ascendopt.evaluate.verdict import (
    DEFAULT_MIN_EFFECT_PCT,
    DEFAULT_SIGMAS,
    Verdict,
    judge_improvement,
    noise_threshold,
)


@dataclass
class Tried:
    """One evaluated proposal and the verdict on it."""

    proposal: Proposal
    evaluation: Evaluation
    verdict: Verdict
    repair_of: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**self.proposal.to_dict(), "status": self.evaluation.status, "error_kind": self.evaluation.error_kind,
                "latency_us": self.evaluation.latency_us, "verdict": self.verdict.reason,
                "detail": self.verdict.detail, "charged": not self.evaluation.duplicate, "repair_of": self.repair_of}


@dataclass
class StepResult:
    """What one Stage I step did."""

    diagnosis: Diagnosis
    hits: list[Hit] = field(default_factory=list)
    tried: list[Tried] = field(default_factory=list)
    accepted: Tried | None = None
    exhausted: bool = False
    proposed: int = 0

    @property
    def neutral(self) -> list[Tried]:
        """The proposals judged neutral (candidates for the search's frontier)."""
        return [t for t in self.tried if t.verdict.reason == "neutral"]

    def to_dict(self) -> dict[str, Any]:
        return {"diagnosis": self.diagnosis.text, "findings": self.diagnosis.findings,
                "hits": [h.to_dict() for h in self.hits], "tried": [t.to_dict() for t in self.tried],
                "accepted": None if self.accepted is None else self.accepted.to_dict(),
                "exhausted": self.exhausted, "proposed": self.proposed}


@dataclass(frozen=True)
class StepConfig:
    """The knobs of one Stage I step.

    Attributes:
        k: experiences retrieved from the bank (0: none).
        candidates: rewrites proposed.
        repairs: repairs of a failed proposal (LLM only).
        exclude_ops: operators whose experiences are left out.
        cores: cores the diagnosis assumes (0: the evaluation's own).
        sigmas, min_effect_pct: the noise threshold (:func:`~ascendopt.evaluate.verdict.noise_threshold`).
    """

    k: int = 5
    candidates: int = 3
    repairs: int = 1
    exclude_ops: Iterable[str] = ()
    cores: int = 0
    sigmas: float = DEFAULT_SIGMAS
    min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT


@dataclass(frozen=True)
class StepServices:
    """What a Stage I step works with: ``beval`` (a budgeted evaluator or a share of one), the
    rewriter, the experience bank (None: no experience) and ``on_eval``, called on each
    evaluated proposal."""

    beval: Any
    rewriter: Rewriter
    bank: ExperienceBank | None = None
    on_eval: Callable[[Tried], None] | None = None


def stage1_step(op: Operator, op_ev: Evaluation, cases: Sequence[Case], services: StepServices,
                cfg: StepConfig = StepConfig(), tried: set[str] | None = None,
                reference: Evaluation | None = None) -> StepResult:
    """Runs one step on ``op`` (evaluated as ``op_ev``) with ``services``. ``tried`` collects
    the digests proposed so far (updated). Proposals are judged against ``reference``
    (default ``op_ev``) and its noise threshold."""
    beval, rewriter, bank, on_eval = services.beval, services.rewriter, services.bank, services.on_eval
    k, candidates, repairs, cores = cfg.k, cfg.candidates, cfg.repairs, cfg.cores
    tried = tried if tried is not None else set()
    diag = diagnose_evaluation(op_ev, cores)
    hits = retrieve(bank, diag, k, op=op, exclude_ops=cfg.exclude_ops) if bank is not None and k > 0 else []
    res = StepResult(diag, hits)
    ctx = RewriteContext(op, op_ev, diag, hits, tried, in_force(bank, diag.findings))
    proposals = rewriter.propose(ctx, candidates)
    res.proposed = len(proposals)
    ref = op_ev if reference is None else reference
    noise = noise_threshold(ref, cfg.sigmas, cfg.min_effect_pct)
    queue: list[tuple[Proposal, int, str]] = [(p, 0, "") for p in proposals]
    while queue:
        batch, queue = queue, []
        for p, _, _ in batch:
            tried.add(p.op.digest)
        try:
            evs: list[Evaluation | None] = list(beval.evaluate_many([p.op for p, _, _ in batch], cases))
        except BudgetExhausted as e:
            evs, res.exhausted = list(e.results) + [None] * (len(batch) - len(e.results)), True
        for (p, n_rep, of), ev in zip(batch, evs):
            if ev is None:
                continue
            t = Tried(p, ev, judge_improvement(ref, ev, noise), of)
            res.tried.append(t)
            if on_eval is not None:
                on_eval(t)
            if t.verdict.reason == "failed" and n_rep < repairs and not res.exhausted:
                fixed = rewriter.repair(ctx, p, ev)
                if fixed is not None and fixed.op.digest not in tried:
                    queue.append((fixed, n_rep + 1, p.op.digest))
        if res.exhausted:
            break
    good = [t for t in res.tried if t.verdict.kept]
    if good:
        res.accepted = min(good, key=lambda t: (t.evaluation.latency_us, t.proposal.op.digest))
    return res
