"""``ascendopt bench`` end to end on the fixture operator: the --json document, resume
(finished pairs are not rerun; an unfinished one is rerun with its evaluations free), the
process pool (only the driver writes), and usage errors (exit 2, no traceback)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluate.store import SQLiteStore

from ..conftest import FIXTURE_OPS

OP = str(FIXTURE_OPS / "scale_copy")
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def bench(out, methods, *extra):
    r = invoke("bench", "--suite", OP, "--budget", 3, "--methods", methods, "--out", out, "--json", *extra)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def charged_by_run(db):
    with SQLiteStore(db, readonly=True) as s:
        return {r.id: (r.config["method"], r.status, s.count(r.id, charged=True), s.count(r.id, charged=False))
                for r in s.list_runs()}


def test_json_document_shape(tmp_path):
    doc = bench(tmp_path / "o", "stage2,bon")
    assert doc["budget"] == 3 and doc["complete"] and doc["seeds"] == [0]
    assert {"metrics", "curves", "trials", "pairs", "operators", "methods", "published"} <= set(doc)
    assert set(doc["metrics"]) == {"stage2", "bon"}
    g = doc["metrics"]["stage2"]["all"]
    for k in ("gm_speedup", "fast_1.0", "fast_1.2", "fast_1.5", "fast_2.0", "correct_eval_rate", "improved_rate",
              "evals_to_first_improvement", "roofline_before", "roofline_after", "operators", "per_seed"):
        assert k in g
    assert len(doc["curves"]["bon"]["all"]) == 4 and doc["curves"]["bon"]["all"][0] == 1.0
    assert all(t["charged"] <= 3 for t in doc["trials"])
    assert [p["status"] for p in doc["pairs"]] == ["finished", "finished"]
    html = (tmp_path / "o" / "report.html").read_text()
    assert "<svg" in html and "GM speedup" in html and "runs/" in html
    assert json.loads((tmp_path / "o" / "bench.json").read_text())["budget"] == 3
    assert (tmp_path / "o" / doc["pairs"][0]["report"]).exists()


def test_resume_skips_finished_pairs_and_reruns_unfinished_ones_for_free(tmp_path):
    out = tmp_path / "o"
    bench(out, "stage2")
    before = charged_by_run(out / "bench.db")
    assert list(before.values()) == [("stage2", "finished", 3, before[1][3])]
    # without --resume an existing benchmark is not overwritten
    r = invoke("bench", "--suite", OP, "--budget", 3, "--methods", "stage2", "--out", out)
    assert r.exit_code == 2 and "--resume" in r.output
    # a finished pair is not rerun; a new one runs
    doc = bench(out, "stage2,bon", "--resume")
    assert {p["method"]: p["status"] for p in doc["pairs"]} == {"stage2": "done", "bon": "finished"}
    after = charged_by_run(out / "bench.db")
    assert after[1] == before[1] and len(after) == 2
    # a pair cut short (kill -9 leaves its run 'running') is rerun in the same run: its
    # evaluations come back from the records, nothing is charged twice
    with SQLiteStore(out / "bench.db") as s:
        s.set_run_status(1, "running")
    doc = bench(out, "stage2,bon", "--resume")
    assert {p["method"]: p["status"] for p in doc["pairs"]} == {"stage2": "finished", "bon": "done"}
    again = charged_by_run(out / "bench.db")
    assert again[1][:3] == ("stage2", "finished", 3) and again[1][3] > before[1][3]
    assert len(again) == 2
    assert doc["trials"][0]["speedup"] == json.loads((out / "bench.json").read_text())["trials"][0]["speedup"]


def test_resume_without_the_database_keeps_the_pairs_the_side_files_record(tmp_path):
    """A committed benchmark (its ledger.jsonl, runs/*.html and bench.json, never bench.db) continues in a fresh
    checkout: --resume takes a finished pair from its side file when the identity matches."""
    out = tmp_path / "o"
    first = bench(out, "stage2")
    assert len((out / "ledger.jsonl").read_text().splitlines()) == 1
    (out / "bench.db").unlink()
    doc = bench(out, "stage2,bon", "--resume")
    assert {p["method"]: p["status"] for p in doc["pairs"]} == {"stage2": "done", "bon": "finished"}
    assert list(charged_by_run(out / "bench.db").values())[0][0] == "bon"  # stage2 was not rerun
    [kept] = [t for t in doc["trials"] if t["method"] == "stage2"]
    assert kept == first["trials"][0]
    # another budget is another pair: rerun
    (out / "bench.db").unlink()
    r = invoke("bench", "--suite", OP, "--budget", 2, "--methods", "stage2", "--out", out, "--resume", "--json")
    assert r.exit_code == 0, r.output
    assert [p["status"] for p in json.loads(r.stdout)["pairs"]] == ["finished"]


def test_process_pool_workers_return_records_to_the_driver(tmp_path):
    doc = bench(tmp_path / "o", "stage2,evolve", "--workers", 2)
    assert doc["complete"]
    runs = charged_by_run(tmp_path / "o" / "bench.db")
    assert sorted(v[:3] for v in runs.values()) == [("evolve", "finished", 3), ("stage2", "finished", 3)]


def test_usage_errors_exit_2(tmp_path):
    base = ("bench", "--suite", OP, "--out", tmp_path / "o")
    for extra in (("--methods", "nope"), ("--methods", "bon,bon"), ("--budget", 0), ("--seeds", 0),
                  ("--workers", 0), ("--executor", "mpi"), ("--levels", "one"), ("--ops", "no_such_op*"),
                  ("--method-opt", "bon.k=3"), ("--method-opt", "x"), ("--llm", tmp_path / "none.toml")):
        r = invoke(*base, *extra)
        assert r.exit_code == 2, (extra, r.output)
        assert "Traceback" not in r.output
    r = invoke("bench", "--suite", tmp_path / "missing", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "Traceback" not in r.output
