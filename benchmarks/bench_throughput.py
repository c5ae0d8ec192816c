"""Evaluation throughput of ``ascendopt bench`` per method, and where the time goes.

Two parts, both on the simulator with a fresh build cache (the simulator runtime and the host
precompiled header are built first and not counted):

* **methods**: every (operator, method) pair run the way ``ascendopt bench --workers 1`` runs
  it (:class:`ascendopt.bench.runner.Runner`, inline executor: the pair, its records streamed
  to the driver's SQLite database, its report written), at ``--budget`` charged evaluations.
  Figure: charged evaluations per minute of pair wall time.
* **changes**: per operator, after one evaluation of the original, ``--repeats`` Stage II knob
  changes (random values of the host-only tiling knobs, built through knob slots) and
  ``--repeats`` kernel changes (a numbered comment appended to the kernel source: a new kernel
  build, a new device program), each through a :class:`BudgetedEvaluator` as the methods
  evaluate (tiling probes of the launch key included), with the original's latency as the
  incumbent (``bar_us``, where the tree has lazy verification: a change timed above it is
  recorded ``unverified`` without its other cases, column ``unv``; ``--no-incumbent``: none).
  Figure: evaluations per minute. (A kernel change here times equal to the original: a tie
  is verified, so only the knob row shows lazy verification.)

Where the time goes: wall seconds per charged evaluation in each phase, summed over the
threads of an evaluation (phases overlap: with two cores two case runs go at once, so the
phases may add up to more than the wall time). ``build: host``/``kernel``/``link`` are compiler
processes; ``tiling probes`` the tiling-only runs (launch keys for the equivalence check, and
Stage II's program oracle); ``runs`` the simulator processes of the correctness and the timed
runs; ``inputs`` drawing the seeded inputs; ``golden`` the expected outputs (child process);
``compare`` checking outputs; ``summary`` the profile summary; ``store`` the records (worker
memory store + the driver's SQLite); ``report`` the pair's HTML/JSON; ``other`` the wall time
outside the budgeted evaluator (search, rewriter, bookkeeping).

Usage (machine load is printed: the figures are only comparable back to back)::

    python benchmarks/bench_throughput.py [--ops abs_custom,layer_norm_custom,matmul_custom]
        [--methods stage2,bon,evolve,stage1-noexp,full] [--budget 20] [--repeats 6]
        [--out benchmarks/results/bench_throughput.txt] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPS = "abs_custom,layer_norm_custom,matmul_custom"  # the first operator of each level (sorted)
DEFAULT_METHODS = "stage2,bon,evolve,stage1-noexp,full"
PHASES = ("build: host", "build: kernel", "build: host+kernel", "build: link", "tiling probes", "inputs", "golden",
          "runs: correctness", "runs: timed", "compare", "profile summary", "store", "report")


class Clock:
    """Per-phase wall seconds (summed over threads) and counters, switched on and off."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.t: dict[str, float] = defaultdict(float)
        self.n: dict[str, int] = defaultdict(int)
        self.local = threading.local()

    def add(self, phase: str, seconds: float, count: int = 1) -> None:
        with self.lock:
            self.t[phase] += seconds
            self.n[phase] += count

    def reset(self) -> tuple[dict[str, float], dict[str, int]]:
        with self.lock:
            t, n = dict(self.t), dict(self.n)
            self.t.clear()
            self.n.clear()
        return t, n


CLOCK = Clock()


def _timed(phase: str | Callable[..., str]) -> Callable:
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                CLOCK.add(phase(*a, **kw) if callable(phase) else phase, time.perf_counter() - t0)

        return wrapper

    return deco


