"""Are Stage II's knobs tuning decisions? (issue 15, item 5)

For each operator, every knob of ``KnobSpace.from_operator`` is moved alone to up to
``--values`` admissible non-default values (its grid neighbours, nearest first, alternating
below/above the default); each config is evaluated on the operator's correctness cases. A knob
is **dead** when every value tried fails (build error, tiling error, wrong result, runtime
error): moving it never yields a working operator, so it is a fact of the code (a type size, a
dtype code, a tiling key, a value overwritten before use), not a decision. Reported per operator
and in total: knobs, dead knobs, dead share.

    python benchmarks/knob_quality.py --suite cannops --src /path/to/cann-ops/src \\
        --ops abs,add_custom,eye [--values 4] [--json OUT]

An operator whose own sources fail its cases is skipped (nothing to compare against).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ascendopt.session import script_session
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.space import KnobSpace


def trial_values(d: Domain, n: int) -> list[int]:
    """Up to ``n`` admissible non-default values, nearest to the default first, alternating
    below and above it."""
    grid = d.grid()
    if d.default in grid:
        i = grid.index(d.default)
        below, above = grid[:i][::-1], grid[i + 1:]
    else:
        below = [v for v in grid if v < d.default][::-1]
        above = [v for v in grid if v > d.default]
    out: list[int] = []
    while len(out) < n and (below or above):
        for side in (below, above):
            if side and len(out) < n:
                out.append(side.pop(0))
    return out


def measure(targets, n_values: int, log=print) -> dict:
    """``targets``: ``(Operator, cases)`` pairs. Returns the per-operator and total figures."""
    session = script_session(seed=0, jobs=1, profile_repeats=1)  # the evaluator the commands compose
    ev = session.evaluator(())
    rows = []
    for op, cases in targets:
        t0 = time.perf_counter()
        space = KnobSpace.from_operator(op, soc=session.soc)
        base = ev.evaluate(op, cases)
        if not base.ok:
            log(f"{op.name}: skipped, its own sources fail ({base.status})")
            rows.append({"op": op.name, "skipped": base.status})
            continue
        knobs = []
        for k in space.knobs:
            vals = trial_values(k.domain, n_values)
            evs = {v: ev.evaluate(space.apply(op, {k.id: v}, origin="knob_quality"), cases) for v in vals}
            dead = bool(vals) and all(not e.ok for e in evs.values())
            inert = bool(vals) and all(e.ok and e.latency_us == base.latency_us for e in evs.values())
            knobs.append({"id": k.id, "role": k.role, "default": k.default, "dead": dead, "inert": inert,
                          "tried": {str(v): e.status for v, e in evs.items()}})
        n_dead = sum(k["dead"] for k in knobs)
        n_inert = sum(k["inert"] for k in knobs)
        rows.append({"op": op.name, "knobs": len(knobs), "dead": n_dead, "inert": n_inert, "detail": knobs,
                     "seconds": round(time.perf_counter() - t0, 1)})
        log(f"{op.name:<20} knobs {len(knobs):>3}  dead {n_dead:>3}  inert {n_inert:>3}  "
            f"dead: {', '.join(k['id'] for k in knobs if k['dead']) or '-'}; "
            f"inert: {', '.join(k['id'] for k in knobs if k['inert']) or '-'}")
    total = sum(r.get("knobs", 0) for r in rows)
    dead = sum(r.get("dead", 0) for r in rows)
    inert = sum(r.get("inert", 0) for r in rows)
    return {"version": 1, "values_per_knob": n_values, "ops": rows, "knobs": total, "dead": dead,
            "dead_share": round(dead / total, 4) if total else 0.0, "inert": inert,
            "inert_share": round(inert / total, 4) if total else 0.0}


def main() -> None:
    from ascendopt.cli.common import load_targets

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="cannops")
    ap.add_argument("--src", type=Path, required=True, help="where the suite's operators live")
    ap.add_argument("--ops", required=True, help="comma-separated operator directory names")
    ap.add_argument("--values", type=int, default=4, help="non-default values tried per knob")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    names = [s for s in args.ops.split(",") if s]
    by_name = {op.name: (op, cases) for op, cases, _ in load_targets(None, args.suite, args.src)}
    by_dir = {op.root.name: v for v in by_name.values() for op in [v[0]]}
    missing = [n for n in names if n not in by_dir]
    if missing:
        sys.exit(f"not in suite {args.suite}: {', '.join(missing)}")
    t0 = time.perf_counter()
    out = measure([by_dir[n] for n in names], args.values)
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    print(f"total: {out['knobs']} knobs, {out['dead']} dead ({out['dead_share']:.1%}), {out['inert']} inert"
          f" ({out['inert_share']:.1%}); {out['wall_s']:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
