"""Stage II strategy comparison: evo vs random vs TPE at equal budgets, over seeds.

    python benchmarks/stage2_strategies.py [--ops gelu,silu,...] [--seeds 5] [--budget 100]
                                           [--starts own,poor] [--strategies evo,random,tpe]
                                           [--out benchmarks/results/stage2.json]

For every operator and start (``own`` = its own tiling; ``poor`` = a deliberately poor one:
one core where a core-cap knob exists, 1 buffer, most of UB reserved / smallest row groups),
each strategy searches with a fresh budget per seed. The table gives the median best
latency at budgets 10, 25, 50, 100, and how many evaluations each strategy needed to reach
95 % of the best improvement found by any strategy.

Evaluations are memoised on disk by (candidate digest, evaluation config): on the simulator
an evaluation is deterministic (inputs are seeded from the digest), so replaying a recorded
result equals re-running it. Each search still pays its own budget: the memo only saves
wall time, the budget accounting is per search as in a real run. To keep the wall time
affordable every candidate is checked on the float32 cases (and timed on the largest).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import statistics
import time
from pathlib import Path

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.evaluator import EvalConfig, Evaluation, Evaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.tiling.search import tune
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import make_strategy

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPS = "gelu,silu,add_broadcast,softmax_last,rms_norm,layer_norm_custom"
CHECKPOINTS = (10, 25, 50, 100)


class MemoEvaluator(Evaluator):
    """An Evaluator whose results are replayed from a JSON-lines memo when already known."""

    def __init__(self, backend, config, memo: Path):
        super().__init__(backend, config)
        self.memo_path = memo
        self.memo: dict[str, dict] = {}
        if memo.exists():
            for line in memo.read_text().splitlines():
                if line.strip():
                    d = json.loads(line)
                    self.memo[d["key"]] = d["ev"]
        self.fresh = 0

    def evaluate(self, op, cases, seed=None, config_key=None):
        key = f"{op.digest}:{config_key or self.config_key(cases)}"
        if key in self.memo:
            ev = Evaluation.from_dict(self.memo[key])
            ev.parent, ev.origin = op.parent, op.origin
            return ev
        ev = super().evaluate(op, cases, seed, config_key)
        self.fresh += 1
        d = ev.to_dict()
        self.memo[key] = d
        with self.memo_path.open("a") as f:
            f.write(json.dumps({"key": key, "ev": d}, default=str) + "\n")
        return ev


def _save(out: Path, key: str, value: dict) -> dict:
    """Adds one result to the JSON file under an exclusive lock (several benchmark processes,
    e.g. one per operator, may share the file); returns the merged results."""
    with open(out.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = json.loads(out.read_text()) if out.exists() else {}
        results[key] = value
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(results, indent=1))
        os.replace(tmp, out)
    return results


def poor_config(space: KnobSpace) -> dict:
    cfg = {}
    for k in space.knobs:
        d = k.domain
        if k.role in ("core_cap", "block_dim"):
            cfg[k.id] = d.lo
        elif k.role == "buffer_num":
            cfg[k.id] = 1
        elif k.role == "tile" and k.id.startswith("groupRows"):
            cfg[k.id] = d.lo
        elif "Reserve" in k.id or "RESERVED" in k.id:
            cfg[k.id] = d.snap(int(d.hi * 0.9)) if hasattr(d, "snap") else d.hi
    return cfg


def best_at(trials, budget: int) -> float | None:
    vals = [t.latency_us for t in trials if t.status == "ok" and t.latency_us is not None and t.index <= budget]
    return min(vals) if vals else None


def evals_to_reach(trials, target: float) -> int | None:
    for t in trials:
        if t.status == "ok" and t.latency_us is not None and t.latency_us <= target:
            return t.index
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default=DEFAULT_OPS)
    ap.add_argument("--starts", default="own,poor")
    ap.add_argument("--strategies", default="evo,random,tpe")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--memo", default=str(Path.home() / ".cache" / "ascendopt" / "bench_stage2_memo.jsonl"),
                    help="JSON-lines memo of evaluations (one per process when running several)")
    ap.add_argument("--report", action="store_true", help="only print the table of the results in --out")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "stage2.json"))
    args = ap.parse_args()
    memo = Path(args.memo)
    memo.parent.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(out.read_text()) if out.exists() else {}
    if args.report:
        report(results, args)
        return
    backend = SimBackend()
    evaluator = MemoEvaluator(backend, EvalConfig(seed=0, jobs=1), memo)
    op_dirs = {p.parent.name: p.parent for p in (ROOT / "ops").rglob("op_host")}
    for name in args.ops.split(","):
        op0 = Operator.load(op_dirs[name])
        cases = [c for c in load_op_cases(op_dirs[name]) if all(t.dtype in ("float", "float32", "bool")
                                                                 for t in (*c.inputs, *c.outputs))]
        for start in args.starts.split(","):
            space0 = KnobSpace.from_operator(op0)
            op = op0 if start == "own" else space0.apply(op0, poor_config(space0), origin="bench/poor")
            space = KnobSpace.from_operator(op)
            for strat_name in args.strategies.split(","):
                for seed in range(args.seeds):
                    key = f"{name}/{start}/{strat_name}/{seed}/{args.budget}"
                    if key in results:
                        continue
                    t0 = time.perf_counter()
                    fresh0 = evaluator.fresh
                    beval = BudgetedEvaluator(evaluator, MemoryStore(), budget=args.budget, run_label=name)
                    strat = make_strategy(strat_name, space, seed=seed)
                    res = tune(op, cases, beval, space, strat, strat_name)
                    results[key] = {
                        "baseline_us": res.baseline_latency_us,
                        "best_us": res.best_latency_us,
                        "best_at": {str(b): best_at(res.trials, b) for b in CHECKPOINTS if b <= args.budget},
                        "trials": [[t.index, t.status, t.latency_us] for t in res.trials if not t.duplicate],
                        "charged": res.charged, "fresh_evals": evaluator.fresh - fresh0,
                        "wall_s": round(time.perf_counter() - t0, 1),
                    }
                    results = _save(out, key, results[key])
                    print(f"{key}: baseline {res.baseline_latency_us} best {res.best_latency_us} "
                          f"({evaluator.fresh - fresh0} fresh evals, {time.perf_counter() - t0:.0f} s)", flush=True)
    report(results, args)


def report(results: dict, args) -> None:
    print()
    print("median best latency (us) at budget B over seeds; 'reach95' = median evaluations to reach 95 % of the")
    print("best improvement any strategy found (None: not reached within the budget)")
    groups: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for key, r in results.items():
        name, start, strat, seed, budget = key.split("/")
        groups.setdefault((name, start), {}).setdefault(strat, []).append(r)
    header = f"{'op':<18}{'start':<6}{'strategy':<8}" + "".join(f"{'B=' + str(b):>10}" for b in CHECKPOINTS) + f"{'reach95':>9}"
    print(header)
    verdicts = []
    for (name, start), by in sorted(groups.items()):
        base = next(iter(by.values()))[0]["baseline_us"]
        best_any = min(r["best_us"] for rs in by.values() for r in rs if r["best_us"] is not None)
        target = base - 0.95 * (base - best_any) if base else best_any
        needed = {}
        for strat, rs in sorted(by.items()):
            meds = []
            for b in CHECKPOINTS:
                vals = [r["best_at"].get(str(b)) for r in rs if r["best_at"].get(str(b)) is not None]
                meds.append(statistics.median(vals) if vals else None)
            reach = [evals_to_reach([type("T", (), {"index": i, "status": s, "latency_us": l}) for i, s, l in r["trials"]], target)
                     for r in rs]
            reach_ok = [x for x in reach if x is not None]
            needed[strat] = statistics.median(reach_ok) if len(reach_ok) * 2 > len(reach) else None
            print(f"{name:<18}{start:<6}{strat:<8}" + "".join(f"{m:>10.2f}" if m else f"{'-':>10}" for m in meds)
                  + f"{str(needed[strat]):>9}")
        if "evo" in needed and "random" in needed:
            e, r = needed["evo"], needed["random"]
            ok = e is not None and (r is None or e <= r / 2)
            verdicts.append((name, start, e, r, ok))
    if verdicts:
        print()
        for name, start, e, r, ok in verdicts:
            print(f"{name}/{start}: evo needs {e}, random needs {r} -> target {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
