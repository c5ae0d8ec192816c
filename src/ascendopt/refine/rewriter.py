"""Stage I rewriters: given a kernel, its diagnosis and the retrieved experiences, propose
rewritten candidates. Two implementations behind one interface:

* :class:`OfflineRewriter` (deterministic, no service): the sites of the optimizing
  transforms of :data:`ascendopt.transforms.REWRITES`, ranked by what the retrieved
  experiences measured for that transform (or its family) on similar diagnoses and by whether
  the transform relieves what the current kernel's diagnosis finds, built lazily up to the
  number asked for;
* ``LLMRewriter`` (:mod:`ascendopt.refine.llm_rewriter`): a prompt with the kernel, the host
  tiling, the diagnosis and the experiences; its answer is parsed strictly.

A rewriter only proposes. The Stage I step (:mod:`ascendopt.refine.stage1`) evaluates each
proposal like any candidate and accepts only correct, faster ones.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ascendopt.bank.retrieve import Hit
from ascendopt.bank.rules import blocking
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis


@dataclass
class RewriteContext:
    """What a rewriter sees.

    Attributes:
        op: The current kernel (and host) to improve.
        evaluation: Its evaluation (status, latency, profile summary).
        diagnosis: What its profile says.
        hits: Retrieved experiences, best first (empty without experience).
        tried: Digests of candidates already evaluated from this operator (not to propose again).
        rules: The bank's failure rules in force for this diagnosis
            (:func:`ascendopt.bank.rules.in_force`): not proposed offline, stated to the LLM.
    """

    op: Operator
    evaluation: Evaluation
    diagnosis: Diagnosis
    hits: list[Hit] = field(default_factory=list)
    tried: set[str] = field(default_factory=set)
    rules: list[Any] = field(default_factory=list)


@dataclass
class Proposal:
    """One rewritten candidate and where it came from.

    Attributes:
        op: The candidate (parent = the context's op).
        rewrite: Name of the transform (``double_buffer``) or ``llm``.
        family: The optimization family it belongs to.
        site: What was rewritten (the site label, or the LLM's summary).
        experiences: Ids of the experiences that led to it.
        prior: The expected speedup the experiences give (1.0 when nothing was known).
        match: The diagnosis factor of the ranking (:func:`diagnosis_match`; 1.0: no finding
            the transform relieves).
        transform: The transform object (offline), for distilling an accepted rewrite.
        site_obj: The transform's site (offline).
        rules: Ids of the failure rules in force when it was proposed (lineage).
    """

    op: Operator
    rewrite: str
    family: str
    site: str
    experiences: list[str] = field(default_factory=list)
    prior: float = 1.0
    match: float = 1.0
    transform: Any = None
    site_obj: Any = None
    rules: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"digest": self.op.digest, "rewrite": self.rewrite, "family": self.family, "site": self.site,
                "experiences": self.experiences, "prior": round(self.prior, 4), "match": round(self.match, 4),
                "rules": self.rules}


class Rewriter(Protocol):
    name: str

    def propose(self, ctx: RewriteContext, n: int) -> list[Proposal]:
        """Up to ``n`` new candidates, best first."""
        ...

    def repair(self, ctx: RewriteContext, failed: Proposal, evaluation: Evaluation) -> Proposal | None:
        """A fixed version of a proposal that failed (compile error, wrong result), or None."""
        ...


def experience_prior(name: str, family: str, hits: list[Hit]) -> tuple[float, list[str]]:
    """What the retrieved experiences say about a transform: the score-weighted expected
    log-speedup of the hits that name this transform (or, at half weight, share its family),
    as a speedup; and the ids of those hits."""
    num, ids = 0.0, []
    for h in hits:
        e = h.experience
        if e.applicability.get("rewrite") == name:
            w = h.score
        elif e.family == family:
            w = 0.5 * h.score
        else:
            continue
        num += w * math.log(max(e.speedup, 1e-9))
        ids.append(e.id)
    return math.exp(num / max(1.0, len(ids))) if ids else 1.0, ids


#: Weight of one matched diagnosis finding in :func:`diagnosis_match`.
DIAGNOSIS_WEIGHT = 0.1


def relieves_of(transform: Any) -> tuple[str, ...]:
    """The diagnosis findings a transform's optimization relieves (its ``relieves``; empty
    when it states none)."""
    own = getattr(transform, "relieves", None)
    if own is None:
        own = getattr(getattr(transform, "optimization", None), "relieves", ())
    return tuple(own or ())


def diagnosis_match(relieves: tuple[str, ...], diagnosis: Diagnosis | None) -> float:
    """``1 + DIAGNOSIS_WEIGHT * m``, ``m`` the number of the diagnosis' findings the transform
    relieves (1.0 without a diagnosis or a match).

    The weight is small on purpose: a match alone lifts a transform by 10 % per finding over
    one with the same experience prior, so it orders transforms the experiences say nothing
    about (or rate alike), while a measured prior of a few percent either way still counts."""
    findings = set(getattr(diagnosis, "findings", None) or ())
    return 1.0 + DIAGNOSIS_WEIGHT * len(findings.intersection(relieves))


class OfflineRewriter:
    """The sites of the optimizing transforms, ranked by the retrieved experiences and the
    diagnosis, built lazily.

    Ranking comes before any rewrite is built. Each transform's rank is

        rank = prior x match

    with ``prior`` the experiences' expected speedup (:func:`experience_prior`, 1.0 when no
    hit names the transform or its family) and ``match`` the diagnosis factor
    (:func:`diagnosis_match`: ``1 + 0.1 x`` the number of the current kernel's diagnosis
    findings the transform's optimization relieves, ``Optimization.relieves``). Transforms are
    tried by descending rank, ties in registry order; a transform's sites keep their source
    order. Rewrites are then built
    in that order, skipping those already tried, identical to the kernel or to an earlier
    proposal, and building stops at the ``n`` asked for. Sites come from the per-digest cache
    retrieval also reads (:mod:`ascendopt.transforms.sites`); a transform whose anchor node
    types the kernel does not contain is not asked. Without experiences (``hits`` empty, the
    ``--no-experience`` ablation) the order is the transforms' registry order and the sites'
    source order, unless the diagnosis names a finding one of them relieves.
    """

    name = "offline"

    def __init__(self, transforms: list[Any] | None = None):
        if transforms is None:
            from ascendopt.transforms import REWRITES

            transforms = [cls() for cls in REWRITES.all().values()]
        self.transforms = transforms

    def ranked(self, ctx: RewriteContext) -> Iterator[Proposal]:
        """Every proposal, best first, each built only when the iteration reaches it."""
        from ascendopt.transforms.sites import anchored, sites_of

        priors = [experience_prior(t.name, t.family, ctx.hits) for t in self.transforms]
        matches = [diagnosis_match(relieves_of(t), ctx.diagnosis) for t in self.transforms]
        order = sorted(range(len(self.transforms)), key=lambda i: (-priors[i][0] * matches[i], i))
        seen: set[str] = set()
        rule_ids = [r.id for r in ctx.rules]
        for i in order:
            t, (prior, ids), match = self.transforms[i], priors[i], matches[i]
            if blocking(ctx.rules, t.name):
                continue
            try:
                sites = sites_of(t, ctx.op) if anchored(t, ctx.op) else []
            except Exception:  # noqa: BLE001 - a matcher that cannot read this kernel finds nothing
                continue
            for s in sites:
                try:
                    cand = t.apply(ctx.op, s)
                except Exception:  # noqa: BLE001 - a rewriter that cannot edit this site proposes nothing
                    continue
                if cand.digest in ctx.tried or cand.digest == ctx.op.digest or cand.digest in seen:
                    continue
                seen.add(cand.digest)
                yield Proposal(cand, t.name, t.family, s.label, ids, prior, match, t, s, rule_ids)

    def candidates(self, ctx: RewriteContext) -> list[Proposal]:
        """Every proposal, best first (all built: for reports; Stage I uses :meth:`propose`)."""
        return list(self.ranked(ctx))

    def propose(self, ctx: RewriteContext, n: int) -> list[Proposal]:
        return list(itertools.islice(self.ranked(ctx), max(0, n)))

    def repair(self, ctx: RewriteContext, failed: Proposal, evaluation: Evaluation) -> Proposal | None:
        return None  # a transform is deterministic: the same edit fails the same way