def instrument() -> None:
    """Wraps the functions each phase is spent in (this process only)."""
    from ascendopt.backends.sim import build as sim_build
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.bench import pair as bench_pair
    from ascendopt.bench import runner as bench_runner
    from ascendopt.cases import golden_worker
    from ascendopt.evaluate import check, evaluator

    def build_kind(self: Any, jobs: list, sandbox: Any = None) -> str:
        kinds = set()
        for j in jobs:
            text = " ".join(map(str, j.cmd))
            kinds.add("kernel" if "kernel_wrapper.cpp" in text else "link" if j.out.name == "runner"
                      else "pch/runtime" if ("host_prelude" in text or "runtime" in str(j.out)) else "host")
        return "build: " + "+".join(sorted(kinds))

    sim_build.SimBuilder._run_each = _timed(build_kind)(sim_build.SimBuilder._run_each)
    orig_build = sim_build.SimBuilder.build

    def build(self: Any, op: Any, dtypes: Any, sandbox: Any = None) -> Any:
        b = orig_build(self, op, dtypes, sandbox)
        CLOCK.add("builds asked (cached)" if b.cached else "builds asked (compiled)", 0.0)
        return b

    sim_build.SimBuilder.build = build
    SimBackend.tiling = _timed("tiling probes")(SimBackend.tiling)
    check.make_inputs = _timed("inputs")(check.make_inputs)
    with contextlib.suppress(ImportError):  # the input pool's kept inputs and goldens (evaluate/casedata.py)
        from ascendopt.evaluate import casedata

        casedata.make_inputs = _timed("inputs")(casedata.make_inputs)
    if hasattr(check, "compare_output"):  # evaluate/outputs.py: one pass when bit-identical, else pieces
        timed_compare = _timed("compare")(check.compare_output)

        def compare_output(*a: Any, **kw: Any) -> Any:
            res = timed_compare(*a, **kw)
            if res.max_abs_err == 0:
                CLOCK.add("outputs exact", 0.0)
            return res

        check.compare_output = compare_output
    else:
        check.compare = _timed("compare")(check.compare)
    golden_worker.GoldenWorker.run = _timed("golden")(golden_worker.GoldenWorker.run)
    evaluator.Evaluator._summarize = _timed("profile summary")(evaluator.Evaluator._summarize)
    local = CLOCK.local
    orig_check = evaluator.check_case

    def check_case(*a: Any, **kw: Any) -> Any:
        local.timed = kw.get("run_result_hook") is not None
        return orig_check(*a, **kw)

    evaluator.check_case = check_case
    SimBackend.run = _timed(lambda *a, **kw: "runs: timed" if getattr(local, "timed", False)
                            else "runs: correctness")(SimBackend.run)
    if hasattr(SimBackend, "run_batch"):  # the cases of one build in one runner: counted per case
        orig_batch = SimBackend.run_batch

        def run_batch(self: Any, build: Any, op: Any, items: Any, *a: Any, **kw: Any) -> Any:
            items = list(items)
            if len(items) <= 1:  # SimBackend.run, timed above
                return orig_batch(self, build, op, items, *a, **kw)
            t0 = time.perf_counter()
            results = orig_batch(self, build, op, items, *a, **kw)
            CLOCK.add("runs: correctness", time.perf_counter() - t0, len(results))
            return results

        SimBackend.run_batch = run_batch
    from ascendopt.evaluate.budget import BudgetedEvaluator

    orig_many = BudgetedEvaluator.evaluate_many

    def evaluate_many(self: Any, *a: Any, **kw: Any) -> Any:  # outermost call only (SubBudget nests)
        depth = getattr(local, "depth", 0)
        local.depth = depth + 1
        t0 = time.perf_counter()
        try:
            return orig_many(self, *a, **kw)
        finally:
            local.depth = depth
            if depth == 0:
                CLOCK.add("(budgeted evaluation)", time.perf_counter() - t0)

    BudgetedEvaluator.evaluate_many = evaluate_many
    bench_pair.StreamingStore.add_evaluation = _timed("store")(bench_pair.StreamingStore.add_evaluation)
    bench_pair.StreamingStore.put_sources = _timed("store")(bench_pair.StreamingStore.put_sources)
    bench_runner.Runner.handle = _timed("store")(bench_runner.Runner.handle)
    bench_runner.Runner._finish = _timed("report")(bench_runner.Runner._finish)


def cpu_seconds() -> float:
    """CPU seconds used so far by this process, its finished children (compilers, runners,
    tiling probes: their own children included) and the golden worker (a long-lived child,
    read from /proc). Unlike wall time, hardly moved by other jobs on the machine."""
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    try:
        from ascendopt.cases.golden_worker import golden_worker

        proc = golden_worker()._proc
        if proc is not None and proc.poll() is None:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    return total


def fingerprint(records: Any) -> str:
    """A hash of what a run decided: per record, charged or answered, candidate, status, error
    kind, latency, and which evaluation answered it (what must not change when it gets faster)."""
    import hashlib

    blob = json.dumps([(c, e.digest, e.status, e.error_kind, e.latency_us, e.same_as) for c, e in records])
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def breakdown(t: dict[str, float], n_evals: int, wall: float) -> dict[str, float]:
    """Seconds per charged evaluation by phase, plus ``other`` (wall outside the budgeted
    evaluator's calls and the report: search, rewriter, bookkeeping)."""
    per = {p: t.get(p, 0.0) / max(1, n_evals) for p in PHASES if t.get(p, 0.0) > 0}
    outside = wall - t.get("(budgeted evaluation)", 0.0) - t.get("report", 0.0)
    per["other"] = max(0.0, outside) / max(1, n_evals)
    return per


