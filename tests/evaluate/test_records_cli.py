"""`ascendopt records`: list runs/evaluations, show a candidate's sources and diff."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.store import SQLiteStore

from ascendopt.tiling.space import KnobSpace

from .conftest import HOST, KERNEL, edit


@pytest.fixture(scope="module")
def db(tmp_path_factory, evaluator, base, cases):
    path = tmp_path_factory.mktemp("records") / "ascendopt.db"
    with SQLiteStore(path) as store:
        s = BudgetedEvaluator(evaluator, store, budget=5, run_label="scale_copy")
        s.evaluate(base, cases)
        child = edit(base, KERNEL, "2.0f, n);", "2.5f, n);", origin="stage1/refine")
        s.evaluate(child, cases)
        s.evaluate(base, cases)  # duplicate
        capped = edit(base, HOST, "uint32_t tileLength = 1024;",
                      "uint32_t tileLength = 1024;\n    uint32_t maxTileLength = 4096;\n"
                      "    tileLength = tileLength < maxTileLength ? tileLength : maxTileLength;")
        space = KnobSpace.from_operator(capped)
        s.evaluate(space.apply(capped, space.defaults()), cases)
        s.evaluate(space.apply(capped, {**space.defaults(), "maxTileLength": 8192}), cases)  # same program
        s.finish()
    return path, base, child


def test_list_runs_and_evaluations(db):
    path, base, _ = db
    r = CliRunner().invoke(app, ["records", str(path)])
    assert r.exit_code == 0, r.output
    assert "scale_copy" in r.output and "finished" in r.output
    r = CliRunner().invoke(app, ["records", str(path), "--run", "1"])
    # on a terminal of 80 columns long cells wrap instead of being cut ("stage1/re…"), digests stay whole
    assert r.exit_code == 0 and "…" not in r.output and base.digest[:12] in r.output, r.output
    r = CliRunner().invoke(app, ["records", str(path), "--run", "1", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    [run] = data["runs"]
    assert (run["charged"], run["duplicates"]) == (3, 2)
    evs = run["evaluations"]
    assert [e["status"] for e in evs] == ["ok", "wrong_result", "ok", "ok", "ok"]
    assert [bool(e["same_as"]) for e in evs] == [False, False, False, False, True]
    assert evs[4]["same_as"] == evs[3]["digest"] and evs[4]["launch_key"] == evs[3]["launch_key"] != ""
    r = CliRunner().invoke(app, ["records", "show", evs[4]["digest"], "--db", str(path)])
    assert r.exit_code == 0 and f"[same program as {evs[3]['digest'][:12]}]" in r.output
    assert evs[1]["parent"] == base.digest and evs[1]["origin"] == "stage1/refine"
    assert evs[0]["latency_us"] > 0 and evs[0]["seed"] >= 0 and "total_s" in evs[0]["timings"]


def test_show_prints_sources_and_diff(db):
    path, base, child = db
    r = CliRunner().invoke(app, ["records", "show", child.digest[:12], "--db", str(path)])
    assert r.exit_code == 0, r.output
    assert f"candidate {child.digest}" in r.output and f"parent    {base.digest}" in r.output
    assert "-        Muls(yLocal, xLocal, 2.0f, n);" in r.output
    assert "+        Muls(yLocal, xLocal, 2.5f, n);" in r.output
    assert "==== op_kernel/scale_copy.cpp ====" in r.output and "wrong_result" in r.output


def test_errors_are_reported(db, tmp_path):
    path, _, _ = db
    r = CliRunner().invoke(app, ["records", "show", "ffff", "--db", str(path)])
    assert r.exit_code == 2 and "no candidate" in r.output
    r = CliRunner().invoke(app, ["records", str(tmp_path / "none.db")])
    assert r.exit_code == 2
