"""``tune`` checks its answer on unseen shapes (issue 35 item 1): a search that returns a tiling
correct only at its benchmark shape gets the next best that passes, and says why."""

from __future__ import annotations

import json
import shutil

import pytest

from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS
from .conftest import HOST, edit
from .test_unseen import BENCH_LEN, READ_SHAPE

CASE = """[{"case_name": "bench", "op": "ScaleCopy", "calc_expect_func_file": "test_scale_copy.py:calc_expect_func",
  "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [64, 3001],
                  "data_distribute": ["uniform"], "value_range": [[-2.0, 2.0]]}],
  "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [64, 3001]}]}]"""


@pytest.fixture
def op_dir(tmp_path):
    """scale_copy with one case, its benchmark shape."""
    d = tmp_path / "scale_copy"
    shutil.copytree(FIXTURE_OPS / "scale_copy", d)
    (d / "tests" / "st" / "ScaleCopy_case.json").write_text(CASE)
    return d


def _hard_coded(op):
    return edit(op, HOST, READ_SHAPE, f"uint32_t total = {BENCH_LEN};", origin="stage2/test")


def test_tune_returns_the_next_best_when_its_best_fails_an_unseen_shape(tmp_path, monkeypatch, op_dir):
    import ascendopt.tiling.search as search

    seen = {}

    def hard_coding_search(op, cases, beval, space, strat, name, batch=1, on_trial=None):
        """Evaluates the original and a tiling hard-coding the case's length; returns the latter."""
        hard = _hard_coded(op)
        base, ev = beval.evaluate(op, cases), beval.evaluate(hard, cases)
        assert ev.ok  # correct on every case the search has
        seen["hard"] = hard.digest
        return search.TuneResult(op.name, name, 2, 2, 0, base.latency_us, ev.latency_us, {}, hard.digest,
                                 best_op=hard, stop_reason="budget")

    monkeypatch.setattr(search, "tune", hard_coding_search)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["tune", str(op_dir), "--budget", "2", "--unseen-shapes", "2", "--json",
                                   "--db", str(tmp_path / "r.db"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    unseen = doc["unseen"]
    assert [s["kind"] for s in unseen["shapes"]] == ["ragged", "single"]
    assert unseen["fell_back"] and unseen["checked"][0]["digest"] == seen["hard"]
    assert unseen["checked"][0]["failing_shape"] == "x float32[63, 2999], y float32[63, 2999]"
    original = Operator.load(op_dir)
    assert unseen["chosen"] == doc["best_digest"] == original.digest  # nothing else was correct
    assert Operator.load(out / "best").files == original.files
    assert "## Unseen shapes" in (out / "report.md").read_text()


def test_optimize_returns_the_next_best_when_its_best_fails_an_unseen_shape(tmp_path, monkeypatch, op_dir):
    import ascendopt.agent as agent

    def hard_coding_agent(op, cases, beval, rewriter, bank, cfg=None, on_event=None, callbacks=()):
        hard = _hard_coded(op)
        base, ev = beval.evaluate(op, cases), beval.evaluate(hard, cases)
        res = agent.OptimizeResult(op.name, base.latency_us, ev.latency_us, hard, stop_reason="budget")
        return res

    monkeypatch.setattr(agent, "optimize", hard_coding_agent)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["optimize", str(op_dir), "--budget", "2", "--unseen-shapes", "1", "--json",
                                   "--db", str(tmp_path / "r.db"), "--bank", str(tmp_path / "b.db"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)["operators"][0]
    original = Operator.load(op_dir)
    assert doc["unseen"]["fell_back"] and doc["unseen"]["shapes"][0]["kind"] == "ragged"
    assert doc["best_digest"] == original.digest and doc["speedup"] == 1.0
    assert json.loads((out / "result.json").read_text())["unseen"]["checked"][0]["failing_shape"].startswith(
        "x float32[63, 2999]")
    assert "<h2>Unseen shapes</h2>" in (out / "report.html").read_text()
