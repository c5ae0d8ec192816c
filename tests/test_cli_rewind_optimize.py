"""CLI: rewind, bank and optimize end to end on the fixture operator (real simulator, small
budgets), and their usage errors (exit 2, one line, no traceback)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ascendopt.cli import app

from .conftest import FIXTURE_OPS

OP = str(FIXTURE_OPS / "scale_copy")
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_rewind_then_bank_commands(tmp_path):
    bank, db = tmp_path / "bank.db", tmp_path / "records.db"
    r = invoke("rewind", OP, "--budget", 3, "--motifs", "pipe_barrier,shrink_tile", "--bank", bank, "--db", db, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    (rep,) = out["operators"]
    assert rep["charged"] == 3 and rep["baseline_us"] > 0
    assert {a["motif"] for a in rep["attempts"]} == {"pipe_barrier", "shrink_tile"}
    assert out["bank_size"] == rep["kept"] >= 1
    listed = json.loads(invoke("bank", "list", "--bank", bank, "--json").stdout)
    assert len(listed) == out["bank_size"]
    exp_id = listed[0]["id"]
    shown = json.loads(invoke("bank", "show", exp_id[:6], "--bank", bank, "--json").stdout)
    assert shown["id"] == exp_id and shown["diff"].startswith("--- a/")
    export = tmp_path / "bank.json"
    assert invoke("bank", "export", export, "--bank", bank).exit_code == 0
    assert "added" in invoke("bank", "import", export, "--bank", tmp_path / "copy.db").stdout
    again = json.loads(invoke("rewind", OP, "--budget", 3, "--motifs", "pipe_barrier,shrink_tile", "--bank", bank,
                              "--db", db, "--json").stdout)
    # a new run has its own budget: what the first run evaluated comes from the records, free
    n = len(rep["attempts"])
    assert [a["charged"] for a in again["operators"][0]["attempts"][:n]] == [False] * n
    assert again["operators"][0]["attempts"][:n] == [{**a, "charged": False} for a in rep["attempts"]]


def test_optimize_writes_its_outputs(tmp_path):
    out = tmp_path / "o"
    r = invoke("optimize", OP, "--budget", 4, "--rewind-budget", 0, "--stage2-steps", 2, "--bank", tmp_path / "b.db",
               "--db", tmp_path / "r.db", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)["operators"][0]
    assert res["charged"] <= 4 and res["baseline_us"] > 0 and res["best_us"] <= res["baseline_us"]
    assert (out / "best" / "op_kernel").is_dir() and (out / "best.patch").exists()
    assert not (out / "profiles").exists()  # the run's full profiles go at its end (clean_profiles)
    html = (out / "report.html").read_text()
    assert "<svg" in html and "Pipe utilisation" in html and "Budget by stage" in html
    assert json.loads((out / "result.json").read_text())["charged"] == res["charged"]
    assert res["schedule"] and res["schedule"][0]["stage"] == "stage1"      # the gain schedule is the default


def test_usage_errors_are_one_line_exit_2(tmp_path):
    for args in (("rewind",), ("rewind", OP, "--suite", "own"), ("rewind", OP, "--motifs", "nope"),
                 ("rewind", OP, "--budget", 0), ("optimize", OP, "--only", "stage3"),
                 ("optimize", OP, "--schedule", "round-robin"),
                 ("optimize", tmp_path / "missing"), ("bank", "show", "zzz", "--bank", tmp_path / "none.db"),
                 ("bank", "import", tmp_path / "none.json", "--bank", tmp_path / "b.db")):
        r = invoke(*args)
        assert r.exit_code == 2, (args, r.output)
        assert "Traceback" not in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    r = invoke("bank", "import", bad, "--bank", tmp_path / "b.db")
    assert r.exit_code == 2 and "not an ascendopt experience-bank export" in r.output
