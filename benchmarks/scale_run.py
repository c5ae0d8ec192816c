"""Issue 35 item 3: the benchmark at the reference method's scale.

``sample``: draws, by ``--seed``, at least ``--n`` operators from the cann-ops operators that
pass on the simulator (the ``ok`` rows of
``results/timing_issue30/cannops_headroom_after.jsonl``, profiled after the SyncAll and raw-GM
timing fixes), stratified by category: every category keeps at least one operator, the rest
is shared in proportion to the categories' sizes (largest remainders). The operators held out
for issue 37 (``results/stage1_split.json``'s ``held_out`` half) are left out while that issue
is open, so the scale run does not open them. The list is written to
``results/scale_sample.json`` and committed before the run it judges.

``run``: ``ascendopt bench`` of the committed sample with ``--methods`` (``full,stage2,bon``)
at ``--budget`` (100), seed 0, into ``--out``; run it again to continue (``--resume`` is added
when the output already has a store), over as many sittings as it needs.

``report``: ``ascendopt bench-report`` of the output (per-operator table, per-category
summary, speedup against roofline share) plus its JSON summary.

    python benchmarks/scale_run.py sample [--seed 35] [--n 100]
    python benchmarks/scale_run.py run --src <cann-ops>/src --out bench_scale [--workers 2]
    python benchmarks/scale_run.py report --out bench_scale
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
PASSING = RESULTS / "timing_issue30" / "cannops_headroom_after.jsonl"
SPLIT = RESULTS / "stage1_split.json"
SAMPLE = RESULTS / "scale_sample.json"
METHODS = "full,stage2,bon"


def passing_ops() -> list[str]:
    rows = [json.loads(line) for line in PASSING.read_text().splitlines() if line.strip()]
    return sorted(r["op"] for r in rows if r.get("status") == "ok")


def stratified(ops: list[str], n: int, seed: int) -> list[str]:
    """At least one operator per category, the remaining ``n - categories`` shared in proportion
    to category size by largest remainders; within a category a seeded shuffle decides."""
    by_cat: dict[str, list[str]] = defaultdict(list)
    for op in ops:
        by_cat[op.split("/")[0]].append(op)
    cats = sorted(by_cat)
    n = min(n, len(ops))
    if n < len(cats):
        raise SystemExit(f"--n {n} is below the number of categories ({len(cats)})")
    extra = n - len(cats)
    pool = sum(len(by_cat[c]) - 1 for c in cats)
    quota = {c: extra * (len(by_cat[c]) - 1) / pool if pool else 0.0 for c in cats}
    take = {c: 1 + math.floor(quota[c]) for c in cats}
    for c in sorted(cats, key=lambda c: (-(quota[c] - math.floor(quota[c])), c))[: n - sum(take.values())]:
        take[c] += 1
    rng = random.Random(seed)
    chosen: list[str] = []
    for c in cats:
        members = sorted(by_cat[c])
        rng.shuffle(members)
        chosen += members[: take[c]]
    return sorted(chosen)


def sample(args: argparse.Namespace) -> int:
    held = set(json.loads(SPLIT.read_text())["held_out"])
    ops = [op for op in passing_ops() if op not in held]
    chosen = stratified(ops, args.n, args.seed)
    per_cat: dict[str, int] = defaultdict(int)
    for op in chosen:
        per_cat[op.split("/")[0]] += 1
    SAMPLE.write_text(json.dumps({"seed": args.seed, "n": len(chosen), "from": len(ops),
                                  "excluded_held_out": sorted(held), "per_category": dict(sorted(per_cat.items())),
                                  "ops": chosen}, indent=1) + "\n")
    print(f"{len(chosen)} of {len(ops)} passing operators (seed {args.seed}) -> {SAMPLE}")
    print(", ".join(f"{c} {k}" for c, k in sorted(per_cat.items())))
    return 0


def run(args: argparse.Namespace) -> int:
    ops = json.loads(SAMPLE.read_text())["ops"]
    cmd = [sys.executable, "-m", "ascendopt.cli", "bench", "--suite", "cannops", "--src", args.src,
           "--methods", args.methods, "--budget", str(args.budget), "--seeds", "1", "--workers",
           str(args.workers), "--out", args.out, "--ops", ",".join(ops)]
    if Path(args.out, "bench.db").exists():
        cmd.append("--resume")
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


def report(args: argparse.Namespace) -> int:
    return subprocess.call([sys.executable, "-m", "ascendopt.cli", "bench-report", args.out, "--json"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("sample", "run", "report"))
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--src", help="cann-ops checkout's src/ (run)")
    ap.add_argument("--out", help="bench output directory (run, report)")
    ap.add_argument("--methods", default=METHODS)
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.what != "sample" and not args.out:
        ap.error(f"{args.what} needs --out")
    if args.what == "run" and not args.src:
        ap.error("run needs --src")
    return {"sample": sample, "run": run, "report": report}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
