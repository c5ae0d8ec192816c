"""The LLM rewinder: a motif whose rewrites are proposed by the ``rewinder`` LLM role.

:class:`LLMRewinder` has the :class:`~ascendopt.transforms.base.Motif` interface, so the
rewind engine tries it like any motif (it is not in the built-in registry: it needs a client).

* :meth:`LLMRewinder.find` returns ``attempts`` sites (``llm proposal 1..n``), one per request;
  the engine's tiers make proposal ``i`` take its turn with the other motifs' ``i``-th sites.
* :meth:`LLMRewinder.apply` asks the LLM (prompt ``ascendopt/llm/prompts/rewinder.md``: the
  kernel, its other op_kernel files, the host tiling files, the families, the optimizations
  already removed in this chain and the proposal number, so repeated asks differ and a
  resumed run is answered from the response cache; the context fitted to the configured
  token budget like the refiner's, :mod:`ascendopt.llm.context_budget`, and each fit recorded
  in :attr:`LLMRewinder.fits`) to remove ONE optimization. The answer is parsed strictly by
  :func:`ascendopt.llm.answer.parse_answer` (one whole file with its path, or one unified diff)
  and becomes the candidate (origin ``rewind/llm_rewind``, parent the asked operator). A failed
  request or an unusable answer raises :class:`MotifError` with the reason: the engine records
  a failed attempt and charges no evaluation. After a failed request the remaining proposals
  for the same operator are refused without asking (the endpoint is failing now).
* :meth:`LLMRewinder.explain` returns, per candidate, an :class:`LLMProposal`: the family the
  answer's first line names (``other`` when none), and the title, mechanism and bottleneck its
  optional ``title:``/``mechanism:``/``bottleneck:`` lines state (defaults: the summary, the
  family's description, "not stated"), with a site naming the first changed line. The engine
  records and distills that, so experiences carry the LLM's stated family.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from ascendopt.llm.answer import Answer, AnswerError, parse_answer
from ascendopt.llm.client import LLMClient
from ascendopt.llm.errors import LLMError
from ascendopt.llm.context_budget import SOURCE_EMPTY, RoleBudget, configured_budget, kernel_values, source_parts
from ascendopt.operator import Operator, OperatorError
from ascendopt.transforms import MOTIFS
from ascendopt.transforms.base import Edit, Motif, MotifError, Site
from ascendopt.transforms.families import FAMILIES


log = logging.getLogger(__name__)

NAME = "llm_rewind"
ROLE = "rewinder"
#: Longest stated title / mechanism / bottleneck kept (characters).
MAX_STATED_CHARS = 500
_STATED = re.compile(r"^\W*(title|mechanism|bottleneck)\s*:\s*(.+?)\s*$", re.I)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def stated_facts(text: str) -> dict[str, str]:
    """The ``title:``, ``mechanism:`` and ``bottleneck:`` lines before the answer's code block
    (first of each wins; whitespace collapsed; cut to :data:`MAX_STATED_CHARS`)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if _FENCE.match(line):
            break
        m = _STATED.match(line)
        if m and m.group(1).lower() not in out:
            out[m.group(1).lower()] = " ".join(m.group(2).split())[:MAX_STATED_CHARS]
    return out


class LLMProposal(Motif):
    """What one accepted answer states about its removal (see the module docstring).

    A description, not a transform: it has no sites, and :meth:`edits` refuses. ``summary``
    is the answer's first line without its ``family:`` prefix; ``model`` the model that
    answered; ``attempt`` the proposal number.
    """

    name = NAME

    def __init__(self, family: str, title: str, mechanism: str, bottleneck: str, scope: str = "kernel",
                 summary: str = "", model: str = "", attempt: int = 0):
        # instance values shadow the class-level facts the engine and the distiller read
        self.family, self.title = family, title  # type: ignore[misc]
        self.mechanism, self.bottleneck, self.scope = mechanism, bottleneck, scope  # type: ignore[misc]
        self.summary, self.model, self.attempt = summary, model, attempt

    def find(self, op: Operator) -> list[Site]:
        return []

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        raise MotifError("an LLM proposal is a description; the LLM rewinder made its candidate")


