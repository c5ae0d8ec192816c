"""Evaluation turnaround on the simulator: cold, kernel-change and host-change evaluations.

For every operator under ops/ (or the given directories): one cold evaluation (fresh build
cache: runtime library and host PCH already built, operator never built), then alternating
kernel-change and host-change evaluations, where a change appends a numbered comment line to
the kernel (or host) source so the digest changes, and Stage II knob changes (a random value
of the operator's host-only tiling knobs, built through knob slots: see src/ascendopt/slots.py). Every evaluation is complete: build every
dtype combination, check every case with fresh inputs, profile the benchmark case.

Usage:
    python benchmarks/eval_turnaround.py [OP_DIR ...] [--repeats N] [--jobs J] [--json]

Targets on a 2-core machine: median host-change evaluation <= 1.5 s, kernel-change <= 4 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.operator import Operator
from ascendopt.session import script_session
from ascendopt.tiling.space import KnobSpace

ROOT = Path(__file__).resolve().parent.parent


def _changed(op: Operator, which: str, n: int) -> Operator:
    rel = op.kernel_file if which == "kernel" else next(k for k in sorted(op.host_files()) if k.endswith(".cpp"))
    return op.with_file(rel, op.files[rel] + f"\n// turnaround change {n}\n", origin=f"bench/{which}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ops", nargs="*", type=Path, help="operator directories (default: every op under ops/)")
    ap.add_argument("--repeats", type=int, default=3, help="kernel and host changes per operator")
    ap.add_argument("--jobs", type=int, default=0, help="threads inside one evaluation (0: one per core)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    dirs = args.ops or sorted(p.parent for p in (ROOT / "ops").rglob("op_host"))
    with tempfile.TemporaryDirectory(prefix="ao-turnaround-") as cache:
        session = script_session(cache_dir=Path(cache), jobs=args.jobs)  # what the commands compose, on this cache
        builder = session.backend.builder
        t = time.perf_counter()
        builder.runtime_lib()
        builder.host_prelude()
        setup_s = time.perf_counter() - t
        evaluator = session.evaluator(())
        rows = []
        for d in dirs:
            op, cases = Operator.load(d), load_op_cases(d)
            t = time.perf_counter()
            cold = evaluator.evaluate(op, cases)
            row = {"op": op.name, "cases": len(cases), "status": cold.status, "cold_s": time.perf_counter() - t,
                   "kernel_s": [], "host_s": [], "knob_s": [], "build_kernel_s": [], "build_host_s": []}
            space = KnobSpace.from_operator(op)
            host_knobs = [k for k in space.knobs if k.rebuild == "host"]
            rng = random.Random(op.name)
            for n in range(args.repeats):
                for which in ("kernel", "host"):
                    t = time.perf_counter()
                    ev = evaluator.evaluate(_changed(op, which, n), cases)
                    row[f"{which}_s"].append(time.perf_counter() - t)
                    row[f"build_{which}_s"].append(ev.timings["build_s"])
                    if ev.status != cold.status:
                        row["status"] += f" ({which} change: {ev.status})"
                if host_knobs:
                    cand = space.apply(op, {k.id: space.domain(k.id).sample(rng) for k in host_knobs})
                    t = time.perf_counter()
                    evaluator.evaluate(cand, cases)
                    row["knob_s"].append(time.perf_counter() - t)
            rows.append(row)
            if not args.json:
                print(f"  {op.name}: cold {row['cold_s']:.2f} s, kernel {statistics.median(row['kernel_s']):.2f} s, "
                      f"host {statistics.median(row['host_s']):.2f} s", file=sys.stderr)
    summary = {"setup_s": setup_s,
               "median_cold_s": statistics.median(r["cold_s"] for r in rows),
               "median_kernel_change_s": statistics.median(x for r in rows for x in r["kernel_s"]),
               "median_host_change_s": statistics.median(x for r in rows for x in r["host_s"]),
               "median_knob_change_s": statistics.median(x for r in rows for x in r["knob_s"])}
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
        return 0
    print(f"\nruntime library + host PCH (once per toolchain): {setup_s:.2f} s\n")
    print(f"{'operator':<22} {'cases':>5} {'status':<10} {'cold s':>7} {'kernel s':>9} {'host s':>7} "
          f"{'(build k/h s)':>14} {'knob s':>7}")
    for r in rows:
        print(f"{r['op']:<22} {r['cases']:>5} {r['status']:<10} {r['cold_s']:>7.2f} "
              f"{statistics.median(r['kernel_s']):>9.2f} {statistics.median(r['host_s']):>7.2f} "
              f"{statistics.median(r['build_kernel_s']):>7.2f}/{statistics.median(r['build_host_s']):.2f}"
              f" {statistics.median(r['knob_s']) if r['knob_s'] else float('nan'):>7.2f}")
    print(f"\nmedian: cold {summary['median_cold_s']:.2f} s, kernel change {summary['median_kernel_change_s']:.2f} s "
          f"(target <= 4), host change {summary['median_host_change_s']:.2f} s (target <= 1.5), "
          f"knob change (slots) {summary['median_knob_change_s']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
