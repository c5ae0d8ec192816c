"""The report at scale (issue 35 item 4): per-operator rows with headroom captured, the
per-category summary, the scatter plot and the ``bench-report`` command, on a synthetic ledger."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from ascendopt.bench.metrics import Trial
from ascendopt.bench.report_scale import category_of, document, headroom_captured, render, svg_scatter
from ascendopt.cli import app


def _line(op, cat, method, seed, ref, best, before):
    evals = [[True, ref]] + ([[True, best]] if best else [])
    t = Trial(op, 1, method, seed, ref, [tuple(x) for x in evals], before)
    return json.dumps({"slug": f"{op}__{method}__s{seed}",
                       "config": {"op": op, "op_dir": f"/src/{cat}/{op}", "method": method, "seed": seed, "budget": 100},
                       "trial": t.record()})


@pytest.fixture
def ledger(tmp_path):
    lines = [
        _line("pows", "math", "full", 0, 10.0, 5.0, 0.2),      # 2x, share 0.2: (1 - 1/2) / 0.8 = 0.625
        _line("pows", "math", "stage2", 0, 10.0, 8.0, 0.2),    # 1.25x: 0.2 / 0.8 = 0.25
        _line("gather", "math", "full", 0, 10.0, None, 0.5),   # nothing: 1.0x, 0
        _line("gather", "math", "stage2", 0, 10.0, 9.0, 0.5),  # 1.11x: 0.1 / 0.5 = 0.2
        _line("relu", "activation", "full", 0, 4.0, 2.0, None),  # no roofline share: headroom undefined
        _line("relu", "activation", "full", 1, 4.0, 1.0, None),  # two seeds: GM of 2x and 4x
        "not json (a line cut short by a kill)",
    ]
    (tmp_path / "ledger.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_headroom_captured_is_the_closed_share_of_the_gap_to_the_roofline():
    assert headroom_captured(2.0, 0.5) == pytest.approx(1.0)  # t_best = t_roof
    assert headroom_captured(1.0, 0.3) == 0.0
    assert headroom_captured(2.0, 1.0) is None and headroom_captured(2.0, None) is None
    assert category_of("/x/src/math/pows") == "math" and category_of(None, 2) == "level 2"


def test_rows_and_category_summary_from_a_ledger(ledger):
    doc = document(ledger)
    assert doc["methods"] == ["full", "stage2"] and doc["budget"] == 100
    ops = {r["op"]: r for r in doc["operators"]}
    assert [r["op"] for r in doc["operators"]] == ["relu", "gather", "pows"]  # by category, then name
    assert ops["pows"]["methods"]["full"] == {"speedup": 2.0, "headroom_captured": pytest.approx(0.625)}
    assert ops["relu"]["methods"]["full"]["speedup"] == pytest.approx(8 ** 0.5)
    assert ops["relu"]["methods"]["full"]["headroom_captured"] is None
    assert "stage2" not in doc["categories"]["activation"]
    full = doc["categories"]["all"]["full"]
    assert full["operators"] == 3 and full["gm_speedup"] == pytest.approx((2.0 * 1.0 * 8 ** 0.5) ** (1 / 3))
    assert (full["fast_1.0"], full["fast_1.2"], full["fast_2.0"]) == pytest.approx((2 / 3, 2 / 3, 1 / 3))
    assert full["headroom_captured_median"] == pytest.approx(0.3125)  # median of 0.625 and 0
    assert full["headroom_defined"] == 2
    assert doc["categories"]["math"]["stage2"]["headroom_captured_median"] == pytest.approx((0.25 + 0.2) / 2)


def test_page_is_sortable_and_the_plot_has_one_point_per_operator_and_method(ledger):
    doc = document(ledger)
    page = render(doc)
    assert "table class='sortable'" in page and "<script>" in page and "(published, theirs)" in page
    svg = ET.fromstring(svg_scatter(doc))  # well-formed
    points = [c for c in svg.iter("{http://www.w3.org/2000/svg}circle") if c.find("{http://www.w3.org/2000/svg}title")
              is not None]
    assert len(points) == 4  # pows and gather x two methods; relu has no roofline share
    assert any("pows / full: 2.000x at 20.0%" in p[0].text for p in points)


def test_bench_report_command_writes_the_page_and_prints_json(ledger):
    res = CliRunner().invoke(app, ["bench-report", str(ledger), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["categories"]["all"]["full"]["operators"] == 3
    assert (ledger / "report_scale.html").read_text().startswith("<!DOCTYPE html>")
    res = CliRunner().invoke(app, ["bench-report", str(ledger / "missing")])
    assert res.exit_code == 2


def test_the_unseen_shape_check_of_each_pair_shows_per_operator(ledger):
    runs = ledger / "runs"
    runs.mkdir()
    (runs / "pows__full__s0.json").write_text(json.dumps({"unseen": {"shapes": [{"shape": "x"}] * 3,
                                                                     "fell_back": True}}))
    (runs / "pows__stage2__s0.json").write_text(json.dumps({"unseen": {"shapes": [{"shape": "x"}] * 2}}))
    ops = {r["op"]: r for r in document(ledger)["operators"]}
    assert (ops["pows"]["unseen_shapes"], ops["pows"]["fell_back"]) == (3, ["full"])
    assert (ops["gather"]["unseen_shapes"], ops["gather"]["fell_back"]) == (None, [])
    assert "<td>full</td></tr>" in render(document(ledger))
