"""The self-contained HTML report of one ``ascendopt optimize`` run (opens from disk).

Everything it shows is read from the run's records and the :class:`OptimizeResult`: the
trajectory (latency per charged evaluation, coloured by stage, failures marked), the pipe
utilisation of the original and of the best candidate side by side, the accepted changes with
their diffs and the experiences that led to them, the lineage of each accepted Stage I
candidate (the diagnosis it was made from, the experiences and failure rules that produced it,
its outcome), the budget spent by stage, and LLM usage when an LLM was used. No external files, scripts or fonts.
"""

from __future__ import annotations

import html
import math
from typing import Any

from ascendopt.agent import OptimizeResult, stage_of
from ascendopt.evaluate.store import EvalRecord

STAGE_COLORS = {"original": "#222222", "rewind": "#9467bd", "stage1": "#d62728", "stage2": "#1f77b4"}
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")


def trajectory(records: list[EvalRecord]) -> list[dict[str, Any]]:
    """Charged evaluations in order: index, stage, status, latency."""
    out = []
    for r in records:
        if not r.charged:
            continue
        ev = r.evaluation
        out.append({"i": len(out) + 1, "stage": stage_of(ev.origin), "origin": ev.origin, "status": ev.status,
                    "latency_us": ev.latency_us, "digest": ev.digest[:12], "error_kind": ev.error_kind})
    return out


def _svg_trajectory(points: list[dict[str, Any]], width: int = 760, height: int = 260) -> str:
    ok = [p for p in points if p["latency_us"]]
    if not ok:
        return "<p>no correct evaluation to plot</p>"
    lo, hi = min(p["latency_us"] for p in ok), max(p["latency_us"] for p in ok)
    lo_l, hi_l = math.log(lo), math.log(hi if hi > lo else lo * 1.01)
    n = max(len(points), 2)
    pad_l, pad_b, pad_t = 60, 30, 20

    def x(i: int) -> float:
        return pad_l + (width - pad_l - 10) * (i - 1) / (n - 1)

    def y(v: float) -> float:
        return pad_t + (height - pad_t - pad_b) * (1 - (math.log(v) - lo_l) / (hi_l - lo_l))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<line x1="{pad_l}" y1="{height - pad_b}" x2="{width - 10}" y2="{height - pad_b}" stroke="#999"/>',
             f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{height - pad_b}" stroke="#999"/>',
             f'<text x="4" y="{y(hi) + 4:.1f}">{hi:.2f} us</text>',
             f'<text x="4" y="{y(lo) + 4:.1f}">{lo:.2f} us</text>',
             f'<text x="{width / 2:.0f}" y="{height - 6}">charged evaluation</text>']
    best, best_pts = math.inf, []
    for p in points:
        col = STAGE_COLORS.get(p["stage"], "#777")
        title = html.escape(f"#{p['i']} {p['origin']} {p['status']} {p['latency_us'] or ''}")
        if p["latency_us"]:
            parts.append(f'<circle cx="{x(p["i"]):.1f}" cy="{y(p["latency_us"]):.1f}" r="3.5" fill="{col}">'
                         f'<title>{title}</title></circle>')
            if p["latency_us"] < best:
                best = p["latency_us"]
            best_pts.append(f"{x(p['i']):.1f},{y(best):.1f}")
        else:
            parts.append(f'<text x="{x(p["i"]) - 3:.1f}" y="{pad_t - 6}" fill="{col}">×<title>{title}</title></text>')
    if best_pts:
        parts.append(f'<polyline points="{" ".join(best_pts)}" fill="none" stroke="#2ca02c" stroke-width="1.5"/>')
    lx = pad_l + 10
    for stage, col in STAGE_COLORS.items():
        parts.append(f'<circle cx="{lx}" cy="{height - pad_b + 18}" r="4" fill="{col}"/>'
                     f'<text x="{lx + 7}" y="{height - pad_b + 22}">{stage}</text>')
        lx += 80
    parts.append(f'<text x="{lx}" y="{height - pad_b + 22}" fill="#2ca02c">— best so far; × failed</text>')
    parts.append("</svg>")
    return "".join(parts)


def _pipe_table(profiles: dict[str, dict[str, Any] | None]) -> str:
    rows = ["<table><tr><th>pipe</th>" + "".join(f"<th>{html.escape(k)}</th>" for k in profiles) + "</tr>"]
    for pipe in PIPES:
        vals = [((p or {}).get("pipe_ratio_mean") or {}).get(pipe) for p in profiles.values()]
        if all(v is None for v in vals):
            continue
        cells = "".join("<td>-</td>" if v is None else
                        f'<td><div class="bar" style="width:{100 * v:.0f}px"></div> {v:.0%}</td>' for v in vals)
        rows.append(f"<tr><td>{pipe}</td>{cells}</tr>")
    for key, label in (("task_duration_us", "task time (us)"), ("bound", "bound"), ("block_dim", "blocks"),
                       ("achieved_fraction", "roofline share")):
        vals = [(p or {}).get(key) for p in profiles.values()]
        fmt = [("-" if v is None else f"{v:.1%}" if key == "achieved_fraction" else
                f"{v:.3f}" if isinstance(v, float) else str(v)) for v in vals]
        rows.append(f"<tr><td>{label}</td>" + "".join(f"<td>{f}</td>" for f in fmt) + "</tr>")
    rows.append("</table>")
    return "".join(rows)


