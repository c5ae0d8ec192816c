"""A benchmark report that reads at the scale of a hundred operators (issue 35 item 4).

From a bench output directory (its ``ledger.jsonl``, else its ``bench.json``) this builds:

* a per-operator table, sortable by any column (a few lines of inline script; the page still
  opens from disk): category, reference latency, roofline share before optimization and, per
  method, the speedup and the *headroom captured*;
* a per-category summary per method: operators, GM speedup, fast_1.0 / 1.2 / 2.0 and the median
  headroom captured, with the reference method's published figures beside (marked as theirs);
* an SVG plot of each operator's speedup (log scale) against its roofline share before
  optimization, one colour per method.

Definitions. The roofline share of the original is ``achieved_fraction`` = t_roof / t_ref (the
modelled lower bound over the modelled time, :mod:`ascendopt.profile.roofline`), so t_roof =
share x t_ref and the headroom captured is (t_ref - t_best) / (t_ref - t_roof) = (1 - 1/s) /
(1 - share) for speedup s: 0 when nothing was gained, 1 when the best reaches the original's
roofline (it may exceed 1: a rewrite that removes work lowers the roofline itself). It is not
defined when the share is unknown or 1. An operator's speedup per method is the geometric mean
over seeds; fast_p counts speedups strictly above p, as :mod:`ascendopt.bench.metrics` does.

The category of an operator is the directory its operator directory sits in (``math`` for
``.../src/math/pows``, ``level1`` for ``ops/level1/muls_custom``); ``bench.json`` alone does not
name directories, so there it is the level.
"""

from __future__ import annotations

import html
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.bench.metrics import geomean
from ascendopt.bench.report import COLORS

FAST = (1.0, 1.2, 2.0)
ALL = "all"
e = html.escape


@dataclass
class OpRow:
    """One operator: what every method made of it (speedups geometric-mean over seeds)."""

    op: str
    category: str
    reference_us: float | None = None
    roofline_before: float | None = None
    speedups: dict[str, float] = field(default_factory=dict)
    unseen_shapes: int | None = None
    fell_back: list[str] = field(default_factory=list)

    def headroom(self, method: str) -> float | None:
        """(t_ref - t_best) / (t_ref - t_roof) of the method's best (None: not defined)."""
        return headroom_captured(self.speedups.get(method), self.roofline_before)

    def to_dict(self, methods: Sequence[str]) -> dict[str, Any]:
        return {"op": self.op, "category": self.category, "reference_us": self.reference_us,
                "roofline_before": self.roofline_before, "unseen_shapes": self.unseen_shapes,
                "fell_back": self.fell_back,
                "methods": {m: {"speedup": self.speedups.get(m), "headroom_captured": self.headroom(m)}
                            for m in methods}}


def headroom_captured(speedup: float | None, share: float | None) -> float | None:
    """(1 - 1/speedup) / (1 - share): the share of the gap to the roofline a speedup closes."""
    if speedup is None or share is None or share >= 1.0 or speedup <= 0:
        return None
    return (1.0 - 1.0 / speedup) / (1.0 - share)


def category_of(op_dir: str | None, level: int | None = None) -> str:
    """The directory an operator directory sits in; ``level N`` without one."""
    if op_dir:
        parent = Path(op_dir).parent.name
        if parent:
            return parent
    return f"level {level}" if level else "unknown"


