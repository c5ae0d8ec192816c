"""The Stage I operator split (issue 37): the cann-ops operators that pass and whose benchmark case
runs below a share of the simulator's roofline, split in two by a seeded draw. Rewrites are
written and tuned on the ``tune`` half; the ``held_out`` half stays unopened until the rewrites are
judged on it. Both halves are reported.

    python benchmarks/stage1_split.py HEADROOM.jsonl --seed 37 --below 0.5 --out benchmarks/results/stage1_split.json

HEADROOM.jsonl is the output of ``benchmarks/cannops_headroom.py`` (one row per operator).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def split(rows: list[dict], seed: int, below: float) -> dict:
    """Operators whose check passed and whose share is below ``below``, sorted, then a
    ``random.Random(seed)`` sample of half of them (rounded down) as the tuning half."""
    pool = sorted(r["op"] for r in rows if r.get("status") == "ok" and r.get("share") is not None
                  and r["share"] < below)
    tune = sorted(random.Random(seed).sample(pool, len(pool) // 2))
    held = sorted(set(pool) - set(tune))
    return {"seed": seed, "below": below, "operators": len(pool), "tune": tune, "held_out": held,
            "shares": {r["op"]: round(r["share"], 4) for r in rows if r["op"] in pool}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("headroom", type=Path)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--below", type=float, default=0.5)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.headroom.read_text().splitlines() if line.strip()]
    doc = split(rows, args.seed, args.below)
    doc["source"] = str(args.headroom.name)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{doc['operators']} operators below {args.below}: {len(doc['tune'])} to tune on, "
          f"{len(doc['held_out'])} held out (seed {args.seed})")


if __name__ == "__main__":
    main()
