"""Typed LLM errors: every failure of an LLM call is an :class:`LLMError` with a ``kind``."""

from __future__ import annotations

#: ``timeout``: no answer within ``timeout_s`` (after the retries); ``rate_limited``: HTTP 429
#: (after the retries); ``server_error``: HTTP 5xx or the endpoint cannot be reached (after the
#: retries); ``bad_response``: the endpoint answered, but not with a usable completion (another
#: 4xx, no choices, no text); ``not_configured``: no endpoint/model/key, or the key was refused.
KINDS = ("timeout", "rate_limited", "server_error", "bad_response", "not_configured")

#: Kinds worth retrying (transient).
RETRYABLE = ("timeout", "rate_limited", "server_error")


class LLMError(RuntimeError):
    """An LLM call failed.

    Attributes:
        kind: One of :data:`KINDS`.
        status: The HTTP status when there was one, else None.
    """

    def __init__(self, kind: str, message: str, status: int | None = None):
        if kind not in KINDS:
            raise ValueError(f"unknown LLMError kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.status = status

    def __str__(self) -> str:
        return f"{self.kind}: {super().__str__()}"
