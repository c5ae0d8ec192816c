"""LLM configuration: endpoint, model per role, sampling, limits, prices.

Loaded by :func:`load_config` from a TOML or JSON file (``--llm CONFIG``) and/or the
environment; the environment is read there and only there (components get the resulting
:class:`LLMConfig`). Example TOML::

    base_url = "https://api.example.com/v1"
    model = "some-model"                 # default for every role
    api_key_env = "ASCENDOPT_LLM_API_KEY" # name of the variable holding the key (the key itself never goes in the file)
    temperature = 0.2
    max_tokens = 4096
    timeout_s = 120
    max_retries = 3
    context_tokens = 32000               # token budget of a request's context (0: no budget)

    [models]                             # per-role overrides
    refiner = "a-bigger-model"

    [prices.some-model]                  # USD per million tokens (default 0)
    prompt = 0.5
    completion = 1.5

Environment (overrides the file): ``ASCENDOPT_LLM_BASE_URL``, ``ASCENDOPT_LLM_MODEL`` (the
default model), and the key in the variable named by ``api_key_env``.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from ascendopt.llm.errors import LLMError

ROLES = ("rewinder", "distiller", "diagnoser", "refiner", "tiling_mutator")
ENV_BASE_URL = "ASCENDOPT_LLM_BASE_URL"
ENV_MODEL = "ASCENDOPT_LLM_MODEL"
DEFAULT_KEY_ENV = "ASCENDOPT_LLM_API_KEY"


class ConfigError(ValueError):
    """The configuration file cannot be read or has unknown or ill-typed fields."""


@dataclass
class LLMConfig:
    """Everything the LLM client needs.

    Attributes:
        base_url: OpenAI-compatible endpoint (``.../v1``); empty = not configured.
        model: Default model for every role.
        models: Per-role model overrides (keys from :data:`ROLES`).
        api_key_env: Name of the environment variable holding the API key.
        api_key: The key, as read from that variable by :func:`load_config` (never from a file).
        temperature: Sampling temperature.
        max_tokens: Completion token limit per request.
        timeout_s: Per-request timeout (seconds).
        max_retries: Retries after a 429, a 5xx, a connection failure or a timeout.
        backoff_s: First retry delay; doubles per retry (a ``Retry-After`` header wins, capped).
        backoff_max_s: Cap of one retry delay.
        prices: ``{model: {"prompt": usd_per_mtok, "completion": usd_per_mtok}}``.
        cache: Whether responses are cached by request hash.
        context_tokens: Token budget of one request's context (kernel, host, diagnosis,
            experiences, rules, diffs), for every role, fitted in tiers by
            :mod:`ascendopt.llm.context_budget`; 0 sends everything.
    """

    base_url: str = ""
    model: str = ""
    models: dict[str, str] = field(default_factory=dict)
    api_key_env: str = DEFAULT_KEY_ENV
    api_key: str = field(default="", repr=False)
    temperature: float = 0.2
    max_tokens: int = 4096
    timeout_s: float = 120.0
    max_retries: int = 3
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    cache: bool = True
    context_tokens: int = 32000

    def __post_init__(self) -> None:
        bad = [r for r in self.models if r not in ROLES]
        if bad:
            raise ConfigError(f"unknown LLM role(s) {', '.join(bad)}; roles: {', '.join(ROLES)}")

    @property
    def configured(self) -> bool:
        """An endpoint and at least one model are set (the key is checked by :meth:`require`)."""
        return bool(self.base_url and (self.model or self.models))

    def model_for(self, role: str) -> str:
        """The model of ``role`` (its override, else the default model; may be empty)."""
        if role not in ROLES:
            raise ValueError(f"unknown LLM role {role!r}; roles: {', '.join(ROLES)}")
        return self.models.get(role) or self.model

    def require(self, role: str | None = None) -> None:
        """Checks that a request (for ``role``, or any role) can be made.

        Raises:
            LLMError: kind ``not_configured``, saying what is missing.
        """
        if not self.base_url:
            raise LLMError("not_configured", f"no LLM endpoint: set {ENV_BASE_URL} or base_url in --llm CONFIG")
        if not (self.model_for(role) if role else (self.model or self.models)):
            raise LLMError("not_configured", f"no model{f' for role {role}' if role else ''}: set {ENV_MODEL} "
                           f"or model / [models] in --llm CONFIG")
        if not self.api_key:
            raise LLMError("not_configured", f"no API key: environment variable {self.api_key_env} is not set "
                           f"(any non-empty value for an endpoint without authentication)")

    def price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        """Cost in USD of one request (0 for a model without a price)."""
        p = self.prices.get(model, {})
        return (prompt_tokens * float(p.get("prompt", 0.0)) + completion_tokens * float(p.get("completion", 0.0))) / 1e6

    def to_dict(self) -> dict[str, Any]:
        """The configuration for reports (the key is never included)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}


_TYPES: dict[str, type | tuple[type, ...]] = {
    "base_url": str, "model": str, "models": dict, "api_key_env": str, "temperature": (int, float),
    "max_tokens": int, "timeout_s": (int, float), "max_retries": int, "backoff_s": (int, float),
    "backoff_max_s": (int, float), "prices": dict, "cache": bool, "context_tokens": int,
}


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror or e}") from e
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table/object at the top level")
    if "api_key" in data:
        raise ConfigError(f"{path}: put the key in an environment variable and name it with api_key_env, "
                          f"not in the file")
    unknown = sorted(set(data) - set(_TYPES))
    if unknown:
        raise ConfigError(f"{path}: unknown field(s) {', '.join(unknown)}; known: {', '.join(_TYPES)}")
    for k, v in data.items():
        if not isinstance(v, _TYPES[k]) or (isinstance(v, bool) and _TYPES[k] is not bool):
            raise ConfigError(f"{path}: field {k} has the wrong type ({type(v).__name__})")
    return data


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> LLMConfig:
    """Reads the configuration from ``path`` (TOML, or JSON by suffix) if given, then the
    environment (``env``, default ``os.environ``) over it.

    The result may be unconfigured (:attr:`LLMConfig.configured` False): every LLM role then
    uses its offline implementation.

    Raises:
        ConfigError: Unreadable file, unknown or ill-typed fields, unknown role, a key in the file.
    """
    env = os.environ if env is None else env
    data = _read_file(Path(path)) if path is not None else {}
    if env.get(ENV_BASE_URL):
        data["base_url"] = env[ENV_BASE_URL]
    if env.get(ENV_MODEL):
        data["model"] = env[ENV_MODEL]
    data = {k: (float(v) if _TYPES[k] == (int, float) else v) for k, v in data.items()}
    cfg = LLMConfig(**data)
    cfg.api_key = env.get(cfg.api_key_env, "")
    return cfg
