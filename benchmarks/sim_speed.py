"""Simulator speed: builds every operator under ops/, runs its largest case (results + timing)
and prints op, elements, blocks, simulator wall time and modeled task duration.

    python benchmarks/sim_speed.py [--soc Ascend910B2] [--ops DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.operator import Operator
from ascendopt.session import script_session

ROOT = Path(__file__).resolve().parent.parent


def elements(case) -> int:
    return int(sum(np.prod(t.shape) for t in (*case.inputs, *case.outputs)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--soc", default=DEFAULT_SOC)
    ap.add_argument("--ops", default=str(ROOT / "ops"))
    ap.add_argument("--repeat", type=int, default=3, help="runs per op; the best wall time is reported")
    args = ap.parse_args()
    be = script_session(soc=args.soc).backend
    rows, notes = [], []
    for d in sorted(p.parent for p in Path(args.ops).glob("*/*/op_kernel")):
        name = f"{d.parent.name}/{d.name}"
        try:
            op = Operator.load(d)
            cases = load_op_cases(d)
        except Exception as e:  # noqa: BLE001 - report and skip
            notes.append(f"{name}: cannot load ({e})")
            continue
        if not cases:
            notes.append(f"{name}: no cases")
            continue
        case = max(cases, key=elements)
        build = be.build(op, case_dtypes(case))
        if not build.ok:
            notes.append(f"{name}: build failed, skipped")
            continue
        inputs = make_inputs(case, 0)
        best, rr = float("inf"), None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rr = be.run(build, op, case, inputs)
            best = min(best, time.perf_counter() - t0)
        if rr.status.value != "ok":
            notes.append(f"{name}: {case.name} {rr.status.value} ({rr.message[:120]}), skipped")
            continue
        rows.append((name, case.name, elements(case), rr.block_dim, best * 1e3, rr.task_duration_us))
    print(f"{'op':28} {'case':40} {'elements':>10} {'blocks':>6} {'sim ms':>8} {'model us':>9}")
    for r in rows:
        print(f"{r[0]:28} {r[1][:40]:40} {r[2]:>10} {r[3]:>6} {r[4]:>8.1f} {r[5]:>9.2f}")
    for n in notes:
        print("note:", n)


if __name__ == "__main__":
    main()
