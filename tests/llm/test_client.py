"""LLMClient against the fake server: answers, retries with backoff, timeouts, typed errors,
the response cache and usage accounting."""

from __future__ import annotations

import pytest

from ascendopt.llm.cache import MemoryCache, SQLiteCache, request_key
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.llm.errors import LLMError

from .fake_server import Reply

MSG = [{"role": "user", "content": "hello"}]


def test_answer_and_usage(client, server):
    server.push(Reply("hi there", prompt_tokens=100, completion_tokens=50))
    c = client.complete("refiner", MSG)
    assert c.text == "hi there" and not c.cached and c.model == "fake-model"
    assert (c.prompt_tokens, c.completion_tokens) == (100, 50)
    assert server.requests[0]["model"] == "fake-model" and server.requests[0]["messages"] == MSG
    u = client.usage
    assert (u.requests, u.cached, u.prompt_tokens, u.completion_tokens) == (1, 0, 100, 50)
    assert u.cost_usd == pytest.approx((100 * 2.0 + 50 * 4.0) / 1e6)
    assert client.usage_by_role["refiner"].requests == 1


def test_model_per_role(server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", models={"distiller": "small"}, api_key="k")
    c = LLMClient(cfg, None, sleep=sleeps.append)
    c.complete("distiller", MSG)
    c.complete("refiner", MSG)
    assert [r["model"] for r in server.requests] == ["small", "fake-model"]


def test_cache_second_identical_request_does_not_hit_server(client, server):
    server.push(Reply("first", prompt_tokens=10, completion_tokens=5), Reply("second"))
    a = client.complete("refiner", MSG)
    b = client.complete("refiner", MSG)
    assert len(server.requests) == 1
    assert b.text == a.text == "first" and b.cached
    assert (client.usage.requests, client.usage.cached, client.usage.prompt_tokens) == (1, 1, 10)
    # any change of the request misses
    client.complete("refiner", MSG, temperature=0.9)
    client.complete("refiner", MSG, max_tokens=7)
    client.complete("refiner", [{"role": "user", "content": "hello!"}])
    assert len(server.requests) == 4
    # use_cache=False always asks
    client.complete("refiner", MSG, use_cache=False)
    assert len(server.requests) == 5


def test_sqlite_cache_in_record_db_survives_reopen(tmp_path, config, server, sleeps):
    from ascendopt.evaluate.store import SCHEMA_VERSION, SQLiteStore

    db = tmp_path / "ascendopt.db"
    with SQLiteStore(db) as store:
        store.create_run("op", {})
    server.push("cached answer")
    c1 = LLMClient(config, SQLiteCache(db), sleep=sleeps.append)
    assert c1.complete("refiner", MSG).text == "cached answer"
    c1.close()
    c2 = LLMClient(config, SQLiteCache(db), sleep=sleeps.append)
    got = c2.complete("refiner", MSG)
    c2.close()
    assert got.cached and got.text == "cached answer" and len(server.requests) == 1
    # the record store still opens, at its own schema version, with its run
    with SQLiteStore(db) as store:
        assert store.schema_version == SCHEMA_VERSION and len(store.list_runs()) == 1


@pytest.mark.parametrize("make", [MemoryCache, lambda: SQLiteCache(":memory:")])
def test_cache_contract(make):
    cache = make()
    k = request_key("m", MSG, 0.2, 10)
    assert k == request_key("m", [dict(m) for m in MSG], 0.2, 10)
    assert k != request_key("m2", MSG, 0.2, 10)
    assert cache.get(k) is None
    cache.put(k, {"text": "a", "model": "m"})
    cache.put(k, {"text": "b", "model": "m"})  # first put wins
    got = cache.get(k)
    assert got == {"text": "a", "model": "m"}
    got["text"] = "mutated"
    assert cache.get(k)["text"] == "a"
    cache.close()


def test_429_then_success_retries_with_backoff(client, server, sleeps):
    server.push(Reply(status=429), Reply(status=429), Reply("finally"))
    c = client.complete("refiner", MSG)
    assert c.text == "finally" and len(server.requests) == 3
    assert sleeps == [0.5, 1.0]  # backoff_s * 2**attempt
    assert client.usage.retries == 2 and client.usage.requests == 1


def test_retry_after_header_wins(client, server, sleeps):
    server.push(Reply(status=429, headers={"Retry-After": "3"}), Reply("ok"))
    client.complete("refiner", MSG)
    assert sleeps == [3.0]


def test_server_error_exhausts_retries(client, server, sleeps):
    server.push(*[Reply(status=503)] * 3)
    with pytest.raises(LLMError) as ei:
        client.complete("refiner", MSG)
    assert ei.value.kind == "server_error" and ei.value.status == 503
    assert len(server.requests) == 3 and len(sleeps) == 2
    assert client.usage.failed == 1 and client.usage.requests == 0


def test_rate_limited_kind_after_retries(server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", max_retries=1)
    server.push(Reply(status=429), Reply(status=429))
    with pytest.raises(LLMError) as ei:
        LLMClient(cfg, None, sleep=sleeps.append).complete("refiner", MSG)
    assert ei.value.kind == "rate_limited"


def test_client_error_is_not_retried(client, server, sleeps):
    server.push(Reply(status=400))
    with pytest.raises(LLMError) as ei:
        client.complete("refiner", MSG)
    assert ei.value.kind == "bad_response" and len(server.requests) == 1 and sleeps == []


def test_refused_key_is_not_configured(client, server):
    server.push(Reply(status=401))
    with pytest.raises(LLMError) as ei:
        client.complete("refiner", MSG)
    assert ei.value.kind == "not_configured"


def test_timeout(server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", timeout_s=0.3, max_retries=1)
    server.push(Reply("late", delay_s=1.0), Reply("late again", delay_s=1.0))
    c = LLMClient(cfg, MemoryCache(), sleep=sleeps.append)
    with pytest.raises(LLMError) as ei:
        c.complete("refiner", MSG)
    assert ei.value.kind == "timeout" and len(sleeps) == 1
    assert c.usage.failed == 1 and c.usage.retries == 1
    assert len(c.cache) == 0  # nothing cached from a failure


def test_timeout_then_success(server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", timeout_s=0.3, max_retries=2)
    server.push(Reply("late", delay_s=1.0), Reply("in time"))
    assert LLMClient(cfg, None, sleep=sleeps.append).complete("refiner", MSG).text == "in time"


def test_unreachable_endpoint_is_server_error(sleeps):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    cfg = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key="k", max_retries=0)
    with pytest.raises(LLMError) as ei:
        LLMClient(cfg, None, sleep=sleeps.append).complete("refiner", MSG)
    assert ei.value.kind == "server_error"


def test_not_configured_raises_before_any_request(server):
    with pytest.raises(LLMError) as ei:
        LLMClient(LLMConfig(base_url=server.base_url, model="m")).complete("refiner", MSG)  # no key
    assert ei.value.kind == "not_configured" and "ASCENDOPT_LLM_API_KEY" in str(ei.value)
    with pytest.raises(LLMError) as ei:
        LLMClient(LLMConfig(model="m", api_key="k")).complete("refiner", MSG)
    assert ei.value.kind == "not_configured"
    assert server.requests == []
    with pytest.raises(ValueError):
        LLMClient(LLMConfig(base_url=server.base_url, model="m", api_key="k")).complete("nobody", MSG)


def test_check(client, server):
    r = client.check()
    assert r.ok and r.via == "models"
    server.models = ["other"]
    r = client.check()
    assert r.ok and r.via == "completion" and server.requests[-1]["max_tokens"] == 1
    server.push(Reply(status=500))
    r = client.check()
    assert not r.ok and "server_error" in r.message


def test_sqlite_cache_created_before_the_record_store(tmp_path):
    from ascendopt.evaluate.store import SCHEMA_VERSION, SQLiteStore

    db = tmp_path / "fresh.db"
    cache = SQLiteCache(db)
    cache.put("k", {"text": "a", "model": "m"})
    with SQLiteStore(db) as store:  # the store creates its own schema beside llm_cache
        assert store.schema_version == SCHEMA_VERSION
        store.create_run("op", {})
    assert cache.get("k") == {"text": "a", "model": "m"} and len(cache) == 1
    cache.close()


def test_usage_by_role_and_report_dict(client, server):
    other = [{"role": "user", "content": "distil"}]
    client.complete("refiner", MSG)
    client.complete("distiller", other)
    client.complete("distiller", other)  # cached
    assert client.usage_by_role["distiller"].cached == 1 and client.usage_by_role["refiner"].requests == 1
    d = client.usage.to_dict()
    assert d["requests"] == 2 and d["cached"] == 1 and d["total_tokens"] == 2 * (11 + 7)
