"""The LLM-guided Stage I rewriter.

:class:`LLMRewriter` implements :class:`ascendopt.refine.rewriter.Rewriter`: it asks the
``refiner`` role (prompt ``ascendopt/llm/prompts/refiner.md``) with the kernel source, its
other op_kernel files, the host tiling files, the diagnosis (text and numbers), the retrieved
experiences (title, family, mechanism, measured effect, diff) and the bank's failure rules in
force, fitted to the configured token budget (:mod:`ascendopt.llm.context_budget`: kernel,
diagnosis and rules always whole; host files and the best experience summarised; headers and
the other experiences summarised, then dropped); the answer must be one whole file or one
unified diff, parsed strictly by :mod:`ascendopt.llm.answer`. An answer that breaks a failure
rule in force (its stated family is forbidden, or it makes the edit of an offline transform a
rule forbids: :mod:`ascendopt.refine.rule_check`) is refused before it costs an evaluation. A
refused answer or a failed request makes no proposal and is recorded in
:attr:`LLMRewriter.rejections` with the reason (and, for a rule, the rule ids); every refused
answer is counted in the client's usage (``refused``; ``refused_by_rule`` for a rule).

``repair`` sends the failed candidate (its kernel and its diff against the parent) with the
compile error or wrong-result text back; the caller decides how many repairs to allow and
charges each repaired candidate's evaluation to the budget.

Every request for the same kernel carries the next attempt number (counted per kernel digest
by this rewriter), so repeated asks differ and are not answered by the response cache with
the same answer; a resumed run (a new rewriter) repeats the numbers from 1, and those
requests are answered from the cache for free (their candidates are then in ``ctx.tried``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Mapping

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.llm.answer import AnswerError, parse_answer
from ascendopt.bank.rules import rules_text
from ascendopt.llm.client import LLMClient
from ascendopt.llm.context_budget import (Part, RoleBudget, clip, configured_budget, header_parts, host_parts, kernel_values,
                                          text_part)
from ascendopt.llm.errors import LLMError
from ascendopt.operator import Operator, OperatorError
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.rewriter import Proposal, RewriteContext, experience_prior
from ascendopt.refine.rule_check import broken_rules


log = logging.getLogger(__name__)

ROLE = "refiner"
ORIGIN = "stage1/llm"
#: The text of each part group of the refiner's proposal prompt that has no part.
EMPTY = {"host": "(none)", "experiences": "(none retrieved)", "kernel_headers": "(none)"}


@dataclass
class Rejection:
    """An attempt that produced no proposal.

    Attributes:
        stage: ``propose`` or ``repair``.
        attempt: The attempt number sent in the prompt.
        reason: Why (the LLMError, or why the answer was refused).
        answer: The start of the answer (empty when there was none).
        rules: Ids of the failure rules the answer breaks (lineage: the rules that refused
            it; empty when it was refused for another reason).
    """

    stage: str
    attempt: int
    reason: str
    answer: str = ""
    rules: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "attempt": self.attempt, "reason": self.reason, "answer": self.answer,
                "rules": self.rules}


def format_diagnosis_numbers(d: Diagnosis) -> str:
    """The diagnosis's numbers, one per line."""
    rows = [f"- bound: {d.bound or '-'}; busiest work pipe: {d.busiest or '-'}"]
    if d.pipe_ratios:
        rows.append("- pipe busy ratios: " + ", ".join(f"{p} {r:.2f}" for p, r in sorted(d.pipe_ratios.items())))
    if d.overlap is not None:
        rows.append(f"- overlap (sum of work-pipe busy ratios): {d.overlap:.2f}")
    if d.roofline_share is not None:
        rows.append(f"- roofline share: {d.roofline_share:.2f}")
    rows.append(f"- blocks: {d.block_dim} of {d.cores or '?'} cores")
    if d.bytes_per_transfer is not None:
        rows.append(f"- GM bytes per DMA instruction: {d.bytes_per_transfer:.0f}")
    rows.append(f"- scalar share: {d.scalar_share:.2f}")
    if d.top_instructions:
        rows.append("- top instructions: " + ", ".join(d.top_instructions))
    if d.findings:
        rows.append("- findings: " + ", ".join(d.findings))
    return "\n".join(rows)


