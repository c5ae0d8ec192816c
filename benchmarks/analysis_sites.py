"""Every site the source analyses find, per operator: each de-optimizing motif's sites, each
Stage I transform's sites and the Stage II knob space (``tune --show-space --json``), as JSON.
The record a refactoring of the C++ analysis layer is compared against (issue 31): run it
before and after, then ``--diff`` the two files.

    python benchmarks/analysis_sites.py OUT.json [--cannops /work/cannops/src] [--ops GLOB,...]
    python benchmarks/analysis_sites.py --diff BEFORE.json AFTER.json
    python benchmarks/analysis_sites.py --summary FULL.json OUT.json

``--summary`` keeps, per operator and analysis, the number of sites (knobs) and a SHA-256 of
the full result (what is committed when the full record is large); ``--diff`` compares two
full records, two summaries, or a summary with a full record.

Operators: every operator directory under the project's ``ops/`` and, with ``--cannops``, every
directory holding ``op_host`` and ``op_kernel`` under that cann-ops checkout. A matcher that raises
is recorded as ``{"error": ...}`` (the callers treat it as finding nothing).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import sys
import time
from pathlib import Path

from ascendopt.operator import Operator
from ascendopt.suites import OWN_OPS, operator_dirs


def _sites(t, op: Operator) -> list | dict:
    try:
        return [[s.file, s.line, s.label, s.start, s.end, s.detail] for s in t.find(op)]
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        return {"error": f"{type(e).__name__}: {e}"[:300]}


def _space(op: Operator, soc: str) -> dict:
    from ascendopt.tiling.space import KnobSpace

    try:
        return KnobSpace.from_operator(op, soc=soc).to_json()
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"[:300]}


def _transforms():
    """(motifs, rewrites): instances in registry order, from wherever the registries live."""
    try:
        from ascendopt.transforms import MOTIFS, REWRITES  # after issue 31
    except ImportError:  # before it
        from ascendopt.refine.transforms import REWRITES
        from ascendopt.rewind.motifs.base import MOTIFS
    return ([c() for c in MOTIFS.all().values()], [c() for c in REWRITES.all().values()])


def collect(dirs: list[tuple[str, Path]], soc: str) -> dict:
    motifs, rewrites = _transforms()
    out: dict = {}
    for key, d in dirs:
        t0 = time.perf_counter()
        try:
            op = Operator.load(d)
        except Exception as e:  # noqa: BLE001
            out[key] = {"error": f"does not load: {e}"[:300]}
            continue
        out[key] = {"motifs": {m.name: _sites(m, op) for m in motifs},
                    "rewrites": {r.name: _sites(r, op) for r in rewrites},
                    "space": _space(op, soc)}
        print(f"{key}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return out


def _digest(v) -> dict:
    if isinstance(v, dict) and set(v) == {"n", "sha256"}:
        return v
    n = len(v) if isinstance(v, list) else len(v.get("knobs", [])) if isinstance(v, dict) and "knobs" in v else -1
    return {"n": n, "sha256": hashlib.sha256(json.dumps(v, sort_keys=True).encode()).hexdigest()}


def summarize(full: dict) -> dict:
    """Per operator: each analysis's count and digest."""
    out = {}
    for key, x in full.items():
        if "error" in x and len(x) == 1:
            out[key] = x
            continue
        out[key] = {"motifs": {k: _digest(v) for k, v in x["motifs"].items()},
                    "rewrites": {k: _digest(v) for k, v in x["rewrites"].items()},
                    "space": _digest(x["space"])}
    return out


def diff(a: dict, b: dict) -> list[str]:
    """One line per (operator, analysis) whose result differs."""
    if _is_summary(a) != _is_summary(b):
        a, b = summarize(a), summarize(b)
    lines = []
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x is None or y is None:
            lines.append(f"{key}: only in {'after' if x is None else 'before'}")
            continue
        for part in ("motifs", "rewrites"):
            xs, ys = x.get(part, {}), y.get(part, {})
            for name in sorted(set(xs) | set(ys)):
                if xs.get(name) != ys.get(name):
                    lines.append(f"{key} {part}/{name}: {_short(xs.get(name))} -> {_short(ys.get(name))}")
        if x.get("space") != y.get("space"):
            lines.append(f"{key} space differs")
        if x.get("error") != y.get("error"):
            lines.append(f"{key}: {x.get('error')} -> {y.get('error')}")
    return lines


def _is_summary(d: dict) -> bool:
    x = next((v for v in d.values() if "motifs" in v), None)
    return x is not None and all(isinstance(v, dict) and set(v) == {"n", "sha256"} for v in x["motifs"].values())


def _short(v) -> str:
    if v is None:
        return "absent"
    if isinstance(v, dict) and set(v) == {"n", "sha256"}:
        return f"{v['n']} ({v['sha256'][:12]})"
    if isinstance(v, dict):
        return v.get("error", "?")
    return f"{len(v)} sites [" + "; ".join(f"{s[0]}:{s[1]} {s[2]}" for s in v)[:400] + "]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?")
    ap.add_argument("--cannops", help="cann-ops src/ directory")
    ap.add_argument("--ops", default="", help="key globs (own/level1/x, cannops/math/y), comma-separated")
    ap.add_argument("--soc", default="Ascend910B2")
    ap.add_argument("--diff", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--summary", nargs=2, metavar=("FULL", "OUT"))
    args = ap.parse_args()
    if args.summary:
        full = json.loads(Path(args.summary[0]).read_text())
        Path(args.summary[1]).write_text(_dump(summarize(full)))
        return
    if args.diff:
        a, b = (json.loads(Path(f).read_text()) for f in args.diff)
        lines = diff(a, b)
        print("\n".join(lines) if lines else "identical")
        sys.exit(1 if lines else 0)
    dirs = [(f"own/{d.relative_to(OWN_OPS)}", d) for d in operator_dirs(OWN_OPS)]
    if args.cannops:
        root = Path(args.cannops)
        dirs += [(f"cannops/{d.relative_to(root)}", d) for d in operator_dirs(root)]
    pats = [g for g in args.ops.split(",") if g]
    dirs = [(k, d) for k, d in dirs if not pats or any(fnmatch.fnmatch(k, g) for g in pats)]
    Path(args.out).write_text(_dump(collect(dirs, args.soc)))


def _dump(doc: dict) -> str:
    """JSON with one operator per line (a few hundred lines for the whole corpus, not 30,000)."""
    rows = (f"{json.dumps(k)}: {json.dumps(doc[k], sort_keys=True)}" for k in sorted(doc))
    return "{\n" + ",\n".join(rows) + "\n}\n"


if __name__ == "__main__":
    main()
