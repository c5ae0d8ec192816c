"""The LLM distiller: the offline record with its prose rewritten by the ``distiller`` role.

:meth:`LLMDistiller.distill` first runs :class:`~ascendopt.rewind.distill.OfflineDistiller`
(every field from the motif, the two profiles and the diff), then asks the LLM (prompt
``ascendopt/llm/prompts/distiller.md``, fitted to the configured token budget: the diff is
summarised, then dropped, when the request would not fit) to rewrite only the prose fields
(:data:`PROSE_FIELDS`) and answer with a JSON object. The answer is accepted only if it is
one JSON object (bare, or in a single ```` ```json ```` block) whose keys are prose fields with
non-empty string values, and the merged record passes
:func:`ascendopt.bank.experience.validate`. On any failure (no client, a failed request, a
refused answer) the offline record is returned unchanged and the reason is recorded in
:attr:`LLMDistiller.fallbacks`. Measurements, family, applicability, evidence and the diff
are never taken from the LLM; a rewritten record says so in ``source["prose"]``.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from ascendopt.bank.experience import Experience, validate
from ascendopt.llm.client import LLMClient
from ascendopt.llm.errors import LLMError
from ascendopt.llm.context_budget import RoleBudget, configured_budget, text_part
from ascendopt.rewind.distill import OfflineDistiller, Pair

log = logging.getLogger(__name__)

ROLE = "distiller"
PROSE_FIELDS = ("title", "mechanism", "causal_chain", "bottleneck", "reusable_when", "avoid_when")
#: Longest prose value accepted (characters).
MAX_FIELD_CHARS = 2000
_JSON_BLOCK = re.compile(r"^```(?:json)?[ \t]*\n(.*?)\n```[ \t]*$", re.S | re.M)


class DistillAnswerError(ValueError):
    """The answer is not an acceptable prose rewrite (message = the reason)."""


def parse_prose(text: str) -> dict[str, str]:
    """The prose fields of an answer.

    Raises:
        DistillAnswerError: Not one JSON object, an unknown key, or an empty / non-string /
            too long value.
    """
    s = text.strip()
    if s.startswith("```"):
        blocks = _JSON_BLOCK.findall(s)
        if len(blocks) != 1 or _JSON_BLOCK.sub("", s).strip():
            raise DistillAnswerError("expected exactly one ```json block and nothing else")
        s = blocks[0]
    try:
        d = json.loads(s)
    except json.JSONDecodeError as e:
        raise DistillAnswerError(f"not JSON: {e}") from e
    if not isinstance(d, dict) or not d:
        raise DistillAnswerError("expected a non-empty JSON object")
    unknown = sorted(set(d) - set(PROSE_FIELDS))
    if unknown:
        raise DistillAnswerError(f"fields other than the prose fields: {', '.join(unknown)}")
    for k, v in d.items():
        if not isinstance(v, str) or not v.strip():
            raise DistillAnswerError(f"field {k} must be a non-empty string")
        if len(v) > MAX_FIELD_CHARS:
            raise DistillAnswerError(f"field {k} is longer than {MAX_FIELD_CHARS} characters")
    return {k: " ".join(v.split()) for k, v in d.items()}


class LLMDistiller:
    """Offline distillation, then an LLM rewrite of the prose (see the module docstring).

    Args:
        client: The LLM client (role ``distiller``); None always falls back.
        offline: The distiller whose record is the base and the fallback.
        diff_limit: Characters of the diff put in the prompt.
        context_tokens: Token budget of a request (default: the client's configuration); see
            :mod:`ascendopt.llm.context_budget`.
    """

    def __init__(self, client: LLMClient | None, offline: OfflineDistiller | None = None, diff_limit: int = 6000,
                 context_tokens: int | None = None):
        self.client = client
        self.offline = offline or OfflineDistiller()
        self.diff_limit = diff_limit
        self.budget = RoleBudget(ROLE, configured_budget(client, context_tokens))
        self.fallbacks: list[str] = []

    @property
    def fits(self) -> list[dict[str, Any]]:
        """Per request: tokens, budget, whether the diff was summarised or dropped."""
        return self.budget.fits

    def prompt(self, base: Experience) -> list[dict[str, str]]:
        """The chat messages asking to rewrite ``base``'s prose, fitted to the token budget:
        the measurements, the prose and both diagnoses always whole; the diff (clipped to
        ``diff_limit`` characters) summarised to a tenth, then dropped (recorded in :attr:`fits`)."""
        eff = base.expected_effect
        ev = base.evidence or {}
        values: dict[str, Any] = {
            "family": base.family, "speedup": eff.get("speedup"), "slow_us": eff.get("slow_us"),
            "fast_us": eff.get("fast_us"), "tau_us": eff.get("tau_us"),
            "prose": json.dumps({k: getattr(base, k) for k in PROSE_FIELDS}, indent=2, ensure_ascii=False),
            "slow_text": (ev.get("slow") or {}).get("text") or "-", "fast_text": (ev.get("fast") or {}).get("text") or "-",
        }
        parts = [text_part("diff", "diff", base.diff, self.diff_limit, "drop")] if base.diff.strip() else []
        return self.budget.messages(values, parts, {"diff": "(no diff)"}, experience=base.id)

    def distill(self, pair: Pair) -> Experience:
        """The experience of ``pair``: the offline record, its prose rewritten when the LLM's
        answer is acceptable. Never raises for an LLM failure (the offline distiller's own
        errors propagate)."""
        base = self.offline.distill(pair)
        if self.client is None:
            return base
        try:
            comp = self.client.complete(ROLE, self.prompt(base))
            prose = parse_prose(comp.text)
            d = base.to_dict()
            d.pop("id", None)
            d.update(prose)
            d["source"] = dict(d.get("source") or {}) | {"prose": f"llm:{comp.model}"}
            validate(d)
            return Experience.from_dict(d)
        except (LLMError, DistillAnswerError, ValueError) as e:
            reason = f"{type(e).__name__}: {e}"
            log.info("llm distiller: falling back to the offline record: %s", reason)
            self.fallbacks.append(reason)
            return base
