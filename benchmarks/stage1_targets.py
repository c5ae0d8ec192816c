"""Issue 37's targets on the committed split (``benchmarks/results/stage1_split.json``).

Two parts, both resumable:

``run``: ``ascendopt bench`` of one half (``tune`` or ``held_out``) with the methods
``stage1,full,stage2`` at a budget (60 by default), into ``--out`` (``--resume`` continues it).

``table``: what the bench found, per half: for each offline rewrite, the operators of the half
where it has a site in the original kernel, and those where one of its candidates was correct,
added no hazard and was faster than its parent by more than tau (Stage I's own verdict,
:func:`ascendopt.evaluate.verdict.judge_improvement`, recomputed from the recorded evaluations);
the GM speedup of ``stage1`` and of ``full`` over ``stage2``; and the chains of accepted
Stage I rewrites.

    python benchmarks/stage1_targets.py run --half held_out --src <cann-ops>/src --out bench_s1_held
    python benchmarks/stage1_targets.py table --half held_out --src <cann-ops>/src --out bench_s1_held

``sites``: over every cann-ops operator that passes (the ``ok`` rows of
``results/timing_issue30/cannops_headroom_after.jsonl``), the share with at least one offline
proposal, and the operators per rewrite.

    python benchmarks/stage1_targets.py sites --src <cann-ops>/src

``share``: over the same passing operators, the share where Stage I alone finds a faster
correct kernel: ``ascendopt bench --methods stage1`` at ``--budget`` (20 by default; resumable)
on every passing operator, then the operators where some ``stage1/*`` candidate passed its
cases, added no hazard and beat its parent by more than tau (the verdict ``table`` uses).
Operators without an offline proposal cost one reference evaluation each.

    python benchmarks/stage1_targets.py share --src <cann-ops>/src --out bench_s1_all [--budget 20]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

SPLIT = Path(__file__).resolve().parent / "results" / "stage1_split.json"
PASSING = Path(__file__).resolve().parent / "results" / "timing_issue30" / "cannops_headroom_after.jsonl"
METHODS = "stage1,full,stage2"


def half_ops(half: str) -> list[str]:
    return list(json.loads(SPLIT.read_text())[half])


def bench(args: argparse.Namespace, ops: list[str], methods: str) -> int:
    """``ascendopt bench`` of ``ops`` into ``args.out``, resumed when it already has a store."""
    cmd = [sys.executable, "-m", "ascendopt.cli", "bench", "--suite", "cannops", "--src", args.src,
           "--methods", methods, "--budget", str(args.budget), "--seeds", "1", "--workers", str(args.workers),
           "--out", args.out, "--ops", ",".join(ops)]
    if Path(args.out, "bench.db").exists():
        cmd.append("--resume")
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd)


def run(args: argparse.Namespace) -> int:
    return bench(args, half_ops(args.half), METHODS)


def sites_by_rewrite(src: str, ops: list[str]) -> dict[str, set[str]]:
    """rewrite -> operators of ``ops`` where it has a site in the original kernel."""
    from ascendopt.operator import Operator
    from ascendopt.suites import load_suite
    from ascendopt.transforms import REWRITES
    from ascendopt.transforms.sites import anchored, sites_of

    found: dict[str, set[str]] = defaultdict(set)
    for sop in load_suite("cannops", src).ops:
        key = f"{sop.dir.parent.name}/{sop.name}"
        if key not in ops:
            continue
        op = Operator.load(sop.dir)
        for name, cls in REWRITES.all().items():
            t = cls()
            try:
                if anchored(t, op) and sites_of(t, op):
                    found[name].add(sop.name)
            except Exception:  # noqa: BLE001 - a matcher that cannot read a kernel finds nothing there
                continue
    return found


def faster_by_rewrite(out: str) -> tuple[dict[str, set[str]], dict[str, list[list[str]]]]:
    """rewrite -> operators where a candidate of it was accepted-worthy against its parent;
    op -> chains (per run) of Stage I rewrites whose candidates descend from one another and
    were each kept."""
    from ascendopt.evaluate.store import SQLiteStore
    from ascendopt.evaluate.verdict import judge_improvement, noise_threshold

    store = SQLiteStore(Path(out) / "bench.db", readonly=True)
    faster: dict[str, set[str]] = defaultdict(set)
    chains: dict[str, list[list[str]]] = defaultdict(list)
    for run in store.list_runs():
        recs = [r.evaluation for r in store.list_evaluations(run.id)]
        by_digest = {e.digest: e for e in recs}
        kept: dict[str, str] = {}  # digest -> rewrite, for kept Stage I candidates
        for e in recs:
            if not e.origin.startswith("stage1/") or e.parent not in by_digest:
                continue
            parent = by_digest[e.parent]
            if not parent.ok or parent.latency_us is None:
                continue
            if judge_improvement(parent, e, noise_threshold(parent)).kept:
                rewrite = e.origin.split("/", 1)[1]
                faster[rewrite].add(run.op)
                kept[e.digest] = rewrite
        for d in kept:
            if any(by_digest[c].parent == d for c in kept):
                continue  # not the end of a chain
            chain, cur = [], d
            while cur in kept:
                chain.append(kept[cur])
                cur = by_digest[cur].parent
            if len(chain) > 1:
                chains[run.op].append(chain[::-1])
    return faster, chains


def print_speedups(ledger: Path, n_ops: int) -> None:
    """Per operator finished with all three methods (from the bench's ledger, which a partial
    run already has): speedup = reference / fastest correct evaluation of the pair; the GMs."""
    per: dict[str, dict[str, tuple[float, int]]] = defaultdict(dict)
    ref: dict[str, float] = {}
    failed: set[str] = set()
    for line in ledger.read_text().splitlines():
        t = json.loads(line)["trial"]
        lat = [us for ok, us in t.get("evals", []) if ok and us]
        if t.get("reference_us") is None:  # the original failed: no speedup to state
            failed.add(t["op"])
            continue
        per[t["op"]][t["method"]] = (t["reference_us"] / min(lat) if lat else 1.0, len(t.get("evals", [])))
        ref[t["op"]] = t["reference_us"]
    methods = ("stage1", "full", "stage2")
    done = {o: m for o, m in per.items() if all(k in m for k in methods)}

    def gm(vals: list[float]) -> float:
        return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")

    print("\n| operator | reference us | stage1 | full | stage2 | evaluations (stage1/full/stage2) |")
    print("|---|---|---|---|---|---|")
    for o in sorted(done):
        m = done[o]
        print(f"| {o} | {ref[o]:.2f} | " + " | ".join(f"{m[k][0]:.3f}x" for k in methods)
              + " | " + "/".join(str(m[k][1]) for k in methods) + " |")
    if failed:
        print(f"\noriginal failed (no speedup; see the pair's records): {', '.join(sorted(failed))}")
    print(f"\nfinished operators: {len(done)} of {n_ops}; "
          f"stage1 GM {gm([m['stage1'][0] for m in done.values()]):.3f}x; "
          f"full/stage2 GM {gm([m['full'][0] / m['stage2'][0] for m in done.values()]):.3f}x")


def table(args: argparse.Namespace) -> int:
    ops = half_ops(args.half)
    names = sorted({o.split("/")[1] for o in ops})
    sites = sites_by_rewrite(args.src, ops)
    faster, chains = faster_by_rewrite(args.out) if Path(args.out, "bench.db").exists() else ({}, {})
    print(f"## {args.half}: {len(ops)} operators\n")
    print("| rewrite | operators with a site | faster and correct |")
    print("|---|---|---|")
    for r in sorted(set(sites) | set(faster)):
        s, f = sorted(sites.get(r, ())), sorted(faster.get(r, ()))
        print(f"| {r} | {len(s)}: {', '.join(s)} | {len(f)}: {', '.join(f)} |")
    with_site = {o for s in sites.values() for o in s}
    print(f"\noperators with at least one offline proposal: {len(with_site)} of {len(names)}")
    ledger = Path(args.out, "ledger.jsonl")
    if ledger.exists():
        print_speedups(ledger, len(names))
    for op in sorted(chains):
        for c in chains[op]:
            print(f"chain on {op}: {' -> '.join(c)}")
    return 0


def passing_ops() -> list[str]:
    rows = [json.loads(line) for line in PASSING.read_text().splitlines() if line.strip()]
    return [r["op"] for r in rows if r.get("status") == "ok"]


def sites(args: argparse.Namespace) -> int:
    ops = passing_ops()
    found = sites_by_rewrite(args.src, ops)
    with_site = {o for s in found.values() for o in s}
    print(f"passing cann-ops operators with at least one offline proposal: {len(with_site)} of {len(ops)} "
          f"({100.0 * len(with_site) / max(1, len(ops)):.1f} %)")
    for r in sorted(found):
        print(f"{r}: {len(found[r])}")
    return 0


def share(args: argparse.Namespace) -> int:
    ops = passing_ops()
    rc = bench(args, ops, "stage1")
    if rc != 0:
        print(f"bench exited with {rc}; the figures below cover the finished operators", flush=True)
    faster, chains = faster_by_rewrite(args.out)
    won = {o for s in faster.values() for o in s}
    ledger = Path(args.out, "ledger.jsonl")
    done = {json.loads(line)["trial"]["op"] for line in ledger.read_text().splitlines() if line.strip()} \
        if ledger.exists() else set()
    print(f"Stage I alone (bench --methods stage1 --budget {args.budget}): a faster correct kernel on "
          f"{len(won)} of {len(done)} finished passing operators ({100.0 * len(won) / max(1, len(done)):.1f} %); "
          f"{len(ops)} passing in all")
    for r in sorted(faster):
        print(f"{r}: {len(faster[r])}: {', '.join(sorted(faster[r]))}")
    for op in sorted(chains):
        for c in chains[op]:
            print(f"chain on {op}: {' -> '.join(c)}")
    return rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("run", "table", "sites", "share"))
    ap.add_argument("--half", choices=("tune", "held_out"))
    ap.add_argument("--src", required=True, help="cann-ops checkout's src/")
    ap.add_argument("--out")
    ap.add_argument("--budget", type=int, help="evaluations per pair (60 for run, 20 for share)")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.what == "sites":
        return sites(args)
    if args.what == "share":
        if not args.out:
            ap.error("share needs --out")
        args.budget = args.budget or 20
        return share(args)
    args.budget = args.budget or 60
    if not args.half or not args.out:
        ap.error(f"{args.what} needs --half and --out")
    return run(args) if args.what == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
