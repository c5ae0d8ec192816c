"""Token and cost accounting of LLM calls (per run, per role)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Usage:
    """What LLM calls cost.

    Tokens and cost count only requests the endpoint answered (a cache hit costs nothing
    and is counted in ``cached``).

    Attributes:
        requests: Calls answered by the endpoint.
        cached: Calls answered from the response cache.
        failed: Calls that ended in an :class:`~ascendopt.llm.errors.LLMError`.
        retries: Retried attempts (429, 5xx, timeouts, connection failures).
        prompt_tokens: Prompt tokens, from the responses' ``usage``.
        completion_tokens: Completion tokens, from the responses' ``usage``.
        cost_usd: From the configuration's price table (0 for unpriced models).
        refused: Answers the caller refused before any evaluation (unparsable, a duplicate,
            or against a failure rule); counted by :meth:`LLMClient.refused`.
        refused_by_rule: Of those, the answers refused because they break a failure rule in
            force (:mod:`ascendopt.refine.rule_check`).
    """

    requests: int = 0
    cached: int = 0
    failed: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    refused: int = 0
    refused_by_rule: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        """Adds ``other``'s counts to this one."""
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["total_tokens"] = self.total_tokens
        d["cost_usd"] = round(self.cost_usd, 6)
        return d