def run_methods(ops: list[Path], methods: list[str], budget: int, workdir: Path) -> list[dict[str, Any]]:
    from ascendopt.bench.runner import BenchConfig, Runner, plan
    from ascendopt.evaluate.store import SQLiteStore

    rows = []
    for op_dir in ops:
        for m in methods:
            out = workdir / f"{op_dir.name}__{m}"
            cfg = BenchConfig(out=out, budget=budget, methods=(m,), seeds=(0,), workers=1,
                              cache_dir=str(workdir / "cache"))
            pairs, skipped = plan([op_dir], cfg)
            if skipped:
                raise SystemExit(f"{op_dir}: {skipped}")
            runner = Runner(cfg)
            CLOCK.reset()
            t0, c0 = time.perf_counter(), cpu_seconds()
            runner.run(pairs)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            t, n = CLOCK.reset()
            runner.close()
            with SQLiteStore(out / "bench.db", readonly=True) as s:
                run = s.list_runs()[0]
                charged = s.count(run.id, charged=True)
                free = s.count(run.id, charged=False)
                ok = sum(1 for r in s.list_evaluations(run.id) if r.charged and r.evaluation.ok)
                result = fingerprint((r.charged, r.evaluation) for r in s.list_evaluations(run.id))
            row = {"part": "methods", "op": op_dir.name, "method": m, "status": pairs[0].status, "charged": charged,
                   "free": free, "ok": ok, "result": result, "wall_s": wall, "cpu_s": cpu, "per_min": 60.0 * charged / wall if wall else 0.0,
                   "phases": breakdown(t, charged, wall), "counts": n, "load": load_average()}
            rows.append(row)
            print(f"  {op_dir.name:<20} {m:<13} {charged:>3} charged ({free} free, {ok} ok) in {wall:6.1f} s: "
                  f"{row['per_min']:6.1f}/min   load {row['load']}", file=sys.stderr, flush=True)
    return rows


def run_changes(ops: list[Path], repeats: int, workdir: Path, incumbent: bool = True) -> list[dict[str, Any]]:
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.backends.sim.build import SimBuilder
    from ascendopt.cases import load_op_cases
    from ascendopt.evaluate.budget import BudgetedEvaluator
    from ascendopt.evaluate.evaluator import EvalConfig, Evaluator, largest_per_dtype
    from ascendopt.evaluate.store import MemoryStore
    from ascendopt.operator import Operator
    from ascendopt.tiling.space import KnobSpace

    rows = []
    backend = SimBackend(builder=SimBuilder(cache_dir=workdir / "cache-changes"))
    for op_dir in ops:
        op, cases = Operator.load(op_dir), load_op_cases(op_dir)
        evaluator = Evaluator(backend, EvalConfig(benchmark_cases=largest_per_dtype(cases)))
        try:  # as a bench pair; older trees: the flag, or nothing
            from ascendopt.evaluate.budget import ReuseConfig
            lazy: dict = {"reuse": ReuseConfig(lazy_probes=True, **(
                {"verify_lazily": incumbent} if "verify_lazily" in inspect.signature(ReuseConfig).parameters else {}))}
        except ImportError:
            lazy = {"lazy_probes": True} if "lazy_probes" in inspect.signature(BudgetedEvaluator).parameters else {}
        beval = BudgetedEvaluator(evaluator, MemoryStore(), run_label=op.name, **lazy)  # as a bench pair
        original = beval.evaluate(op, cases)
        # The original is the incumbent: a change timed above it need not be verified on every
        # case (lazy verification, issue 35; a tree without it verifies every candidate).
        bar = ({"bar_us": original.latency_us} if incumbent and original.ok
               and "bar_us" in inspect.signature(BudgetedEvaluator.evaluate).parameters else {})
        space = KnobSpace.from_operator(op)
        host_knobs = [k for k in space.knobs if k.rebuild == "host"]
        rng = random.Random(op.name)
        kinds: dict[str, list] = {"knob": [], "kernel": []}
        seen = {op.digest}
        tries = 0
        while len(kinds["knob"]) < repeats and host_knobs and tries < 20 * repeats:
            tries += 1
            cand = space.apply(op, {k.id: space.domain(k.id).sample(rng) for k in host_knobs})
            if cand.digest not in seen:
                seen.add(cand.digest)
                kinds["knob"].append(cand)
        for i in range(repeats):
            kinds["kernel"].append(op.with_file(op.kernel_file, op.files[op.kernel_file] + f"\n// change {i}\n",
                                                origin="bench/kernel"))
        for kind, cands in kinds.items():
            if not cands:
                continue
            CLOCK.reset()
            t0, c0 = time.perf_counter(), cpu_seconds()
            evs = [beval.evaluate(c, cases, **bar) for c in cands]
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            t, n = CLOCK.reset()
            charged = sum(1 for e in evs if not e.duplicate)
            evaluated = max(1, charged)
            row = {"part": "changes", "op": op.name, "method": kind, "charged": charged,
                   "free": len(evs) - charged, "ok": sum(1 for e in evs if e.ok),
                   "unverified": sum(1 for e in evs if e.status == "unverified"),
                   "result": fingerprint((not e.duplicate, e) for e in evs), "wall_s": wall, "cpu_s": cpu,
                   "per_min": 60.0 * len(evs) / wall if wall else 0.0, "phases": breakdown(t, evaluated, wall),
                   "counts": n, "load": load_average()}
            rows.append(row)
            print(f"  {op.name:<20} {kind:<13} {len(evs):>3} asked ({row['free']} answered by launch key) in "
                  f"{wall:6.1f} s: {row['per_min']:6.1f}/min   load {row['load']}", file=sys.stderr, flush=True)
    return rows


