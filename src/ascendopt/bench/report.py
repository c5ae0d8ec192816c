"""The benchmark's self-contained HTML page (opens from disk: no scripts, fonts or files).

It shows what ``bench.json`` holds: per level (all operators first), a table of the metrics
per method with the reference method's published figures beside them, the budget curves
(geometric-mean speedup of the best so far against charged evaluations) as inline SVG, one row
per operator with each method's speedup linking to that pair's ``optimize``-style report, the
methods and their options, and the pairs that failed.
"""

from __future__ import annotations

import html
from typing import Any

COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
COLUMNS = (("operators", "ops", "{:.0f}"), ("gm_speedup", "GM speedup", "{:.3f}x"),
           ("fast_1.0", "fast<sub>1.0</sub>", "pct"),
           ("fast_1.2", "fast<sub>1.2</sub>", "pct"), ("fast_1.5", "fast<sub>1.5</sub>", "pct"),
           ("fast_2.0", "fast<sub>2.0</sub>", "pct"), ("correct_eval_rate", "correct evals", "pct"),
           ("improved_rate", "ops improved", "pct"), ("evals_to_first_improvement", "evals to 1st gain", "{:.1f}"),
           ("roofline_before", "roofline before", "pct"), ("roofline_after", "roofline after", "pct"),
           ("evals_per_minute", "evals/min/worker", "{:.1f}"))
e = html.escape


def _fmt(v: Any, f: str) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}%" if f == "pct" else f.format(v)


def _level_name(g: str) -> str:
    return "all operators" if g == "all" else ("level unknown" if g == "0" else f"level {g}")


def _metrics_table(doc: dict[str, Any], group: str) -> str:
    rows = ["<table><tr><th>method</th>" + "".join(f"<th>{h}</th>" for _, h, _ in COLUMNS) + "</tr>"]
    for m, by_level in doc["metrics"].items():
        if group not in by_level:
            continue
        g = by_level[group]
        rows.append(f"<tr><td><b>{e(m)}</b></td>" + "".join(f"<td>{_fmt(g.get(k), f)}</td>" for k, _, f in COLUMNS)
                    + "</tr>")
    if group == "all":
        for m, pub in doc.get("published", {}).items():
            rows.append(f"<tr class='pub'><td>{e(m)} (published)</td>"
                        + "".join(f"<td>{_fmt(pub.get(k), f) if k in pub else ''}</td>" for k, _, f in COLUMNS)
                        + "</tr>")
    rows.append("</table>")
    return "".join(rows)


def svg_curves(curves: dict[str, list[float]], width: int = 640, height: int = 260) -> str:
    """Lines of GM speedup (y) against charged evaluations (x), one per method."""
    series = {m: c for m, c in curves.items() if c}
    if not series:
        return "<p>no finished runs</p>"
    n = max(len(c) for c in series.values()) - 1
    hi = max(max(c) for c in series.values())
    hi = hi * 1.05 if hi > 1.0 else 1.05
    pl, pr, pt, pb = 52, 130, 12, 32

    def x(k: float) -> float:
        return pl + (width - pl - pr) * (k / max(n, 1))

    def y(v: float) -> float:
        return pt + (height - pt - pb) * (1 - (v - 1.0) / (hi - 1.0))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="11">',
           f'<line x1="{pl}" y1="{height - pb}" x2="{width - pr}" y2="{height - pb}" stroke="#999"/>',
           f'<line x1="{pl}" y1="{pt}" x2="{pl}" y2="{height - pb}" stroke="#999"/>']
    for i in range(5):
        v = 1.0 + (hi - 1.0) * i / 4
        out.append(f'<line x1="{pl}" y1="{y(v):.1f}" x2="{width - pr}" y2="{y(v):.1f}" stroke="#eee"/>'
                   f'<text x="4" y="{y(v) + 4:.1f}">{v:.2f}x</text>')
    for i in range(5):
        k = round(n * i / 4)
        out.append(f'<text x="{x(k) - 6:.1f}" y="{height - pb + 14}">{k}</text>')
    out.append(f'<text x="{(pl + width - pr) / 2 - 60:.0f}" y="{height - 4}">charged evaluations</text>')
    for j, (m, c) in enumerate(series.items()):
        col = COLORS[j % len(COLORS)]
        pts = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in enumerate(c))
        out.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" points="{pts}"><title>{e(m)}</title>'
                   f'</polyline>')
        out.append(f'<rect x="{width - pr + 10}" y="{pt + 16 * j}" width="12" height="3" fill="{col}"/>'
                   f'<text x="{width - pr + 26}" y="{pt + 16 * j + 5}">{e(m)} {c[-1]:.3f}x</text>')
    out.append("</svg>")
    return "".join(out)