def load_trials(out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per (operator, method, seed): ``op, category, method, seed, reference_us, speedup,
    roofline_before``, from ``ledger.jsonl`` (categories from its operator directories) or else
    ``bench.json``; and what the document says about the run (budget, suite, published figures)."""
    from ascendopt.bench.metrics import Trial
    from ascendopt.bench.runner import LEDGER_NAME, PUBLISHED

    out = Path(out)
    meta: dict[str, Any] = {"published": PUBLISHED}
    doc_path = out / "bench.json" if out.is_dir() else out
    if doc_path.suffix == ".json" and doc_path.is_file():
        doc = json.loads(doc_path.read_text())
        meta.update({k: doc.get(k) for k in ("suite", "budget", "soc", "seeds")})
        meta["published"] = doc.get("published") or PUBLISHED
    ledger = out / LEDGER_NAME if out.is_dir() else (out if out.suffix == ".jsonl" else None)
    rows: list[dict[str, Any]] = []
    if ledger is not None and ledger.is_file():
        latest: dict[str, dict[str, Any]] = {}
        for line in ledger.read_text().splitlines():
            try:
                entry = json.loads(line)
                latest[entry["slug"]] = entry  # a pair recorded twice (rerun): the last line
            except (ValueError, KeyError, TypeError):
                continue
        for entry in latest.values():
            t = Trial.from_record(entry["trial"])
            cfg = entry.get("config") or {}
            meta.setdefault("budget", cfg.get("budget"))
            rows.append({"op": t.op, "category": category_of(cfg.get("op_dir"), t.level), "method": t.method,
                         "seed": t.seed, "reference_us": t.reference_us, "speedup": t.speedup,
                         "roofline_before": t.roofline_before, "unseen": _unseen(ledger.parent, entry["slug"])})
        return rows, meta
    if doc_path.is_file():
        for t in json.loads(doc_path.read_text()).get("trials", []):
            rows.append({"op": t["op"], "category": category_of(None, t.get("level")), "method": t["method"],
                         "seed": t["seed"], "reference_us": t.get("reference_us"), "speedup": t.get("speedup") or 1.0,
                         "roofline_before": t.get("roofline_before")})
        return rows, meta
    raise FileNotFoundError(f"{out}: neither {LEDGER_NAME} nor bench.json")


def _unseen(out: Path, slug: str) -> dict[str, Any] | None:
    """The pair's unseen-shape check (``runs/<slug>.json``): shapes checked and whether its best
    gave way; None when not recorded."""
    try:
        u = json.loads((out / "runs" / f"{slug}.json").read_text()).get("unseen")
    except (OSError, ValueError):
        return None
    return {"shapes": len(u.get("shapes", [])), "fell_back": bool(u.get("fell_back"))} if u else None


def operator_rows(trials: Sequence[dict[str, Any]]) -> tuple[list[OpRow], list[str]]:
    """One :class:`OpRow` per operator (category, then name order) and the methods in first-seen order."""
    methods = list(dict.fromkeys(t["method"] for t in trials))
    by_op: dict[str, OpRow] = {}
    per: dict[tuple[str, str], list[float]] = {}
    for t in trials:
        r = by_op.setdefault(t["op"], OpRow(t["op"], t["category"]))
        r.reference_us = r.reference_us if r.reference_us is not None else t.get("reference_us")
        r.roofline_before = r.roofline_before if r.roofline_before is not None else t.get("roofline_before")
        per.setdefault((t["op"], t["method"]), []).append(float(t["speedup"] or 1.0))
        u = t.get("unseen")
        if u:
            r.unseen_shapes = max(r.unseen_shapes or 0, u["shapes"])
            if u["fell_back"] and t["method"] not in r.fell_back:
                r.fell_back.append(t["method"])
    for (op, m), v in per.items():
        by_op[op].speedups[m] = geomean(v) or 1.0
    return sorted(by_op.values(), key=lambda r: (r.category, r.op)), methods


def _median(xs: Sequence[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return statistics.median(v) if v else None


def category_summary(rows: Sequence[OpRow], methods: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{category: {method: {operators, gm_speedup, fast_1.0, fast_1.2, fast_2.0,
    headroom_captured_median, headroom_defined}}}``, ``"all"`` first."""
    groups: dict[str, list[OpRow]] = {ALL: list(rows)}
    for r in rows:
        groups.setdefault(r.category, []).append(r)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for g, members in groups.items():
        out[g] = {}
        for m in methods:
            mine = [r for r in members if m in r.speedups]
            if not mine:
                continue
            sp = [r.speedups[m] for r in mine]
            heads = [r.headroom(m) for r in mine]
            out[g][m] = {"operators": len(mine), "gm_speedup": geomean(sp),
                         **{f"fast_{p}": sum(s > p for s in sp) / len(sp) for p in FAST},
                         "headroom_captured_median": _median(heads),
                         "headroom_defined": sum(h is not None for h in heads)}
    return out


def document(out: Path) -> dict[str, Any]:
    """Everything the report shows (``--json``)."""
    trials, meta = load_trials(out)
    rows, methods = operator_rows(trials)
    return {"source": str(out), **{k: v for k, v in meta.items() if k != "published"},
            "methods": methods, "categories": category_summary(rows, methods),
            "operators": [r.to_dict(methods) for r in rows], "published": meta["published"]}


# ------------------------------------------------------------------------------ HTML
def _num(v: float | None, fmt: str) -> str:
    """A table cell whose sort key is the number (missing values sort last)."""
    key = "" if v is None else f"{v:.6g}"
    shown = "-" if v is None else (f"{100 * v:.1f}%" if fmt == "pct" else fmt.format(v))
    return f"<td data-v='{key}'>{shown}</td>"


def _summary_table(doc: dict[str, Any]) -> str:
    cols = (("operators", "ops", "{:.0f}"), ("gm_speedup", "GM speedup", "{:.3f}x"),
            ("fast_1.0", "fast<sub>1.0</sub>", "pct"), ("fast_1.2", "fast<sub>1.2</sub>", "pct"),
            ("fast_2.0", "fast<sub>2.0</sub>", "pct"), ("headroom_captured_median", "median headroom captured", "pct"))
    head = "<tr><th>category</th><th>method</th>" + "".join(f"<th>{h}</th>" for _, h, _ in cols) + "</tr>"
    body = []
    for g, by_m in doc["categories"].items():
        for m, s in by_m.items():
            body.append(f"<tr><td>{e(g)}</td><td>{e(m)}</td>" + "".join(_num(s.get(k), f) for k, _, f in cols) + "</tr>")
        if g == ALL:
            for m, pub in doc.get("published", {}).items():
                body.append(f"<tr class='pub'><td>all</td><td>{e(m)} (published, theirs)</td>"
                            + "".join(_num(pub.get(k), f) if k in pub else "<td></td>" for k, _, f in cols) + "</tr>")
    return f"<table class='sortable'><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


def _operator_table(doc: dict[str, Any]) -> str:
    methods = doc["methods"]
    head = ("<tr><th>operator</th><th>category</th><th>reference</th><th>roofline share before</th>"
            + "".join(f"<th>{e(m)} speedup</th><th>{e(m)} headroom captured</th>" for m in methods)
            + "<th>unseen shapes</th><th>best gave way (method)</th></tr>")
    body = []
    for r in doc["operators"]:
        cells = "".join(_num(r["methods"][m]["speedup"], "{:.3f}x") + _num(r["methods"][m]["headroom_captured"], "pct")
                        for m in methods)
        body.append(f"<tr><td>{e(r['op'])}</td><td>{e(r['category'])}</td>{_num(r['reference_us'], '{:.2f} us')}"
                    f"{_num(r['roofline_before'], 'pct')}{cells}{_num(r['unseen_shapes'], '{:.0f}')}"
                    f"<td>{e(', '.join(r['fell_back']))}</td></tr>")
    return f"<table class='sortable'><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


def svg_scatter(doc: dict[str, Any], width: int = 720, height: int = 360) -> str:
    """Each operator's speedup (log scale, y) against its roofline share before (x), per method."""
    pts = [(m, r["op"], r["roofline_before"], r["methods"][m]["speedup"]) for r in doc["operators"]
           for m in doc["methods"] if r["roofline_before"] is not None and r["methods"][m]["speedup"]]
    if not pts:
        return "<p>no operator with a known roofline share</p>"
    hi = max(2.0, max(s for *_, s in pts) * 1.1)
    pl, pr, pt, pb = 56, 150, 12, 36

    def x(v: float) -> float:
        return pl + (width - pl - pr) * min(max(v, 0.0), 1.0)

    def y(s: float) -> float:
        return pt + (height - pt - pb) * (1 - math.log(max(s, 1.0)) / math.log(hi))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="11">', f'<line x1="{pl}" y1="{height - pb}" x2="{width - pr}" y2="{height - pb}" stroke="#999"/>',
           f'<line x1="{pl}" y1="{pt}" x2="{pl}" y2="{height - pb}" stroke="#999"/>']
    for i in range(6):
        v = i / 5
        out.append(f'<text x="{x(v) - 10:.1f}" y="{height - pb + 14}">{100 * v:.0f}%</text>')
    ticks = [1.0, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0]
    for s in [t for t in ticks if t <= hi]:
        out.append(f'<line x1="{pl}" y1="{y(s):.1f}" x2="{width - pr}" y2="{y(s):.1f}" stroke="#eee"/>'
                   f'<text x="6" y="{y(s) + 4:.1f}">{s:g}x</text>')
    out.append(f'<text x="{(pl + width - pr) / 2 - 110:.0f}" y="{height - 4}">roofline share before optimization</text>')
    for j, m in enumerate(doc["methods"]):
        col = COLORS[j % len(COLORS)]
        for mm, op, share, s in pts:
            if mm == m:
                out.append(f'<circle cx="{x(share):.1f}" cy="{y(s):.1f}" r="3.5" fill="{col}" fill-opacity="0.7">'
                           f'<title>{e(op)} / {e(m)}: {s:.3f}x at {100 * share:.1f}% of roofline</title></circle>')
        out.append(f'<circle cx="{width - pr + 16}" cy="{pt + 16 * j + 4}" r="4" fill="{col}"/>'
                   f'<text x="{width - pr + 26}" y="{pt + 16 * j + 8}">{e(m)}</text>')
    out.append("</svg>")
    return "".join(out)


