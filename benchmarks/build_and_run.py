"""Cold and cached build time per operator, and run time of each operator's largest case.

    python benchmarks/build_and_run.py [OPS_DIR] [--json]

Cold = empty build cache except the emulation runtime library (built once first and reported
on its own line); cached = the same build again (content-hash hit). The largest case is the
one with the most input elements; "run" is the wall time of the runner process (tiling +
all cores + output), "modeled" the simulated task duration.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator
from ascendopt.session import script_session


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ops", nargs="?", default="ops")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="aobench-"))
    backend = script_session(cache_dir=cache).backend  # the simulator as the commands compose it, on this cache
    builder = backend.builder
    t0 = time.perf_counter()
    builder.runtime_lib()
    runtime_s = time.perf_counter() - t0
    rows = []
    for op_dir in sorted(p.parent for p in Path(args.ops).rglob("op_host")):
        op = Operator.load(op_dir)
        cases = load_op_cases(op_dir)
        largest = max(cases, key=lambda c: sum(t.size for t in c.inputs))
        dts = case_dtypes(largest)
        t0 = time.perf_counter()
        b = backend.build(op, dts)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        backend.build(op, dts)
        cached = time.perf_counter() - t0
        r = backend.run(b, op, largest, make_inputs(largest, 0)) if b.ok else None
        rows.append({"op": op.op_type, "case": largest.name, "elements": sum(t.size for t in largest.inputs),
                     "cold_build_s": round(cold, 3), "cached_build_s": round(cached, 4),
                     "run_s": round(r.seconds, 3) if r else None, "blocks": r.block_dim if r else None,
                     "modeled_us": round(r.task_duration_us, 2) if r and r.task_duration_us else None,
                     "status": r.status.value if r else "compile_error"})
    if args.json:
        print(json.dumps({"runtime_build_s": runtime_s, "ops": rows}, indent=2))
        return
    print(f"emulation runtime library (once per toolchain): {runtime_s:.2f} s")
    print(f"{'op':<18}{'largest case':<28}{'elements':>10}{'cold s':>8}{'cached s':>10}{'run s':>7}{'blocks':>7}"
          f"{'modeled us':>12}  status")
    for r in rows:
        print(f"{r['op']:<18}{r['case'][:27]:<28}{r['elements']:>10}{r['cold_build_s']:>8.2f}{r['cached_build_s']:>10.4f}"
              f"{(r['run_s'] or 0):>7.2f}{(r['blocks'] or 0):>7}{(r['modeled_us'] or 0):>12.1f}  {r['status']}")
    print(f"median cold build {statistics.median(r['cold_build_s'] for r in rows):.2f} s, "
          f"median cached {statistics.median(r['cached_build_s'] for r in rows):.4f} s, "
          f"max run {max(r['run_s'] or 0 for r in rows):.2f} s")


if __name__ == "__main__":
    main()
