"""Markdown tables of an ``ascendopt bench`` output (its ``bench.json``), for the READMEs under
``benchmarks/results/``: per method (averaged over seeds, with each seed's GM), per level, and
per operator (speedup by method, geometric mean over seeds; per seed when they differ).

    python benchmarks/bench_tables.py benchmarks/results/bench_own_b100/bench.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f} %"


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}x"


def method_table(doc: dict[str, Any], group: str = "all") -> list[str]:
    """One row per method: GM (mean over seeds, and each seed's), fast_p, correctness, first gain,
    roofline share before and after."""
    rows = ["| method | GM speedup | GM per seed | fast_1.0 | fast_1.2 | fast_1.5 | fast_2.0 | correct evals "
            "| evals to 1st gain (mean) | roofline before -> after |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for m, by in doc["metrics"].items():
        g = by.get(group)
        if not g:
            continue
        seeds = " / ".join(_x(s.get("gm_speedup")) for _, s in sorted(g.get("per_seed", {}).items()))
        first = g.get("evals_to_first_improvement")
        rb, ra = g.get("roofline_before"), g.get("roofline_after")
        rows.append(f"| {m} | {_x(g.get('gm_speedup'))} | {seeds} | "
                    + " | ".join(_pct(g.get(f"fast_{p}")) for p in ("1.0", "1.2", "1.5", "2.0"))
                    + f" | {_pct(g.get('correct_eval_rate'))} | {'-' if first is None else f'{first:.1f}'} | "
                    + ("-" if rb is None or ra is None else f"{rb:.3f} -> {ra:.3f}") + " |")
    return rows


def operator_rows(doc: dict[str, Any]) -> list[str]:
    """One line per operator: speedup by method (geometric mean over seeds), the seeds' spread
    where they differ."""
    methods = list(doc["metrics"])
    by: dict[tuple[str, str], list[float]] = {}
    for t in doc["trials"]:
        if t.get("speedup") is not None:
            by.setdefault((t["op"], t["method"]), []).append(t["speedup"])
    lines = [f"Per operator (speedup by method: {' / '.join(methods)}; a range is min-max over seeds):", ""]
    for o in doc["operators"]:
        cells = []
        for m in methods:
            xs = by.get((o["op"], m), [])
            if not xs:
                cells.append("-")
                continue
            gm = math.exp(sum(math.log(x) for x in xs) / len(xs))
            lo, hi = f"{min(xs):.3f}", f"{max(xs):.3f}"
            cells.append(f"{gm:.3f}" if lo == hi else f"{gm:.3f} ({lo}-{hi})")
        lines.append(f"- {o['op']} (level {o['level']}): " + " / ".join(cells))
    return lines


def render(doc: dict[str, Any]) -> str:
    seeds = doc.get("seeds", [])
    ops = len(doc.get("operators", []))
    out = [f"suite {doc.get('suite')}, budget {doc.get('budget')}, {ops} operators, seeds {seeds}"
           + ("" if doc.get("complete") else " (incomplete)"), "", "All operators:", ""]
    out += method_table(doc)
    levels = sorted({g for by in doc["metrics"].values() for g in by if g != "all"})
    for lv in levels if len(levels) > 1 else []:
        out += ["", f"Level {lv}:", ""] + method_table(doc, lv)
    out += [""] + operator_rows(doc)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json", type=Path, help="an ascendopt bench output's bench.json")
    args = ap.parse_args(argv)
    try:
        doc = json.loads(args.bench_json.read_text())
        text = render(doc)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: cannot read a bench document from {args.bench_json}: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