def _operator_table(doc: dict[str, Any]) -> str:
    methods = list(doc["metrics"])
    links: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for p in doc["pairs"]:
        if p.get("report"):
            links.setdefault((p["op"], p["method"]), []).append((p["seed"], p["report"]))
    rows = ["<table><tr><th>operator</th><th>level</th><th>reference</th>"
            + "".join(f"<th>{e(m)}</th>" for m in methods) + "</tr>"]
    for r in doc["operators"]:
        ref = "-" if r["reference_us"] is None else f"{r['reference_us']:.2f} us"
        cells = []
        for m in methods:
            sp = r["methods"].get(m)
            seeds = " ".join(f"<a href='{e(href)}'>s{s}</a>" for s, href in sorted(links.get((r["op"], m), [])))
            cells.append(f"<td>{'-' if sp is None else f'{sp:.3f}x'} <small>{seeds}</small></td>")
        rows.append(f"<tr><td>{e(r['op'])}</td><td>{r['level']}</td><td>{ref}</td>{''.join(cells)}</tr>")
    rows.append("</table>")
    return "".join(rows)


def render(doc: dict[str, Any], title: str = "ascendopt bench") -> str:
    """The page for a ``bench.json`` document."""
    groups = list(dict.fromkeys(g for by in doc["metrics"].values() for g in by))
    groups = ["all"] + sorted(g for g in groups if g != "all")
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>"
           "body{font-family:sans-serif;max-width:1100px;margin:20px auto;color:#222}"
           "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
           "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}td:first-child,th:first-child{text-align:left}"
           "tr.pub td{color:#777;font-style:italic}.fail{color:#b00}small a{color:#1f77b4}</style></head><body>",
           f"<h1>{e(title)}</h1>",
           f"<p>suite <b>{e(str(doc.get('suite', '')))}</b>, SoC {e(str(doc.get('soc', '')))}, budget "
           f"<b>{doc['budget']}</b> charged evaluations per operator, seeds {e(str(doc['seeds']))}; "
           f"{len(doc['trials'])} finished runs of {len(doc['pairs'])} planned"
           + ("" if doc.get("complete") else " (<b>incomplete</b>: rerun with --resume)") + ".</p>",
           "<p>Speedup = reference latency / best correct latency (the original counts, so never below 1.0x); "
           "fast<sub>p</sub> = share of operators with speedup &gt; p; correct evals = share of charged evaluations "
           "that were correct; evals to 1st gain = charged evaluations until the best first beat the reference "
           "(mean over improved operators); roofline = achieved fraction of the profile's roofline, original and "
           "best. Figures are means over seeds. Published rows: the reference method on 101 cann-ops operators "
           "(910B2, budget 230).</p>"]
    for g in groups:
        out.append(f"<h2>{e(_level_name(g))}</h2>")
        out.append(_metrics_table(doc, g))
        out.append(svg_curves({m: c.get(g, []) for m, c in doc["curves"].items()}))
    out += ["<h2>Per operator</h2>", _operator_table(doc), "<h2>Methods</h2><ul>"]
    for m, d in doc["methods"].items():
        opts = ", ".join(f"{e(k)}={e(str(v['default']))}" for k, v in d["options"].items())
        over = f"; overrides {e(str(d['overrides']))}" if d.get("overrides") else ""
        out.append(f"<li><b>{e(m)}</b>: {e(d['doc'])}<br><small>{opts}{over}</small></li>")
    out.append("</ul>")
    bad = [p for p in doc["pairs"] if p["status"] not in ("done", "finished")]
    if bad or doc.get("skipped"):
        out.append("<h2>Not finished</h2><ul>")
        out += [f"<li class='fail'>{e(p['op'])} / {e(p['method'])} / seed {p['seed']}: {e(p['status'])} "
                f"<small>{e(p['error'][-300:])}</small></li>" for p in bad]
        out += [f"<li class='fail'>{e(s['op_dir'])}: skipped: {e(s['reason'])}</li>" for s in doc.get("skipped", [])]
        out.append("</ul>")
    out.append("</body></html>")
    return "".join(out)