def lineage(result: OptimizeResult) -> list[dict[str, Any]]:
    """Each link of each accepted Stage I change with the step that proposed it: the diagnosis
    of the kernel it was made from, its experiences and rules, and its verdict."""
    out = []
    for a in result.accepted:
        for link in a.chain:
            for s in result.steps:
                t = next((t for t in s.get("tried", ()) if t["digest"] == link["digest"]), None)
                if s.get("stage") == "stage1" and t is not None:
                    out.append({"accepted": a.digest, "digest": t["digest"], "rewrite": t["rewrite"],
                                "site": t["site"], "diagnosis": s.get("diagnosis", ""),
                                "findings": s.get("findings", []),
                                "experiences": t.get("experiences", []), "rules": t.get("rules", []),
                                "verdict": t["verdict"], "latency_us": t["latency_us"]})
                    break
    return out


def _lineage_html(result: OptimizeResult, bank_titles: dict[str, str], rule_texts: dict[str, str]) -> str:
    e = html.escape
    rows = ["<h2>Lineage: evidence to outcome</h2>"]
    links = lineage(result)
    if not links:
        return rows[0] + "<p>no accepted Stage I candidate.</p>"
    rows.append("<table><tr><th>candidate</th><th>diagnosis</th><th>experiences</th><th>rules in force</th>"
                "<th>outcome</th></tr>")
    for x in links:
        exps = "<br>".join(f"<code>{e(i)}</code> {e(bank_titles.get(i, ''))}" for i in x["experiences"]) or "none"
        rules = "<br>".join(f"<code>{e(i)}</code> {e(rule_texts.get(i, ''))}" for i in x["rules"]) or "none"
        lat = f" ({x['latency_us']:.3f} us)" if x["latency_us"] else ""
        rows.append(f"<tr><td><code>{e(x['digest'][:12])}</code> {e(x['rewrite'])}: {e(x['site'])}</td>"
                    f"<td>{e(x['diagnosis'])}</td><td>{exps}</td><td>{rules}</td><td>{e(x['verdict'])}{lat}</td></tr>")
    return "".join(rows) + "</table>"


def render(result: OptimizeResult, records: list[EvalRecord], bank_titles: dict[str, str],
           usage: dict[str, Any] | None = None, title: str = "", rule_texts: dict[str, str] | None = None) -> str:
    """The report as one HTML string."""
    pts = trajectory(records)
    by_digest = {r.evaluation.digest: r.evaluation for r in records if r.evaluation.ok}
    first = next((r.evaluation for r in records if stage_of(r.evaluation.origin) == "original"), None)
    best = by_digest.get(result.best_op.digest) if result.best_op is not None else None
    prof = {"original": next(iter((first.profile or {}).values()), None) if first else None,
            "best": next(iter((best.profile or {}).values()), None) if best else None}
    e = html.escape
    sp = f"{result.speedup:.3f}x" if result.speedup else "-"
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title or result.op)}</title><style>"
           "body{font-family:sans-serif;max-width:980px;margin:20px auto;color:#222}"
           "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
           "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}"
           ".bar{display:inline-block;height:9px;background:#1f77b4}.fail{color:#b00}</style></head><body>",
           f"<h1>{e(title or result.op)}</h1>",
           f"<p>original {_us(result.baseline_us)} &rarr; best {_us(result.best_us)} (<b>{sp}</b>); "
           f"{result.charged} evaluations charged in {result.rounds} round(s), stop: {e(result.stop_reason)}; "
           f"{result.bank_added} experience(s) added to the bank; {result.seconds:.0f} s.</p>",
           "<h2>Budget by stage</h2><table><tr><th>stage</th><th>charged</th></tr>"
           + "".join(f"<tr><td>{e(k)}</td><td>{v}</td></tr>" for k, v in sorted(result.charged_by_stage.items()))
           + "</table>"]
    statuses: dict[str, int] = {}
    for p in pts:
        statuses[p["status"]] = statuses.get(p["status"], 0) + 1
    out.append("<p>statuses: " + ", ".join(f"{e(k)} {v}" for k, v in sorted(statuses.items())) + "</p>")
    out += ["<h2>Trajectory</h2>", _svg_trajectory(pts), "<h2>Pipe utilisation: original and best</h2>",
            _pipe_table(prof), "<h2>Accepted changes</h2>"]
    if not result.accepted:
        out.append("<p>none: the original is kept.</p>")
    for a in result.accepted:
        exps = "".join(f"<li><code>{e(i)}</code> {e(bank_titles.get(i, ''))}</li>" for i in a.experiences)
        out.append(f"<h3>{e(a.stage)}: {e(a.what)}</h3><p>{a.parent_us:.3f} us &rarr; {a.latency_us:.3f} us "
                   f"({a.parent_us / a.latency_us:.3f}x)</p>"
                   + (f"<p>guided by experiences:</p><ul>{exps}</ul>" if exps else "")
                   + f"<pre>{e(a.diff)}</pre>")
    out.append(_lineage_html(result, bank_titles, rule_texts or {}))
    out.append("<h2>Stage I steps</h2><table><tr><th>round</th><th>diagnosis</th><th>retrieved</th>"
               "<th>tried</th></tr>")
    for s in result.steps:
        if s.get("stage") != "stage1":
            continue
        hits = "<br>".join(e(f"{h['title']} ({h['score']:.2f})") for h in s.get("hits", []))
        tried = "<br>".join(
            (f"<span class='fail'>{e(t['rewrite'])}: {e(t['status'])} {e(t['error_kind'])}</span>"
             if t["status"] != "ok" else e(f"{t['rewrite']} {t['site']}: {t['verdict']} ({t['detail']})"))
            for t in s.get("tried", []))
        out.append(f"<tr><td>{s['round']}</td><td>{e(s.get('diagnosis', ''))}</td><td>{hits}</td><td>{tried}</td></tr>")
    out.append("</table>")
    if usage:
        out.append("<h2>LLM usage</h2><pre>" + e(str(usage)) + "</pre>")
    out.append("</body></html>")
    return "".join(out)


def _us(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f} us"
