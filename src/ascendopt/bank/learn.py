"""Every accepted Stage I rewrite teaches the bank, whichever rewriter made it.

:func:`learn_accepted` turns an accepted proposal into an *online* experience: slow = the kernel
it was applied to, fast = the accepted candidate, with both evaluations.

* An offline transform's proposal is distilled with the transform's own stated facts (title,
  family, mechanism, bottleneck), exactly as rewind distills a motif.
* Any other proposal (an LLM answer, a candidate read from a file) has no transform: its
  facts come from the proposal and the measurements (:class:`ProposalFacts`): the title is
  the proposal's summary, the family its stated family, the mechanism the family's
  description plus the measured change of bound and busiest pipe, the site the first changed
  line of the diff. The causal chain, evidence and expected effect come from the two profiles
  (:class:`~ascendopt.rewind.distill.OfflineDistiller`).

When an LLM is configured (the rewriter holds a client, :func:`distiller_for`) the record's
prose is rewritten by the LLM distiller (:class:`~ascendopt.rewind.llm_distiller.LLMDistiller`),
which falls back to the offline record on any failure.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from ascendopt.bank.experience import Experience
from ascendopt.bank.store import ExperienceBank
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import diagnose_evaluation
from ascendopt.transforms.families import FAMILIES

log = logging.getLogger(__name__)
_HUNK = re.compile(r"^@@ -(\d+)", re.M)
_FILE = re.compile(r"^\+\+\+ b/(\S+)", re.M)


@dataclass(frozen=True)
class ProposalFacts:
    """What the offline distiller reads from a motif, for a proposal without a transform."""

    name: str
    title: str
    family: str
    mechanism: str
    bottleneck: str
    scope: str = "kernel"


@dataclass(frozen=True)
class DiffSite:
    """Where a rewrite without a transform changed the kernel (first hunk of its diff)."""

    label: str
    file: str
    line: int


def diff_site(label: str, diff: str) -> DiffSite:
    """The first changed file and line of a unified diff, labelled ``label``."""
    f, h = _FILE.search(diff), _HUNK.search(diff)
    return DiffSite(label, f.group(1) if f else "-", int(h.group(1)) if h else 0)


def proposal_facts(proposal: Any, slow_ev: Evaluation, fast_ev: Evaluation, cores: int) -> ProposalFacts:
    """Facts of a proposal without a transform, from its family and the two diagnoses."""
    family = proposal.family if proposal.family in FAMILIES else "other"
    slow, fast = diagnose_evaluation(slow_ev, cores), diagnose_evaluation(fast_ev, cores)
    moved = (f"; measured: bound {slow.bound or '-'} -> {fast.bound or '-'}, busiest pipe "
             f"{slow.busiest or '-'} -> {fast.busiest or '-'}")
    title = " ".join(str(proposal.site or "").split())[:120] or f"{proposal.rewrite} rewrite ({family})"
    return ProposalFacts(name="", title=title[0].upper() + title[1:], family=family,
                         mechanism=FAMILIES[family][0].upper() + FAMILIES[family][1:] + moved,
                         bottleneck=slow.text or "the slow side's profile")


def online_experience(proposal: Any, parent: Operator, parent_ev: Evaluation, new_ev: Evaluation, cores: int,
                      distiller: Any = None) -> Experience:
    """The experience of an accepted proposal (see the module docstring)."""
    from ascendopt.rewind.distill import OfflineDistiller, Pair
    from ascendopt.evaluate.verdict import noise_threshold

    new = proposal.op
    if proposal.transform is not None:
        facts, site, rewrite = proposal.transform, proposal.site_obj, proposal.rewrite
    else:
        facts = proposal_facts(proposal, parent_ev, new_ev, cores)
        site, rewrite = diff_site(facts.title, new.diff(parent)), proposal.rewrite
    pair = Pair(facts, site, new, parent, new_ev, parent_ev, noise_threshold(parent_ev), cores, 1, rewrite,
                [proposal.site])
    exp = (distiller or OfflineDistiller()).distill(pair)
    exp.origin = "online"
    exp.applicability["motif"] = ""
    if proposal.transform is None:
        exp.applicability["rewriter"] = proposal.rewrite
    return exp


def distiller_for(rewriter: Any) -> Any:
    """The LLM distiller when the rewriter holds an LLM client, else None (offline)."""
    client = getattr(rewriter, "client", None)
    if client is None:
        return None
    from ascendopt.rewind.llm_distiller import LLMDistiller

    return LLMDistiller(client)


def learn_accepted(bank: ExperienceBank, proposal: Any, parent: Operator, parent_ev: Evaluation,
                   new_ev: Evaluation, cores: int, rewriter: Any = None) -> bool:
    """Adds the online experience of an accepted proposal; True when it was new (a
    near-identical one raises that one's support instead). A record the schema refuses is
    logged and skipped: the accepted kernel stands either way."""
    try:
        exp = online_experience(proposal, parent, parent_ev, new_ev, cores, distiller_for(rewriter))
        _, added = bank.add(exp)
    except ValueError as e:
        log.warning("no online experience from %s: %s", proposal.rewrite, e)
        return False
    return added
