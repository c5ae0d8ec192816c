"""The one LLM client every role uses (OpenAI-compatible chat completions, ``openai`` package).

:class:`LLMClient` adds to the ``openai`` client what the roles need and nothing else:

* **Retries** after HTTP 429, 408, 5xx, connection failures and timeouts, with exponential
  backoff (``backoff_s * 2**attempt``, capped at ``backoff_max_s``; a ``Retry-After`` header
  wins, capped too). The ``openai`` client's own retries are off; ``sleep`` is injectable.
* **Caching** of responses by :func:`ascendopt.llm.cache.request_key` in a
  :class:`~ascendopt.llm.cache.ResponseCache` (the record database's ``llm_cache`` table by
  :func:`open_client`).
* **Accounting**: :attr:`LLMClient.usage` (whole run) and :attr:`LLMClient.usage_by_role`.
* **Typed errors**: every failure is an :class:`~ascendopt.llm.errors.LLMError`.

Thread-safe: several threads may call :meth:`LLMClient.complete` at once.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ascendopt.llm.cache import MemoryCache, ResponseCache, SQLiteCache, request_key
from ascendopt.llm.config import ROLES, LLMConfig, load_config
from ascendopt.llm.errors import RETRYABLE, LLMError
from ascendopt.llm.usage import Usage


@dataclass
class Completion:
    """One answer.

    Attributes:
        text: The message content.
        model: The model that was asked.
        prompt_tokens, completion_tokens: From the response's ``usage`` (0 when absent).
        finish_reason: ``stop``, ``length``, ... (empty when absent).
        cached: True when answered from the cache.
    """

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""
    cached: bool = False

    def to_cache(self) -> dict[str, Any]:
        return {"text": self.text, "model": self.model, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "finish_reason": self.finish_reason}


@dataclass
class CheckResult:
    """Whether the endpoint answers. ``via`` is ``models`` or ``completion``."""

    ok: bool
    message: str
    base_url: str
    model: str
    via: str = ""
    seconds: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "message": self.message, "base_url": self.base_url, "model": self.model,
                "via": self.via, "seconds": round(self.seconds, 3), **self.detail}


def classify(exc: BaseException) -> LLMError:
    """Maps an ``openai`` exception to an :class:`LLMError` (kind and HTTP status)."""
    import openai

    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return LLMError("timeout", "no answer within the timeout")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError("server_error", f"cannot reach the endpoint: {exc.__cause__ or exc}")
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        msg = f"HTTP {code}: {_short(exc.message)}"
        if code == 429:
            return LLMError("rate_limited", msg, code)
        if code == 408:
            return LLMError("timeout", msg, code)
        if code >= 500:
            return LLMError("server_error", msg, code)
        if code in (401, 403):
            return LLMError("not_configured", f"the endpoint refused the API key ({msg})", code)
        return LLMError("bad_response", msg, code)
    return LLMError("bad_response", f"{type(exc).__name__}: {_short(str(exc))}")


def _short(s: str, n: int = 300) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def _retry_after(exc: BaseException) -> float | None:
    resp = getattr(exc, "response", None)
    try:
        return float(resp.headers.get("retry-after")) if resp is not None else None
    except (TypeError, ValueError):
        return None


class LLMClient:
    """Chat completions for the LLM roles.

    Args:
        config: The configuration; :meth:`LLMConfig.require` must pass for the role asked.
        cache: Response cache (None: no caching, also when ``config.cache`` is False).
        sleep: Called with the backoff delay in seconds (tests pass a recorder).
        openai_client: An ``openai.OpenAI`` to use instead of making one (tests).
    """

    def __init__(self, config: LLMConfig, cache: ResponseCache | None = None,
                 sleep: Callable[[float], None] = time.sleep, openai_client: Any = None):
        self.config = config
        self.cache = cache if config.cache else None
        self.sleep = sleep
        self._oa = openai_client
        self._lock = threading.Lock()
        self.usage = Usage()
        self.usage_by_role: dict[str, Usage] = {}

    def _openai(self) -> Any:
        if self._oa is None:
            import openai

            self.config.require()
            self._oa = openai.OpenAI(api_key=self.config.api_key, base_url=self.config.base_url,
                                     timeout=self.config.timeout_s, max_retries=0)
        return self._oa

    def _count(self, role: str, **inc: float) -> None:
        with self._lock:
            for u in (self.usage, self.usage_by_role.setdefault(role, Usage())):
                for k, v in inc.items():
                    setattr(u, k, getattr(u, k) + v)

    def refused(self, role: str, by_rule: bool = False) -> None:
        """Counts an answer of ``role`` that its caller refused before evaluating it
        (``by_rule``: because it breaks a failure rule), in :attr:`usage` and the role's."""
        self._count(role, refused=1, refused_by_rule=int(by_rule))

    def _call(self, role: str, fn: Callable[[], Any], retries: int) -> Any:
        """``fn()`` with retries on transient failures; raises the last LLMError."""
        attempt = 0
        while True:
            try:
                return fn()
            except Exception as exc:  # noqa: BLE001 - every failure becomes a typed LLMError
                err = classify(exc)
                if err.kind not in RETRYABLE or attempt >= retries:
                    if attempt:
                        err.args = (f"{err.args[0]} (after {attempt} retr{'y' if attempt == 1 else 'ies'})",)
                    raise err from exc
                delay = min(self.config.backoff_max_s, self.config.backoff_s * 2 ** attempt)
                ra = _retry_after(exc)
                if ra is not None:
                    delay = min(self.config.backoff_max_s, max(0.0, ra))
                self._count(role, retries=1)
                self.sleep(delay)
                attempt += 1

    def embed(self, texts: list[str], model: str) -> list[list[float]]:
        """Embedding vectors of ``texts`` from the endpoint's ``/embeddings`` (OpenAI-compatible),
        with the same retries as :meth:`complete`; not cached (callers keep what they reuse).

        Raises:
            LLMError: Any failure (after the retries for transient ones).
        """
        resp = self._call("embeddings", lambda: self._openai().embeddings.create(model=model, input=texts),
                          self.config.max_retries)
        data = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise LLMError("bad_response", f"{len(data)} embeddings for {len(texts)} texts")
        self._count("embeddings", requests=1)
        return [list(map(float, d.embedding)) for d in data]

    def complete(self, role: str, messages: list[dict[str, str]], *, temperature: float | None = None,
                 max_tokens: int | None = None, use_cache: bool = True) -> Completion:
        """Asks the role's model.

        Args:
            role: One of :data:`ascendopt.llm.config.ROLES` (chooses the model, books the usage).
            messages: Chat messages (``{"role": "system"|"user"|"assistant", "content": ...}``).
            temperature, max_tokens: Override the configuration's.
            use_cache: Read and write the response cache.

        Returns:
            The completion (``cached`` True when it came from the cache).

        Raises:
            LLMError: Any failure (after the retries for transient ones).
        """
        if role not in ROLES:
            raise ValueError(f"unknown LLM role {role!r}; roles: {', '.join(ROLES)}")
        cfg = self.config
        try:
            cfg.require(role)
        except LLMError:
            self._count(role, failed=1)
            raise
        model = cfg.model_for(role)
        temp = cfg.temperature if temperature is None else temperature
        mtok = cfg.max_tokens if max_tokens is None else max_tokens
        key = request_key(model, messages, temp, mtok)
        if self.cache is not None and use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                self._count(role, cached=1)
                return Completion(cached=True, **hit)
        try:
            resp = self._call(role, lambda: self._openai().chat.completions.create(
                model=model, messages=messages, temperature=temp, max_tokens=mtok), cfg.max_retries)
            comp = self._completion(resp, model)
        except LLMError:
            self._count(role, failed=1)
            raise
        self._count(role, requests=1, prompt_tokens=comp.prompt_tokens, completion_tokens=comp.completion_tokens,
                    cost_usd=cfg.price(model, comp.prompt_tokens, comp.completion_tokens))
        if self.cache is not None and use_cache:
            self.cache.put(key, comp.to_cache())
        return comp

    @staticmethod
    def _completion(resp: Any, model: str) -> Completion:
        choices = getattr(resp, "choices", None)
        if not choices:
            raise LLMError("bad_response", "the response has no choices")
        msg = getattr(choices[0], "message", None)
        text = getattr(msg, "content", None)
        if not isinstance(text, str):
            raise LLMError("bad_response", "the response's first choice has no text content")
        usage = getattr(resp, "usage", None)
        return Completion(text=text, model=model,
                          prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                          completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                          finish_reason=str(getattr(choices[0], "finish_reason", "") or ""))

    def check(self, role: str | None = None) -> CheckResult:
        """Whether the endpoint answers: its model list names the model, or else a 1-token
        completion succeeds. No retries, no cache.

        Raises:
            LLMError: kind ``not_configured`` when no request can be made.
        """
        cfg = self.config
        cfg.require(role)
        model = cfg.model_for(role) if role else (cfg.model or next(iter(cfg.models.values())))
        t0 = time.monotonic()
        detail: dict[str, Any] = {}
        try:
            ids = [m.id for m in self._call("check", lambda: self._openai().models.list(), 0)]
            detail["models"] = len(ids)
            if model in ids:
                return CheckResult(True, f"{cfg.base_url} answers; model {model} is listed", cfg.base_url, model,
                                   "models", time.monotonic() - t0, detail)
            detail["models_note"] = f"model {model} not in the endpoint's list of {len(ids)}"
        except LLMError as e:
            if e.kind == "not_configured":
                return CheckResult(False, f"{cfg.base_url}: {e}", cfg.base_url, model, "models",
                                   time.monotonic() - t0, detail)
            detail["models_note"] = f"model list failed ({e})"
        try:
            self._call("check", lambda: self._openai().chat.completions.create(
                model=model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, temperature=0), 0)
        except LLMError as e:
            return CheckResult(False, f"{cfg.base_url}: {e}", cfg.base_url, model, "completion",
                               time.monotonic() - t0, detail)
        return CheckResult(True, f"{cfg.base_url} answers; model {model} completed a 1-token request", cfg.base_url,
                           model, "completion", time.monotonic() - t0, detail)

    def close(self) -> None:
        """Closes the cache and the HTTP client."""
        if self.cache is not None:
            self.cache.close()
        if self._oa is not None and hasattr(self._oa, "close"):
            self._oa.close()


def open_client(config_path: str | Path | None = None, db: str | Path | None = None,
                env: Mapping[str, str] | None = None, sleep: Callable[[float], None] = time.sleep
                ) -> LLMClient | None:
    """The client the configuration describes, or None when no LLM is configured (every role
    then runs offline).

    Args:
        config_path: ``--llm CONFIG`` (TOML/JSON), or None for the environment only.
        db: The record database; responses are cached in its ``llm_cache`` table (None: in memory).
        env: The environment (default ``os.environ``).

    Raises:
        ConfigError: A bad configuration file.
        LLMError: kind ``not_configured`` when an endpoint is configured but the key is missing.
    """
    cfg = load_config(config_path, os.environ if env is None else env)
    if not cfg.configured:
        return None
    cfg.require()
    cache: ResponseCache | None = None
    if cfg.cache:
        cache = SQLiteCache(db) if db is not None else MemoryCache()
    return LLMClient(cfg, cache, sleep)
