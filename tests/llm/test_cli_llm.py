"""``ascendopt llm check`` against the fake server (typer's CliRunner)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ascendopt.cli.llm import llm_app

from .fake_server import Reply

runner = CliRunner()


@pytest.fixture
def env(server, monkeypatch):
    monkeypatch.setenv("ASCENDOPT_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("ASCENDOPT_LLM_MODEL", "fake-model")
    monkeypatch.setenv("ASCENDOPT_LLM_API_KEY", "k")


@pytest.fixture
def unset(monkeypatch):
    for k in ("ASCENDOPT_LLM_BASE_URL", "ASCENDOPT_LLM_MODEL", "ASCENDOPT_LLM_API_KEY"):
        monkeypatch.delenv(k, raising=False)


def test_answers_via_model_list(env, server):
    r = runner.invoke(llm_app, ["check"])
    assert r.exit_code == 0, r.output
    assert "ok:" in r.output and "fake-model is listed" in r.output and len(r.output.strip().splitlines()) == 1
    assert server.requests == []


def test_answers_via_completion_json(env, server):
    server.models_status = 404
    r = runner.invoke(llm_app, ["check", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["ok"] and d["via"] == "completion" and d["model"] == "fake-model" and d["configured"]
    assert server.requests[0]["max_tokens"] == 1


def test_endpoint_fails_exit_1(env, server):
    server.models_status = 500
    server.push(Reply(status=503))
    r = runner.invoke(llm_app, ["check"])
    assert r.exit_code == 1 and "server_error" in r.output


def test_not_configured_exit_2(unset):
    r = runner.invoke(llm_app, ["check"])
    assert r.exit_code == 2 and "no LLM configured" in r.output
    r = runner.invoke(llm_app, ["check", "--json"])
    assert r.exit_code == 2 and json.loads(r.output)["configured"] is False


def test_config_file_and_missing_key(unset, server, tmp_path, monkeypatch):
    p = tmp_path / "llm.toml"
    p.write_text(f'base_url = "{server.base_url}"\nmodel = "fake-model"\napi_key_env = "FAKE_KEY"\n')
    r = runner.invoke(llm_app, ["check", "--llm", str(p)])
    assert r.exit_code == 2 and "FAKE_KEY" in r.output
    monkeypatch.setenv("FAKE_KEY", "k")
    r = runner.invoke(llm_app, ["check", "--llm", str(p)])
    assert r.exit_code == 0, r.output


def test_invalid_config_exit_2(unset, tmp_path):
    p = tmp_path / "llm.toml"
    p.write_text('modle = "x"\n')
    r = runner.invoke(llm_app, ["check", "--llm", str(p)])
    assert r.exit_code == 2 and "unknown field" in r.output


def test_registered_in_main_app(env):
    from ascendopt.cli import app

    r = runner.invoke(app, ["llm", "check"])
    assert r.exit_code == 0, r.output
