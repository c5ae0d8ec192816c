"""Stage II strategy comparison: evo vs random vs TPE at equal budgets, over seeds.

    python benchmarks/stage2_strategies.py [--ops gelu,silu,...] [--seeds 5] [--budget 100]
                                           [--starts own,poor] [--strategies evo,random,tpe]
                                           [--out benchmarks/results/stage2.json]
                                           [--evo-options JSON] [--dtypes float32|all]
                                           [--report] [--json]

A variant of evo is compared against the same random / TPE runs by copying the results file,
deleting its evo keys and re-running only evo into the copy, e.g.::

    python -c "import json; d = json.load(open('benchmarks/results/stage2.json')); \
        json.dump({k: v for k, v in d.items() if '/evo/' not in k}, open('/tmp/v.json', 'w'))"
    python benchmarks/stage2_strategies.py --ops gelu --starts own --strategies evo \
        --evo-options '{"tournament_size": 5}' --out /tmp/v.json

For every operator and start (``own`` = its own tiling; ``poor`` = a deliberately poor one:
one core where a core-cap knob exists, 1 buffer, most of UB reserved / smallest row groups),
each strategy searches with a fresh budget per seed. The table gives the median best
latency at budgets 10, 25, 50, 100, and how many evaluations each strategy needed to reach
95 % of the best improvement found by any strategy.

Evaluations are memoised on disk by (candidate digest, evaluation config) and by (launch key,
evaluation config): on the simulator an evaluation is deterministic (inputs are seeded from
the digest, and the modeled time does not depend on the data), so replaying a recorded result
equals re-running it. Within a search, candidates that launch the same device program as an
evaluated one are answered without charge, as in ``ascendopt tune`` (each search's budgeted
evaluator is composed as ``tune`` composes it, :mod:`ascendopt.session`, lazy probes included). Each search still pays its own budget: the memo only saves
wall time, the budget accounting is per search as in a real run. To keep the wall time
affordable every candidate is checked on the float32 cases (and timed on the largest);
``--dtypes all`` checks every case, as ``ascendopt tune`` does (then the largest case of all
dtypes is timed, often a 16-bit one: another landscape), into ``stage2_all_dtypes.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import json
import math
import os
import statistics
import time
from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import Evaluation, Evaluator
from ascendopt.operator import Operator
from ascendopt.profile import Summary
from ascendopt.session import open_store, script_session
from ascendopt.tiling.search import tune
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import STRATEGIES, make_strategy

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPS = "add_broadcast,gelu,silu,reduce_sum_last,rms_norm,softmax_last"  # the operators of the results table
CHECKPOINTS = (10, 25, 50, 100)


class MemoEvaluator(Evaluator):
    """An Evaluator whose results are replayed from a JSON-lines memo when already known: by
    candidate digest, or by launch key (another candidate that runs the same device program).
    Launch keys are memoised too."""

    def __init__(self, backend, config, memo: Path):
        super().__init__(backend, config)
        self.memo_path = memo
        self.memo: dict[str, dict] = {}
        self.launches: dict[str, str | None] = {}
        if memo.exists():
            for line in memo.read_text().splitlines():
                if line.strip():
                    d = json.loads(line)
                    if "launch" in d:
                        self.launches[d["key"]] = d["launch"]
                    else:
                        self.memo[d["key"]] = d["ev"]
        self.fresh = 0

    def _append(self, entry: dict) -> None:
        with self.memo_path.open("a") as f:
            f.write(json.dumps(entry, default=str) + "\n")

    def launch_key(self, op, cases):
        key = f"{op.digest}:{self.config_key(cases)}"
        if key not in self.launches:
            self.launches[key] = super().launch_key(op, cases)
            self._append({"key": key, "launch": self.launches[key]})
        return self.launches[key]

    def evaluate(self, op, cases, seed=None, config_key=None):
        config_key = config_key or self.config_key(cases)
        key = f"{op.digest}:{config_key}"
        launch = self.launches.get(key)
        for k in (key, f"launch:{launch}:{config_key}" if launch else None):
            if k in self.memo and _current(self.memo[k]):
                ev = Evaluation.from_dict(self.memo[k])
                ev.parent, ev.origin, ev.digest = op.parent, op.origin, op.digest
                return ev
        ev = super().evaluate(op, cases, seed, config_key)
        self.fresh += 1
        d = ev.to_dict()
        for k in (key, f"launch:{launch}:{config_key}" if launch else None):
            if k:
                self.memo[k] = d
                self._append({"key": k, "ev": d})
        return ev


SUMMARY_FIELDS = {f.name for f in dataclasses.fields(Summary)}


def _current(ev: dict) -> bool:
    """False for a memoised evaluation whose profile summaries predate a Summary field (evo
    reads the profile, so an old entry would not replay what a fresh run gives)."""
    return all(SUMMARY_FIELDS <= set(s) for s in (ev.get("profile") or {}).values() if isinstance(s, dict))


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


def select_cases(cases: list, dtypes: str) -> list:
    """The cases of the benchmark: all of them, or (``dtypes="float32"``) those whose tensors are
    all float32 (or bool)."""
    if dtypes == "all":
        return list(cases)
    return [c for c in cases if all(t.dtype in ("float", "float32", "bool") for t in (*c.inputs, *c.outputs))]


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default=DEFAULT_OPS)
    ap.add_argument("--starts", default="own,poor")
    ap.add_argument("--strategies", default="evo,random,tpe")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--memo", default=str(Path.home() / ".cache" / "ascendopt" / "bench_stage2_memo.jsonl"),
                    help="JSON-lines memo of evaluations (one per process when running several)")
    ap.add_argument("--evo-options", default="{}",
                    help='JSON of evo options for a variant run, e.g. \'{"tournament_size": 5}\' (see EVO_OPTIONS)')
    ap.add_argument("--report", action="store_true", help="only print the table of the results in --out")
    ap.add_argument("--json", action="store_true", help="print the summary table as JSON")
    ap.add_argument("--dtypes", choices=("float32", "all"), default="float32",
                    help="cases every candidate is checked on: the float32 ones (the results table) or all, "
                         "as ascendopt tune does")
    ap.add_argument("--out", default=None, help="results JSON (default: benchmarks/results/stage2.json, "
                                                "or stage2_all_dtypes.json with --dtypes all)")
    args = ap.parse_args()
    if args.out is None:
        args.out = str(ROOT / "benchmarks" / "results" / ("stage2.json" if args.dtypes == "float32"
                                                           else "stage2_all_dtypes.json"))
    memo = Path(args.memo)
    memo.parent.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(out.read_text()) if out.exists() else {}
    try:
        evo_options = json.loads(args.evo_options)
    except json.JSONDecodeError as e:
        ap.error(f"--evo-options: not JSON: {e}")
    unknown = set(evo_options) - set(STRATEGIES["evo"][1])
    if unknown:
        ap.error(f"--evo-options: unknown evo options {sorted(unknown)}")
    if args.report:
        report(results, args)
        return
    # what `ascendopt tune` composes (ascendopt.session): seed 0, one thread per evaluation
    session = script_session(seed=0, budget=args.budget, jobs=1)
    evaluator = MemoEvaluator(session.backend, session.eval_config(()), memo)
    op_dirs = {p.parent.name: p.parent for p in (ROOT / "ops").rglob("op_host")}
    for name in args.ops.split(","):
        op0 = Operator.load(op_dirs[name])
        cases = select_cases(load_op_cases(op_dirs[name]), args.dtypes)
        for start in args.starts.split(","):
            space0 = KnobSpace.from_operator(op0, soc=session.soc)
            op = op0 if start == "own" else space0.apply(op0, poor_config(space0), origin="bench/poor")
            space = KnobSpace.from_operator(op, soc=session.soc)
            for strat_name in args.strategies.split(","):
                for seed in range(args.seeds):
                    key = f"{name}/{start}/{strat_name}/{seed}/{args.budget}"
                    if key in results:
                        continue
                    t0 = time.perf_counter()
                    fresh0 = evaluator.fresh
                    # a fresh store per search, as each `ascendopt tune` run its own
                    beval = session.budgeted(evaluator, name, {"strategy": strat_name, "seed": seed},
                                             store=open_store(None))
                    strat = make_strategy(strat_name, space, seed=seed,
                                          **(evo_options if strat_name == "evo" else {}))
                    res = tune(op, cases, beval, space, strat, strat_name)
                    results[key] = {
                        "baseline_us": res.baseline_latency_us,
                        "best_us": res.best_latency_us,
                        "best_at": {str(b): best_at(res.trials, b) for b in CHECKPOINTS if b <= args.budget},
                        "trials": [[t.index, t.status, t.latency_us, t.config] for t in res.trials if not t.duplicate],
                        "charged": res.charged, "equivalents": res.equivalents, "probes": res.probes,
                        "fresh_evals": evaluator.fresh - fresh0,
                        "wall_s": round(time.perf_counter() - t0, 1),
                    }
                    results = _save(out, key, results[key])
                    print(f"{key}: baseline {res.baseline_latency_us} best {res.best_latency_us} "
                          f"({evaluator.fresh - fresh0} fresh evals, {time.perf_counter() - t0:.0f} s)", flush=True)
    report(results, args)


def _reach(trials: list, base: float, best: float) -> float:
    """Evaluations a run needed to reach 95 % of the improvement ``base - best`` (inf: never)."""
    return _first_at(trials, base - 0.95 * (base - best))


def _first_at(trials: list, target: float) -> float:
    """The first evaluation with a latency at or below ``target`` (inf: none)."""
    for i, status, lat, *_config in trials:
        if status == "ok" and lat is not None and lat <= target + 1e-9:
            return i
    return math.inf


def summarize(results: dict) -> list[dict]:
    """One row per (op, start, strategy): median best latency at each checkpoint, and the median
    evaluations to reach 95 % of the best improvement, two ways: 'reach95' against the best of
    all runs of every strategy and seed (stringent), 'reach95_seed' against the best any
    strategy found with the same seed. inf = the median run did not reach it."""
    groups: dict[tuple[str, str], dict[str, dict[str, dict]]] = {}
    for key, r in results.items():
        name, start, strat, seed, _budget = key.split("/")
        groups.setdefault((name, start), {}).setdefault(strat, {})[seed] = r
    rows = []
    for (name, start), by in sorted(groups.items()):
        base = next(iter(next(iter(by.values())).values()))["baseline_us"]
        bests = [r["best_us"] for rs in by.values() for r in rs.values() if r["best_us"] is not None]
        if base is None or not bests:
            continue
        best_any = min(bests)
        seed_best = {}
        for rs in by.values():
            for seed, r in rs.items():
                if r["best_us"] is not None:
                    seed_best[seed] = min(seed_best.get(seed, math.inf), r["best_us"])
        for strat, rs in sorted(by.items()):
            meds = {}
            for b in CHECKPOINTS:
                vals = [r["best_at"].get(str(b)) for r in rs.values() if r["best_at"].get(str(b)) is not None]
                meds[b] = statistics.median(vals) if vals else None
            reaches = [_reach(r["trials"], base, best_any) for r in rs.values()]
            reach = statistics.median(reaches)
            reach_seed = statistics.median(_reach(r["trials"], base, seed_best[s]) for s, r in rs.items()
                                           if s in seed_best)
            near = statistics.median(_first_at(r["trials"], best_any * 1.01) for r in rs.values())
            rows.append({"op": name, "start": start, "strategy": strat, "seeds": len(rs), "baseline_us": base,
                         "best_any_us": best_any, "median_best_us": meds, "reach95": reach,
                         "reached": sum(x < math.inf for x in reaches),
                         "reach95_seed": reach_seed, "near1": near,
                         "free": statistics.median(r.get("equivalents", 0) for r in rs.values()),
                         "probes": _median_or_none(r.get("probes") for r in rs.values())})
    return rows


def _median_or_none(values) -> float | None:
    """The median of the values that are not None (runs recorded before a field existed)."""
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def report(results: dict, args) -> None:
    rows = summarize(results)
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=1, default=lambda x: None))
        return
    print()
    print("median best latency (us) over seeds at budget B; reach95 = median evaluations to reach 95 % of the")
    print("best improvement of all runs (reach95/seed: of the runs with the same seed); inf = not reached;")
    print("runs = how many runs reached it (reach95) within the budget; near1 = median evaluations to come")
    print("within 1 % of the best latency of all runs (information: on poor starts the 95 % mark is reached by")
    print("almost any feasible multi-core config); free = median answers per run taken without charge from an")
    print("evaluated candidate launching the same device program; probes = median tiling-only runs of the")
    print("program oracle per run (adjacent programs; no device run, no budget; -: not recorded)")
    print(f"{'op':<18}{'start':<6}{'strategy':<8}{'seeds':>6}{'base':>9}" + "".join(f"{'B=' + str(b):>9}" for b in CHECKPOINTS)
          + f"{'reach95':>9}{'/seed':>7}{'runs':>6}{'near1':>7}{'free':>6}{'probes':>7}")
    for r in rows:
        print(f"{r['op']:<18}{r['start']:<6}{r['strategy']:<8}{r['seeds']:>6}{r['baseline_us']:>9.2f}"
              + "".join(f"{m:>9.2f}" if m else f"{'-':>9}" for m in r["median_best_us"].values())
              + f"{r['reach95']:>9g}{r['reach95_seed']:>7g}{str(r['reached']) + '/' + str(r['seeds']):>6}"
              + f"{r['near1']:>7g}{r['free']:>6g}" + (f"{r['probes']:>7g}" if r["probes"] is not None else f"{'-':>7}"))
    print()
    by = {(r["op"], r["start"], r["strategy"]): r for r in rows}
    for (name, start, strat), r in by.items():
        rnd = by.get((name, start, "random"))
        if strat != "evo" or rnd is None:
            continue
        for metric in ("reach95", "reach95_seed"):
            e, x = r[metric], rnd[metric]
            ok = e < math.inf and e <= x / 2
            print(f"{name}/{start} [{metric}]: evo needs {e:g}, random needs {x:g} -> target {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
