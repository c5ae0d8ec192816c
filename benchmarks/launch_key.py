"""Launch-key cost: tiling-only runs on all cases (equivalent candidates) and on the benchmark
case (Stage II's program oracle), with and without the evaluator's cache of seeded inputs.

    python benchmarks/launch_key.py [--ops add_broadcast,gelu,rms_norm] [--repeats 5]

Prints the median milliseconds per key after one warm-up (builds cached).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import InputCache, benchmark_cases
from ascendopt.operator import Operator
from ascendopt.session import script_session

ROOT = Path(__file__).resolve().parent.parent


def _median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default="add_broadcast,gelu,rms_norm")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    op_dirs = {p.parent.name: p.parent for p in (ROOT / "ops").rglob("op_host")}
    print(f"{'op':16s} {'cases':>5s} {'all, no cache':>14s} {'all, cache':>11s} {'bench, no cache':>16s} "
          f"{'bench, cache':>13s}  (ms per key)")
    for name in args.ops.split(","):
        op = Operator.load(op_dirs[name])
        cases = load_op_cases(op_dirs[name])
        bench = benchmark_cases(cases)
        ev = script_session(seed=0, jobs=2).evaluator(())
        row = []
        for cache in (InputCache(limit_bytes=0), InputCache()):
            ev.launch_inputs = cache
            ev.launch_key(op, cases), ev.launch_key(op, bench)  # warm-up: builds, cache
            row.append((_median_ms(lambda: ev.launch_key(op, cases), args.repeats),
                        _median_ms(lambda: ev.launch_key(op, bench), args.repeats)))
        (a0, b0), (a1, b1) = row
        print(f"{name:16s} {len(cases):5d} {a0:14.0f} {a1:11.0f} {b0:16.0f} {b1:13.0f}")


if __name__ == "__main__":
    main()
