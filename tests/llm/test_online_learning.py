"""Issue 34's scenario: an OpenAI-compatible endpoint answers the scalar softsign kernel with a
vectorized rewrite; ``optimize`` accepts it and the bank learns an online experience from it
(distilled by the LLM distiller), records the outcome and shows the lineage."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.operator import Operator
from ascendopt.transforms import REWRITES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "naive_softsign"
runner = CliRunner()


def vectorized_softsign() -> tuple[str, str]:
    """The kernel path and the vectorized kernel (what a good model would answer)."""
    op = Operator.load(EXAMPLE)
    for name in ("stage_scalar_gm", "vectorize_scalar_loop"):
        t = REWRITES.get(name)
        op = t.apply(op, t.find(op)[0])
    return op.kernel_file, op.files[op.kernel_file]


def test_an_accepted_llm_rewrite_teaches_the_bank(server, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCENDOPT_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("ASCENDOPT_LLM_MODEL", "fake-model")
    monkeypatch.setenv("ASCENDOPT_LLM_API_KEY", "k")
    path, text = vectorized_softsign()
    server.push(f"family: vectorization -- vectorize the element loop\n\n```cpp {path}\n{text}```\n",
                json.dumps({"title": "Vectorize the scalar softsign loop through UB tiles",
                            "mechanism": "V instructions process 64 floats per cycle; scalar GM access does one"}))
    bank = tmp_path / "b.db"
    r = runner.invoke(app, ["optimize", str(EXAMPLE), "--budget", "2", "--rewind-budget", "0", "--only", "stage1",
                            "--stage1-candidates", "1", "--beam-width", "0", "--bank", str(bank),
                            "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "o"), "--json"],
                      catch_exceptions=False)
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)["operators"][0]
    assert res["speedup"] > 2 and res["bank_added"] >= 1
    listed = json.loads(runner.invoke(app, ["bank", "list", "--bank", str(bank), "--json"]).stdout)
    (mine,) = [e for e in listed if e["seen_on"] == ["naive_softsign"]]
    shown = json.loads(runner.invoke(app, ["bank", "show", mine["id"], "--bank", str(bank), "--json"]).stdout)
    assert shown["origin"] == "online" and shown["family"] == "vectorization"
    assert shown["title"] == "Vectorize the scalar softsign loop through UB tiles"      # the LLM distiller's prose
    assert shown["source"]["prose"] == "llm:fake-model" and shown["applicability"]["rewriter"] == "llm"
    assert shown["evidence"]["slow"]["findings"] and shown["expected_effect"]["speedup"] > 2
    # the outcome is written back, and the candidate's lineage reads from diagnosis to outcome
    best = res["best_digest"]
    chain = json.loads(runner.invoke(app, ["bank", "show", best[:12], "--bank", str(bank), "--json"]).stdout)
    assert chain[0]["outcome"] == "faster" and chain[0]["rewrite"] == "llm" and chain[0]["diagnosis"]
    html = (tmp_path / "o" / "report.html").read_text()
    assert "Lineage: evidence to outcome" in html and best[:12] in html
