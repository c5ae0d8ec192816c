"""``tune`` with an LLM endpoint gives the evo strategy the LLM tiling mutator (the
``tiling_mutator`` role): its requests reach the endpoint, and an unusable answer costs no
evaluation (the strategy falls back to its offline moves)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.llm import tiling_mutator

from ..conftest import FIXTURE_OPS


def _mutator_requests(server) -> list[dict]:
    return [r for r in server.requests if "evolvable region" in json.dumps(r["messages"])]


def test_tune_asks_the_llm_tiling_mutator_when_an_endpoint_is_configured(server, monkeypatch, tmp_path):
    monkeypatch.setenv("ASCENDOPT_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("ASCENDOPT_LLM_MODEL", "fake-model")
    monkeypatch.setenv("ASCENDOPT_LLM_API_KEY", "k")
    monkeypatch.setattr(tiling_mutator, "LLM_RATE", 1.0)  # every ask after the initial design
    args = ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "12", "--db", str(tmp_path / "t.db"),
            "--out", str(tmp_path / "out"), "--json", "--unsafe-no-sandbox", "--unseen-shapes", "0"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    asked = _mutator_requests(server)
    assert asked, [r["messages"][0]["content"][:80] for r in server.requests]
    assert json.loads(res.stdout)["charged"] <= 12


def test_tune_offline_asks_nothing(server, monkeypatch, tmp_path):
    for k in ("ASCENDOPT_LLM_BASE_URL", "ASCENDOPT_LLM_MODEL", "ASCENDOPT_LLM_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(tiling_mutator, "LLM_RATE", 1.0)
    res = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "10", "--db",
                                   str(tmp_path / "t.db"), "--out", str(tmp_path / "out"), "--json",
                                   "--unsafe-no-sandbox", "--unseen-shapes", "0"])
    assert res.exit_code == 0, res.output
    assert server.requests == []