def _aggregate(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    by: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = f"{r['part']}:{r['method']}"
        a = by.setdefault(key, {"part": r["part"], "method": r["method"], "charged": 0, "asked": 0, "wall_s": 0.0,
                                "phase_s": defaultdict(float), "counts": defaultdict(int)})
        for c, v in r["counts"].items():
            a["counts"][c] += v
        a["charged"] += r["charged"]
        a["asked"] += r["charged"] + (r["free"] if r["part"] == "changes" else 0)
        a["wall_s"] += r["wall_s"]
        a["cpu_s"] = a.get("cpu_s", 0.0) + r.get("cpu_s", 0.0)
        for p, v in r["phases"].items():
            a["phase_s"][p] += v * max(1, r["charged"])
    for a in by.values():
        a["per_min"] = 60.0 * (a["asked"] if a["part"] == "changes" else a["charged"]) / a["wall_s"] if a["wall_s"] \
            else 0.0
        a["phases"] = {p: v / max(1, a["charged"]) for p, v in a.pop("phase_s").items()}
    return by


def table(rows: list[dict[str, Any]], header: str) -> str:
    agg = _aggregate(rows)
    cols = [p for p in (*PHASES, "other") if any(p in a["phases"] for a in agg.values())]
    short = {"build: host": "b.host", "build: kernel": "b.kern", "build: host+kernel": "b.h+k", "build: link": "b.link",
             "tiling probes": "probes", "inputs": "inputs", "golden": "golden", "runs: correctness": "r.check",
             "runs: timed": "r.timed", "compare": "cmp", "profile summary": "summ", "store": "store",
             "report": "report", "other": "other"}
    lines = [header, "",
             "per method (all operators): evaluations per minute of wall time (/min, moved by the machine's load);",
             "CPU seconds per evaluation (this process, its children and the golden worker) and the capacity they",
             "give: evaluations per minute if every core of this machine were ours (cap/min = 60 x cores / cpu s);",
             "then wall seconds per evaluation by phase (summed over an evaluation's threads). 'changes' rows",
             "count every asked candidate (launch-key answers included) in evals, /min and cpu, and divide the",
             "phases by the evaluated ones.", ""]
    head = (f"{'part':<8} {'method':<13} {'evals':>5} {'wall s':>7} {'/min':>6} {'cpu s/ev':>8} {'cap/min':>7} | "
            + " ".join(f"{short[c]:>7}" for c in cols))
    lines += [head, "-" * len(head)]
    for a in agg.values():
        n = a["asked"] if a["part"] == "changes" else a["charged"]
        cpu_ev = a.get("cpu_s", 0.0) / max(1, n)
        cap = 60.0 * (os.cpu_count() or 1) / cpu_ev if cpu_ev else 0.0
        lines.append(f"{a['part']:<8} {a['method']:<13} {n:>5} {a['wall_s']:>7.1f} {a['per_min']:>6.1f} "
                     f"{cpu_ev:>8.2f} {cap:>7.1f} | " + " ".join(f"{a['phases'].get(c, 0.0):>7.3f}" for c in cols))
    counted = ("tiling probes", "builds asked (compiled)", "builds asked (cached)", "runs: correctness", "runs: timed",
               "compare", "outputs exact")
    lines += ["", "per evaluation: tiling-only runs, builds compiled / answered from the cache, simulator runs",
              "(correctness / timed), outputs compared (of which equal to the golden, when counted)", ""]
    for a in agg.values():
        n, k = a["counts"], max(1, a["charged"])
        lines.append(f"  {a['part']:<8} {a['method']:<13} " + "  ".join(
            f"{c.replace('builds asked ', 'builds ')} {n.get(c, 0) / k:.1f}" for c in counted if c in n))
    lines += ["", "per operator:", ""]
    for r in rows:
        lines.append(f"  {r['part']:<8} {r['op']:<20} {r['method']:<13} charged {r['charged']:>3} free {r['free']:>3} "
                     f"ok {r['ok']:>3} unv {r.get('unverified', 0):>2} result {r.get('result', '-'):<12} wall {r['wall_s']:>6.1f} s  {r['per_min']:>6.1f}/min  cpu {r.get('cpu_s', 0.0):>6.1f} s  "
                     f"(load {r['load']})")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", default=DEFAULT_OPS, help="comma-separated operator names under ops/ (or directories)")
    ap.add_argument("--methods", default=DEFAULT_METHODS)
    ap.add_argument("--budget", type=int, default=20, help="charged evaluations per (operator, method)")
    ap.add_argument("--repeats", type=int, default=6, help="knob and kernel changes per operator")
    ap.add_argument("--parts", default="changes,methods")
    ap.add_argument("--out", type=Path, default=None, help="write the table here too")
    ap.add_argument("--json", type=Path, default=None, help="write every row here")
    ap.add_argument("--label", default="", help="a line naming what was measured (e.g. the commit)")
    ap.add_argument("--no-sandbox", action="store_true",
                    help="run compilers and runners unconfined: sandboxed (bubblewrap) processes are not in this "
                         "process's child CPU time, so CPU seconds count them only without it")
    ap.add_argument("--no-incumbent", action="store_true",
                    help="changes: evaluate every candidate fully (no bar: the original's latency is not passed as "
                         "the incumbent a lazily verified candidate must beat)")
    ap.add_argument("--from-json", type=Path, nargs="+", default=None,
                    help="print the table of rows saved with --json (several runs: their rows together)")
    args = ap.parse_args(argv)
    if args.from_json:
        rows = [r for f in args.from_json for r in json.loads(f.read_text())]
        text = table(rows, args.label or "bench_throughput: rows of " + ", ".join(map(str, args.from_json)))
        print(text)
        if args.out:
            args.out.write_text(text)
        return 0
    from ascendopt import sandbox
    from ascendopt.backends.sim.build import SimBuilder

    if args.no_sandbox:  # every policy set later (run_pair sets one per pair) is turned off too
        import dataclasses

        configure = sandbox.configure
        sandbox.configure = lambda policy: configure(dataclasses.replace(policy, enabled=False))
    sandbox.configure(sandbox.Sandbox())
    sandbox.current().require()
    own = {p.parent.name: p.parent for p in (ROOT / "ops").rglob("op_kernel")}
    ops = [Path(o) if Path(o).is_dir() else own[o] for o in args.ops.split(",") if o]
    instrument()
    parts = args.parts.split(",")
    start_load = load_average()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ao-throughput-") as tmp:
        work = Path(tmp)
        for sub in ("cache", "cache-changes"):  # runtime + PCH once (not counted)
            b = SimBuilder(cache_dir=work / sub)
            b.runtime_lib()
            b.host_prelude()
        with contextlib.redirect_stdout(sys.stderr):
            rows = (run_changes(ops, args.repeats, work, not args.no_incumbent) if "changes" in parts else []) + \
                   (run_methods(ops, [m for m in args.methods.split(",") if m], args.budget, work)
                    if "methods" in parts else [])
        shutil.rmtree(work, ignore_errors=True)
    header = (f"bench_throughput: ops {args.ops}; methods {args.methods}; budget {args.budget}; repeats "
              f"{args.repeats}; {'no sandbox; ' if args.no_sandbox else ''}{os.cpu_count()} cores; load average {start_load} at start, {load_average()} at end; "
              f"{time.perf_counter() - t0:.0f} s" + (f"\n{args.label}" if args.label else ""))
    text = table(rows, header)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