@dataclass
class Failure:
    """A proposal that gave no candidate: its number, the reason, the start of the answer."""

    attempt: int
    reason: str
    answer: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "reason": self.reason, "answer": self.answer}


def _first_change(old: Operator, new: Operator) -> tuple[str, int]:
    """(file, 1-based line in ``old``) of the first difference, kernel files first."""
    changed = sorted((k for k in set(old.files) | set(new.files) if old.files.get(k) != new.files.get(k)),
                     key=lambda k: (not k.startswith("op_kernel/"), k))
    if not changed:
        return old.kernel_file, 1
    rel = changed[0]
    a, b = old.files.get(rel, "").splitlines(), new.files.get(rel, "").splitlines()
    line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return rel, line + 1


class LLMRewinder(Motif):
    """Motif whose removals an LLM proposes (see the module docstring).

    Args:
        client: The LLM client (role ``rewinder``).
        attempts: Proposals (requests) per operator, at least 1.
        host_limit: Characters per host file (and other op_kernel file) in the prompt.
        context_tokens: Token budget of a request's context (default: the client's
            configuration); see :mod:`ascendopt.llm.context_budget`.

    Attributes:
        failures: Proposals that gave no candidate, with the reason (for reports).
    """

    name = NAME
    family = "other"
    title = "LLM-proposed removal"
    mechanism = "stated per proposal by the LLM"
    bottleneck = "stated per proposal by the LLM"

    def __init__(self, client: LLMClient, attempts: int = 3, host_limit: int = 12000,
                 context_tokens: int | None = None):
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.client, self.attempts, self.host_limit = client, attempts, host_limit
        self.budget = RoleBudget(ROLE, configured_budget(client, context_tokens))
        self.failures: list[Failure] = []
        self._proposals: dict[str, tuple[LLMProposal, Site]] = {}  # candidate digest -> description
        self._lineage: dict[str, tuple[str | None, str]] = {}  # digest -> (parent, origin), ops seen
        self._down: dict[str, str] = {}  # digest -> why its request failed

    # ------------------------------------------------------------------ Motif interface
    def find(self, op: Operator) -> list[Site]:
        """``attempts`` sites on the kernel entry file, ``llm proposal 1..n`` (detail: the number)."""
        self._lineage.setdefault(op.digest, (op.parent, op.origin))
        k = op.kernel_file
        return [Site(self.name, k, 1, f"llm proposal {i}", 0, 0, str(i)) for i in range(1, self.attempts + 1)]

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        raise MotifError("the LLM rewinder answers with whole files or diffs; use apply()")

    def apply(self, op: Operator, site: Site) -> Operator:
        """The LLM's removal of one optimization from ``op`` (origin ``rewind/llm_rewind``,
        parent ``op``).

        Raises:
            MotifError: Not this motif's site, the request failed (or failed earlier for
                ``op``), or the answer is unusable (not one whole file / one diff, does not
                apply, breaks the operator layout, or changes nothing); the message says which.
        """
        if site.motif != self.name:
            raise MotifError(f"{self.name}: site {site.label!r} belongs to {site.motif}")
        attempt = int(site.detail) if site.detail.isdigit() else 1
        self._lineage.setdefault(op.digest, (op.parent, op.origin))
        if op.digest in self._down:
            raise self._fail(attempt, f"not asked: an earlier request for this kernel failed ({self._down[op.digest]})")
        try:
            comp = self.client.complete(ROLE, self.prompt(op, attempt))
        except LLMError as e:
            self._down[op.digest] = str(e)
            raise self._fail(attempt, f"the request failed: {e}") from e
        try:
            ans = parse_answer(comp.text)
            cand = Operator.from_files(op.name, ans.apply(op.files), op.root, parent=op.digest, origin=self.origin)
            cand.op_type, cand.kernel_file  # the layout must survive (else no evaluation is spent)
        except (AnswerError, OperatorError) as e:
            raise self._fail(attempt, f"unusable answer: {e}", comp.text) from e
        if cand.digest == op.digest:
            raise self._fail(attempt, "unusable answer: it changes nothing", comp.text)
        self._proposals[cand.digest] = self._describe(op, cand, ans, comp.text, comp.model, attempt)
        return cand

    def explain(self, cand: Operator, site: Site) -> tuple[Motif, Site]:
        """The :class:`LLMProposal` and named site of ``cand`` (a candidate :meth:`apply` made);
        this rewinder and ``site`` for anything else."""
        return self._proposals.get(cand.digest, (self, site))

    # ------------------------------------------------------------------ prompt and chain
    def removed(self, op: Operator) -> list[str]:
        """The removals that led from the rewind's original to ``op``, oldest first, as far as
        this rewinder saw the chain (operators passed to :meth:`find`/:meth:`apply`)."""
        out: list[str] = []
        digest, parent, origin = op.digest, op.parent, op.origin
        seen: set[str] = set()
        while origin.startswith("rewind/") and digest not in seen:
            seen.add(digest)
            out.append(self._removal(digest, origin))
            if parent is None or parent not in self._lineage:
                break
            digest, (parent, origin) = parent, self._lineage[parent]
        return out[::-1]

    def _removal(self, digest: str, origin: str) -> str:
        name = origin.split("/", 1)[1]
        if digest in self._proposals:
            p = self._proposals[digest][0]
            return f"{p.title} (family {p.family})"
        cls = MOTIFS.all().get(name)
        return f"{cls.title} (family {cls.family})" if cls is not None else name

    def prompt(self, op: Operator, attempt: int) -> list[dict[str, str]]:
        """The chat messages of proposal ``attempt`` for ``op``, fitted to the token budget as
        the refiner's (the kernel entry and the removals always whole, the host files
        summarised, then the other op_kernel files summarised and dropped; recorded in
        :attr:`fits`)."""
        removed = self.removed(op)
        values = kernel_values(op) | {"removed": "; ".join(removed) if removed else "none", "attempt": attempt}
        return self.budget.messages(values, source_parts(op, self.host_limit), SOURCE_EMPTY,
                                    attempt=attempt, digest=op.digest)

    @property
    def fits(self) -> list[dict[str, Any]]:
        """Per request: tokens, budget, what was summarised and dropped."""
        return self.budget.fits

    # ------------------------------------------------------------------ helpers
    def _describe(self, op: Operator, cand: Operator, ans: Answer, text: str, model: str,
                  attempt: int) -> tuple[LLMProposal, Site]:
        stated = stated_facts(text)
        summary = ans.summary or f"{ans.kind} of {ans.path or 'the sources'}"
        changed = [k for k in set(op.files) | set(cand.files) if op.files.get(k) != cand.files.get(k)]
        scope = "host" if changed and all(k.startswith("op_host/") for k in changed) else "kernel"
        title = stated.get("title") or summary[:1].upper() + summary[1:]
        mechanism = stated.get("mechanism") or (FAMILIES[ans.family] if ans.family != "other"
                                                else f"not stated by the LLM; it removed: {summary}")
        bottleneck = stated.get("bottleneck") or "not stated by the LLM (see the measured profiles)"
        rel, line = _first_change(op, cand)
        site = Site(self.name, rel, line, f"llm proposal {attempt}: {summary}"[:200], 0, 0, str(attempt))
        return LLMProposal(ans.family, title, mechanism, bottleneck, scope, summary, model, attempt), site

    def _fail(self, attempt: int, reason: str, answer: str = "") -> MotifError:
        log.info("llm rewinder: proposal %d gave no candidate: %s", attempt, reason)
        self.failures.append(Failure(attempt, reason, answer[:500]))
        return MotifError(reason)
