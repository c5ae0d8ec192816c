"""How the unseen-shape check fares on real operators: for each selected cann-ops operator, the
shapes derived from its cases (:mod:`ascendopt.evaluate.unseen`), how many of the first ones the
unmodified operator passes (kept as checks) and why it fails the others (dropped), and the
seconds the selection took on the simulator.

    python benchmarks/unseen_shapes.py --src /work/cannops/src --ops math/pows,math/cast [--count 8]

Held-out operators are refused by name before anything of theirs is loaded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HELD_OUT = {"grid_sample", "resize_upsample_trilinear", "upsample_bilinear2d", "upsample_bilinear2d_aa",
            "upsample_bilinear2d_aa_backward", "upsample_linear1d", "cross", "eye",
            "flash_attention_score_with_large_head_dim", "reshape", "scatter_reduce", "tril", "triu",
            "quant_batch_matmul_v3", "weight_quant_batch_matmul_v2", "instance_norm_v3", "adaptive_max_pool3d_grad"}


def one(sop, count: int) -> dict:
    from ascendopt.evaluate.unseen import generate
    from ascendopt.evaluate.unseen_check import UNSEEN_TIMEOUT_S, ShapeRunner, select_shapes
    from ascendopt.operator import Operator
    from ascendopt.session import script_session

    t0 = time.perf_counter()
    op = Operator.load(sop.dir)
    cases = sop.load_cases()
    derived = generate(cases, op)
    runner = ShapeRunner(script_session(soc=sop.soc).backend, UNSEEN_TIMEOUT_S)
    kept, dropped, _ = select_shapes(runner, op, derived, count)
    return {"op": f"{sop.dir.parent.name}/{sop.dir.name}", "cases": len(cases), "derived": len(derived),
            "kept": [f"{s.kind}: {s.describe()}" for s in kept],
            "dropped": [f"{d['kind']}: {d['shape']}: {d['reason'][:120]}" for d in dropped],
            "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True)
    ap.add_argument("--ops", required=True, help="comma-separated category/name")
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--out", type=Path, help="append JSON lines here")
    a = ap.parse_args(argv)
    from ascendopt.suites import load_suite

    wanted = [w.strip() for w in a.ops.split(",") if w.strip()]
    refused = [w for w in wanted if w.split("/")[-1] in HELD_OUT]
    if refused:
        print(f"held-out operators refused: {', '.join(refused)}", file=sys.stderr)
        return 2
    by_path = {f"{o.dir.parent.name}/{o.dir.name}": o for o in load_suite("cannops", a.src).ops}
    for w in wanted:
        if w not in by_path:
            print(f"{w}: not in the cannops suite", file=sys.stderr)
            continue
        row = one(by_path[w], a.count)
        print(f"{row['op']}: {row['cases']} cases, {row['derived']} derived, {len(row['kept'])} kept, "
              f"{len(row['dropped'])} dropped, {row['seconds']} s", flush=True)
        for k in row["kept"]:
            print(f"    kept    {k}")
        for d in row["dropped"]:
            print(f"    dropped {d}")
        if a.out:
            with a.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