#: Click a header to sort by that column (numbers by value, missing last; again to reverse).
_SORT_JS = """<script>
document.querySelectorAll('table.sortable th').forEach(function(th){th.style.cursor='pointer';
th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,
d=th.dataset.dir==='asc'?'desc':'asc';th.dataset.dir=d;var rows=Array.from(b.rows);
rows.sort(function(a,c){var x=a.cells[i],y=c.cells[i],u=x.dataset.v,w=y.dataset.v,r;
if(u!==undefined&&w!==undefined){if(u==='')return 1;if(w==='')return -1;r=parseFloat(u)-parseFloat(w);}
else{r=x.textContent.localeCompare(y.textContent);}return d==='asc'?r:-r;});
rows.forEach(function(r){b.appendChild(r);});});});
</script>"""


def render(doc: dict[str, Any], title: str = "ascendopt bench report") -> str:
    """The page (self-contained: inline styles, SVG and the sorting script)."""
    n = len(doc["operators"])
    return "".join([
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>"
        "body{font-family:sans-serif;max-width:1300px;margin:20px auto;color:#222}"
        "table{border-collapse:collapse;margin:8px 0;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
        "th{background:#f4f4f4}tr.pub td{color:#777;font-style:italic}</style></head><body>",
        f"<h1>{e(title)}</h1><p>{n} operators, methods {e(', '.join(doc['methods']))}"
        + (f", budget {doc['budget']}" if doc.get("budget") else "") + f"; from {e(doc['source'])}.</p>",
        "<p>Speedup: reference latency over the best correct one (geometric mean over seeds). Roofline share: "
        "the original's modelled lower bound over its modelled time. Headroom captured: (t<sub>ref</sub> - "
        "t<sub>best</sub>) / (t<sub>ref</sub> - t<sub>roof</sub>). fast<sub>p</sub>: share of operators with a "
        "speedup above p. Published rows are the reference method's figures (theirs: 101 cann-ops operators, "
        "910B2, budget 230), not ours. Unseen shapes: how many shapes the search never used each best was "
        "checked on (blank: not checked); a method named in the last column had its best fail one, and the "
        "next that passed all is what its speedup credits. Click a column header to sort.</p>",
        "<h2>Per category</h2>", _summary_table(doc),
        "<h2>Speedup against roofline share before optimization</h2>", svg_scatter(doc),
        "<h2>Per operator</h2>", _operator_table(doc), _SORT_JS, "</body></html>"])
