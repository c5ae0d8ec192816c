"""The LLM tiling mutator: the ``tiling_mutator`` role behind the ``evo`` strategy's
:class:`~ascendopt.tiling.strategies.evo_config.LLMMutator` slot.

:meth:`LLMTilingMutator.propose` asks the LLM (prompt ``ascendopt/llm/prompts/tiling_mutator.md``)
to rewrite the logic of the evolvable tiling region. The request shows the host file holding the
region, with the region as the parent config has it (the answer is a diff against it), the
recent evaluations (knobs -> latency or failure), the kernel (read-only) and the ask's number
for this region (repeated asks differ, so the response cache does not repeat an answer), fitted to the
configured token budget (:class:`~ascendopt.llm.context_budget.RoleBudget`; each fit recorded in
:attr:`LLMTilingMutator.fits`): the kernel is summarised, then the history to its last few
entries, then the host file to the tiling function alone (the region is always sent whole);
the kernel is dropped last.

The answer is parsed strictly (:func:`ascendopt.llm.answer.parse_answer`: one diff or one whole
file) and must change only the region of that host file: the text before and after the region
must come back byte-identical. The new region text is returned; a failed request or a refused
answer returns None (the strategy then asks its offline moves) and is recorded in
:attr:`failures` (a refused answer is also counted in the client's usage, ``refused``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ascendopt.llm.answer import AnswerError, parse_answer
from ascendopt.llm.context_budget import Part, RoleBudget, clip, configured_budget, kernel_values, text_part
from ascendopt.llm.errors import LLMError
from ascendopt.operator import Operator
from ascendopt.tiling.space import REGION_KEY, Config
from ascendopt.tiling.strategies.base import TrialResult
from ascendopt.tiling.template import TilingTemplate

log = logging.getLogger(__name__)

ROLE = "tiling_mutator"
#: Evaluations the summarised history keeps (the latest).
SUMMARY_ENTRIES = 5


def history_line(config: Config, result: TrialResult) -> str:
    """One evaluation: the knobs (a rewritten region is named, not shown) -> latency or failure."""
    knobs = ", ".join(f"{k}={v}" for k, v in sorted(config.items()) if k != REGION_KEY)
    if REGION_KEY in config:
        knobs += (", " if knobs else "") + "rewritten region"
    got = f"{result.latency_us:.3f} us" if result.usable else f"failed ({result.status})"
    return f"- {knobs or 'default'} -> {got}"


def region_of(template: TilingTemplate, op: Operator, asked: Operator, after: dict[str, str]) -> str:
    """The new region text of ``after``, the files an answer made from ``asked`` (``op`` with
    another region text; the template's offsets are ``op``'s).

    Raises:
        AnswerError: The answer changed another file, or the host file outside the region.
    """
    changed = sorted(k for k in set(asked.files) | set(after) if asked.files.get(k) != after.get(k))
    if changed != [template.file]:
        raise AnswerError(f"the answer must change only {template.file} (it changed {', '.join(changed) or 'nothing'})")
    old, new = op.files[template.file].encode(), after[template.file].encode()
    head, tail = old[:template.region_start], old[template.region_end:]
    if not (new.startswith(head) and new.endswith(tail) and len(new) >= len(head) + len(tail)):
        raise AnswerError("the answer changes lines outside the evolvable region")
    return new[len(head):len(new) - len(tail)].decode()


class LLMTilingMutator:
    """:class:`~ascendopt.tiling.strategies.evo_config.LLMMutator` asking the LLM (see the
    module docstring).

    Args:
        client: The LLM client (role ``tiling_mutator``).
        op: The operator whose tiling is tuned.
        template: Where its evolvable region is (:func:`ascendopt.tiling.template.find_template`).
        diagnosis_text: The diagnosis of the operator's profile, in words.
        kernel_limit: Characters of the kernel entry shown (read-only).
        history_limit: Evaluations shown (the latest).
        context_tokens: Token budget of a request (default: the client's configuration).

    Attributes:
        failures: Why each ask gave no region (for reports).
    """

    def __init__(self, client: Any, op: Operator, template: TilingTemplate, diagnosis_text: str = "",
                 kernel_limit: int = 12000, history_limit: int = 20, context_tokens: int | None = None):
        self.client, self.op, self.template, self.diagnosis_text = client, op, template, diagnosis_text
        self.kernel_limit, self.history_limit = kernel_limit, history_limit
        self.budget = RoleBudget(ROLE, configured_budget(client, context_tokens))
        self.failures: list[str] = []
        self._asked: dict[str, int] = {}

    @property
    def fits(self) -> list[dict[str, Any]]:
        """Per request: tokens, budget, what was summarised and dropped."""
        return self.budget.fits

    def prompt(self, region_text: str, history: Sequence[tuple[Config, TrialResult]],
               attempt: int = 1) -> list[dict[str, str]]:
        """The chat messages of ask ``attempt`` to rewrite ``region_text`` (the parent config's
        region)."""
        current = self.template.with_region(self.op, region_text)
        lines = [history_line(c, r) for c, r in history][-self.history_limit:]
        best = min((r.latency_us for _, r in history if r.usable), default=None)
        values = kernel_values(self.op) | {
            "latency_us": f"{best:.3f}" if best is not None else "unknown",
            "diagnosis_text": self.diagnosis_text or "(no findings)",
            "host_path": self.template.file, "attempt": attempt}
        parts = [self._host_part(current, len(region_text.encode()))]
        if lines:
            parts.append(Part("history", "history", "\n".join(lines), "summarise",
                              "\n".join([f"({len(lines) - SUMMARY_ENTRIES} earlier left out)"] * (len(lines) > SUMMARY_ENTRIES)
                                        + lines[-SUMMARY_ENTRIES:])))
        parts.append(text_part("kernel", self.op.kernel_file, values.pop("kernel"), self.kernel_limit, "drop"))
        return self.budget.messages(values, parts, {"history": "(none yet)", "kernel": "(none)", "host": "(none)"},
                                    digest=current.digest, evaluations=len(history))

    def _host_part(self, current: Operator, region_bytes: int) -> Part:
        """The host file holding the region, tier ``summarise``: whole, or the tiling function
        alone (the region inside it; a diff's context lines are near the region)."""
        t = self.template
        src = current.files[t.file].encode()
        end = t.func_end + region_bytes - (t.region_end - t.region_start)
        above, func, below = src[:t.func_start].decode(), src[t.func_start:end].decode(), src[end:].decode()
        summary = (f"// [{above.count(chr(10))} lines above the tiling function left out]\n{func}\n"
                   f"// [{below.count(chr(10))} lines below left out]")
        return Part("host", t.file, src.decode().rstrip(), "summarise", summary)

    def propose(self, region_text: str, history: Sequence[tuple[Config, TrialResult]]) -> str | None:
        """The LLM's rewrite of the region, or None (reason in :attr:`failures`)."""
        current = self.template.with_region(self.op, region_text)
        attempt = self._asked[current.digest] = self._asked.get(current.digest, 0) + 1
        try:
            comp = self.client.complete(ROLE, self.prompt(region_text, history, attempt))
        except LLMError as e:
            return self._fail(f"the request failed: {e}")
        try:
            ans = parse_answer(comp.text)
            return region_of(self.template, self.op, current, ans.apply(current.files))
        except AnswerError as e:
            self.client.refused(ROLE)
            return self._fail(f"unusable answer: {e}")

    def _fail(self, reason: str) -> None:
        log.info("llm tiling mutator: no region: %s", clip(reason, 300))
        self.failures.append(reason)
        return None


#: Share of the evo strategy's asks after its initial design that go to the LLM mutator when an
#: endpoint is configured (the rest are its offline children, immigrants and directed moves).
LLM_RATE = 0.25


def strategy_options(client: Any, op: Operator, strategy: str, diagnosis_text: str = "") -> dict[str, Any]:
    """The :func:`~ascendopt.tiling.strategies.make_strategy` options that give ``strategy`` the
    LLM mutator for ``op``: empty offline (``client`` None), for a strategy without the slot (only
    ``evo`` has one), and when the tiling function's region is not located."""
    from ascendopt.tiling.template import TemplateError, find_template

    if client is None or strategy != "evo":
        return {}
    try:
        template = find_template(op)
    except TemplateError:
        return {}
    return {"llm_mutator": LLMTilingMutator(client, op, template, diagnosis_text), "llm_rate": LLM_RATE}
