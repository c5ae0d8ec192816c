"""``bench --suite MANIFEST --src PATH``: every pair evaluates the operator exactly as the
manifest defines it (golden override, our case files, own_cases, benchmark case names as the
timed ones), in the driver, in process-pool workers and in Ray tasks; the case definition is
part of a pair's identity."""

from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.bench.pair import PairTask, suite_cases
from ascendopt.bench.runner import BenchConfig, Runner, plan
from ascendopt.cli import app
from ascendopt.evaluate.store import SQLiteStore
from ascendopt.suites import load_suite

from ..conftest import FIXTURE_OPS

MANIFEST = """format = 1
name = "tiny"

[[op]]
dir = "scale_copy"
level = 2
golden = "goldens.py:double"
cases = ["cases/big.json"]
own_cases = true
benchmark = ["big"]
"""

# 48 x 1024 floats: smaller than the operator's own many_cores (64 x 3001), which the default
# (largest case per dtype) would time instead.
CASE = [{"case_name": "big", "op": "ScaleCopy",
         "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [48, 1024],
                         "data_distribute": ["uniform"], "value_range": [[-1.0, 1.0]]}],
         "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [48, 1024]}]}]

GOLDENS = "def double(x, y):\n    return [x['value'] * 2.0]\n\n\ndef triple(x, y):\n    return [x['value'] * 3.0]\n"


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    d = tmp_path / "suite"
    (d / "cases").mkdir(parents=True)
    (d / "suite.toml").write_text(MANIFEST)
    (d / "goldens.py").write_text(GOLDENS)
    (d / "cases" / "big.json").write_text(json.dumps(CASE))
    return d / "suite.toml"


def _bench(manifest: Path, out: Path, *extra) -> dict:
    res = CliRunner().invoke(app, ["bench", "--suite", str(manifest), "--src", str(FIXTURE_OPS), "--budget", "2",
                                   "--out", str(out), "--json", *map(str, extra)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _evaluations(out: Path) -> dict[str, list]:
    with SQLiteStore(out / "bench.db", readonly=True) as s:
        return {r.config["method"]: [e.evaluation for e in s.list_evaluations(r.id) if e.charged]
                for r in s.list_runs()}


def test_plan_carries_the_manifest_into_every_task(manifest, tmp_path):
    suite = load_suite(str(manifest), FIXTURE_OPS)
    cfg = BenchConfig(out=tmp_path / "o", budget=2, methods=("stage2", "bon"))
    pairs, skipped = plan(list(suite.ops), cfg, FIXTURE_OPS)
    assert not skipped and [p.level for p in pairs] == [2, 2] and all(p.cases_key for p in pairs)
    runner = Runner(cfg)
    try:
        runner.attach(pairs)
        task = pickle.loads(pickle.dumps(runner._task(pairs[0])))  # what a worker receives
        assert task.golden == suite.ops[0].golden and task.bench_cases == ("big",) and task.own_cases
        assert task.case_files == (str(manifest.parent / "cases" / "big.json"),)
        cases, timed = suite_cases(task.suite_op())
        assert timed == ("big",) and {c.name for c in cases} == {"big", "small_tail", "many_cores"}
        assert all(c.golden.endswith("goldens.py:double") for c in cases)
        # a plain directory keeps its own cases, goldens and default timed cases, and its identity
        plain, _ = plan([FIXTURE_OPS / "scale_copy"], cfg, FIXTURE_OPS)
        assert plain[0].cases_key is None and "cases_key" not in runner._run_config(plain[0])
        cases, timed = suite_cases(PairTask("k", str(FIXTURE_OPS / "scale_copy"), "stage2", 0, 2, "x").suite_op())
        assert timed == ("many_cores",) and {c.name for c in cases} == {"small_tail", "many_cores"}
    finally:
        runner.close()


def test_unknown_benchmark_case_is_skipped_with_its_reason(manifest, tmp_path):
    manifest.write_text(MANIFEST.replace('benchmark = ["big"]', 'benchmark = ["huge"]'))
    pairs, skipped = plan(list(load_suite(str(manifest), FIXTURE_OPS).ops), BenchConfig(out=tmp_path / "o"))
    assert not pairs and "unknown benchmark case(s) huge" in skipped[0]["reason"]


def test_pairs_use_the_suite_golden_and_time_its_benchmark_case(manifest, tmp_path):
    # two workers: the suite's cases are rebuilt inside the worker processes
    doc = _bench(manifest, tmp_path / "o", "--methods", "stage2,bon", "--workers", 2)
    assert doc["complete"] and {t["level"] for t in doc["trials"]} == {2}
    evs = _evaluations(tmp_path / "o")
    assert set(evs) == {"stage2", "bon"}
    for method, records in evs.items():
        assert records, method
        for ev in records:
            if ev.ok:
                assert set(ev.profile) == {"big"}, (method, ev.profile.keys())  # the manifest's timed case
                assert {c.name for c in ev.cases} == {"big", "small_tail", "many_cores"}
    # the suite's golden decides correctness: y = 2x is wrong against a golden of 3x
    manifest.with_name("goldens.py").write_text(GOLDENS)
    manifest.write_text(MANIFEST.replace("goldens.py:double", "goldens.py:triple"))
    _bench(manifest, tmp_path / "o2", "--methods", "stage2")
    first = _evaluations(tmp_path / "o2")["stage2"][0]
    assert first.status == "wrong_result" and first.cases[0].status == "wrong_result"


def test_a_changed_manifest_golden_is_a_new_pair(manifest, tmp_path):
    out = tmp_path / "o"
    _bench(manifest, out, "--methods", "bon", "--budget", 1)
    manifest.with_name("goldens.py").write_text(GOLDENS.replace("* 2.0]", "* 2.0 + 0.0]"))
    doc = _bench(manifest, out, "--methods", "bon", "--budget", 1, "--resume")
    assert [p["status"] for p in doc["pairs"]] == ["finished"]  # rerun, not "done"
    with SQLiteStore(out / "bench.db", readonly=True) as s:
        assert len({r.config["cases_key"] for r in s.list_runs()}) == 2


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")
def test_ray_tasks_use_the_suite_cases(manifest, tmp_path):
    _bench(manifest, tmp_path / "o", "--methods", "bon", "--executor", "ray", "--workers", 1)
    evs = _evaluations(tmp_path / "o")["bon"]
    assert evs and all(set(ev.profile) == {"big"} for ev in evs if ev.ok)
    assert any(ev.ok for ev in evs)
