"""Fixtures for the LLM tests: a fake OpenAI-compatible server and a client configured for it."""

from __future__ import annotations

import pytest

from ascendopt.llm.cache import MemoryCache
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig

from .fake_server import FakeServer


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    # the fake server is local: no proxy from the environment may stand in between
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def server():
    with FakeServer() as s:
        yield s


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def config(server) -> LLMConfig:
    return LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", timeout_s=5.0, max_retries=2,
                     backoff_s=0.5, prices={"fake-model": {"prompt": 2.0, "completion": 4.0}})


@pytest.fixture
def client(config, sleeps) -> LLMClient:
    c = LLMClient(config, MemoryCache(), sleep=sleeps.append)
    yield c
    c.close()