def experience_parts(hits: list[Any], diff_limit: int) -> list[Part]:
    """One context part per experience: title, family, mechanism, expected effect, diff; the
    best hit is tier ``summarise``, the others ``drop`` (summary: without the diff)."""
    out = []
    for i, h in enumerate(hits, 1):
        e = h.experience
        eff = {key: e.expected_effect[key] for key in ("speedup", "slow_us", "fast_us") if key in e.expected_effect}
        head = (f"#### {i}. {e.title} (family {e.family}; id {e.id})\n- mechanism: {e.mechanism}\n"
                f"- expected effect: {json.dumps(eff)}")
        full = (f"{head}\n- reusable when: {e.reusable_when}\n"
                f"- diff (slow -> fast):\n```diff\n{clip(e.diff, diff_limit).rstrip()}\n```")
        out.append(Part("experiences", e.id, full, "summarise" if i == 1 else "drop", head))
    return out


class LLMRewriter:
    """Stage I rewriter that asks an LLM (see the module docstring).

    Args:
        client: The LLM client (role ``refiner``).
        experiences: How many retrieved experiences go into the prompt.
        host_limit: Characters per host file in the prompt.
        diff_limit: Characters per experience diff in the prompt.
        error_limit: Characters of the failure text in a repair prompt.
        context_tokens: Token budget of a proposal's context (default: the client's
            configuration, ``context_tokens``); see :mod:`ascendopt.llm.context_budget`.
    """

    name = "llm"

    def __init__(self, client: LLMClient, experiences: int = 3, host_limit: int = 12000, diff_limit: int = 3000,
                 error_limit: int = 4000, context_tokens: int | None = None):
        self.client = client
        self.budget = RoleBudget(ROLE, configured_budget(client, context_tokens))
        self.k, self.host_limit, self.diff_limit, self.error_limit = experiences, host_limit, diff_limit, error_limit
        self.rejections: list[Rejection] = []
        self._asked: dict[str, int] = {}

    def _next_attempt(self, op: Operator) -> int:
        self._asked[op.digest] = self._asked.get(op.digest, 0) + 1
        return self._asked[op.digest]

    @property
    def fits(self) -> list[dict[str, Any]]:
        """Per request: tokens, budget, what was summarised and dropped (see
        :class:`~ascendopt.llm.context_budget.RoleBudget`)."""
        return self.budget.fits

    @property
    def context_tokens(self) -> int:
        return self.budget.budget

    def _values(self, op: Operator) -> dict[str, Any]:
        return kernel_values(op)

    def prompt(self, ctx: RewriteContext, attempt: int) -> list[dict[str, str]]:
        """The chat messages of one proposal attempt, its context fitted to the token budget
        (what was summarised or dropped is appended to :attr:`fits`)."""
        lat = ctx.evaluation.latency_us
        v = self._values(ctx.op) | {
            "latency_us": f"{lat:.3f}" if lat is not None else "unknown",
            "diagnosis_text": ctx.diagnosis.text or "(no findings)",
            "diagnosis_numbers": format_diagnosis_numbers(ctx.diagnosis),
            "rules": rules_text(ctx.rules), "attempt": attempt,
        }
        parts = (header_parts(ctx.op, self.host_limit) + experience_parts(ctx.hits[: self.k], self.diff_limit)
                 + host_parts(ctx.op, self.host_limit))
        return self.budget.messages(v, parts, EMPTY, attempt=attempt, digest=ctx.op.digest)

    def repair_prompt(self, ctx: RewriteContext, failed: Proposal, evaluation: Evaluation,
                      attempt: int = 1) -> list[dict[str, str]]:
        """The chat messages asking to fix ``failed``, fitted to the token budget: the failed
        kernel and the error always whole, the host files and then the diff summarised."""
        v = self._values(failed.op) | {"attempt": attempt,
            "status": evaluation.status, "error": clip(evaluation.error or "(no error text)", self.error_limit)}
        diff = failed.op.diff(ctx.op)
        parts = ([text_part("failed_diff", "failed diff", diff, 4 * self.diff_limit)] if diff.strip() else []) \
            + host_parts(failed.op, self.host_limit)
        return self.budget.messages(v, parts, {"host": "(none)", "failed_diff": "(no change)"}, section="repair",
                                    attempt=attempt, digest=failed.op.digest)

    def _ask(self, stage: str, attempt: int, msgs: list[dict[str, str]], base: Operator, ctx: RewriteContext,
             seen: set[str]) -> tuple[Proposal | None, bool]:
        """One request -> (proposal or None, whether to keep asking)."""
        try:
            comp = self.client.complete(ROLE, msgs)
        except LLMError as e:
            self._reject(stage, attempt, str(e))
            return None, False  # the endpoint is failing: more requests now would fail too
        try:
            ans = parse_answer(comp.text)
            files = ans.apply(base.files)
            op = Operator.from_files(ctx.op.name, files, ctx.op.root, parent=ctx.op.digest, origin=ORIGIN)
        except (AnswerError, OperatorError) as e:
            self._reject(stage, attempt, str(e), comp.text)
            return None, True
        if op.digest == ctx.op.digest or op.digest in ctx.tried or op.digest in seen:
            self._reject(stage, attempt, "duplicate of a candidate already proposed or evaluated", comp.text)
            return None, True
        seen.add(op.digest)
        broken = broken_rules(ctx.rules, ctx.op, op, ans.family)
        if broken:
            self._reject(stage, attempt, "breaks the failure rule(s) in force: " + " ".join(r.text() for r in broken),
                         comp.text, [r.id for r in broken])
            return None, True
        prior, ids = experience_prior(self.name, ans.family, ctx.hits[: self.k])
        site = ans.summary or f"llm answer ({ans.kind} of {ans.path or 'the sources'})"
        return Proposal(op, "llm", ans.family, site, ids, prior, rules=[r.id for r in ctx.rules]), True

    def _reject(self, stage: str, attempt: int, reason: str, answer: str = "", rules: list[str] | None = None) -> None:
        """Records an attempt without a proposal; an answer refused before evaluation is also
        counted in the client's usage (``refused``, ``refused_by_rule``)."""
        log.info("llm rewriter: %s attempt %d gave no proposal: %s", stage, attempt, reason)
        self.rejections.append(Rejection(stage, attempt, reason, answer[:500], list(rules or [])))
        if answer and hasattr(self.client, "refused"):
            self.client.refused(ROLE, by_rule=bool(rules))

    @property
    def rule_refusals(self) -> list[Rejection]:
        """The answers refused because they break a failure rule in force."""
        return [r for r in self.rejections if r.rules]

    def propose(self, ctx: RewriteContext, n: int) -> list[Proposal]:
        """Up to ``n`` proposals, one request each; stops at the first failed request. Never
        raises for a bad answer or a failing endpoint."""
        out: list[Proposal] = []
        seen: set[str] = set()
        for _ in range(n):
            attempt = self._next_attempt(ctx.op)
            p, go_on = self._ask("propose", attempt, self.prompt(ctx, attempt), ctx.op, ctx, seen)
            if p is not None:
                out.append(p)
            if not go_on:
                break
        return out

    def repair(self, ctx: RewriteContext, failed: Proposal, evaluation: Evaluation) -> Proposal | None:
        """A fixed version of ``failed`` (its answer applies to the failed candidate's files;
        the result's parent is ``ctx.op``), or None (reason in :attr:`rejections`)."""
        attempt = self._next_attempt(failed.op)
        try:
            msgs = self.repair_prompt(ctx, failed, evaluation, attempt)
        except OperatorError as e:  # the failed candidate lost its kernel entry: nothing to show
            self._reject("repair", attempt, str(e))
            return None
        p, _ = self._ask("repair", attempt, msgs, failed.op, ctx, set())
        if p is None:
            return None
        if p.family == "other":
            p.family = failed.family
        p.experiences = list(failed.experiences)
        p.site = f"repair: {p.site}"
        return p

    @property
    def usage(self) -> Mapping[str, Any]:
        """The client's usage (for reports)."""
        return self.client.usage.to_dict()
