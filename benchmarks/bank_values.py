"""Issue 34, item 6: does value-weighted retrieval help Stage I?

Three parts, all resumable (results are JSON lines, a finished run is not repeated):

``learn``: Stage I (offline rewriter, ``--budget``, rewind's share feeding the bank) on every
operator of the *tune* half in turn, all into one bank (``OUT/learnt.db``): its experiences,
outcomes, values and failure rules are what the measurement starts from.

``measure``: every operator of ``--half`` (default ``held_out``), each retrieval mode
(``value``: similarity and learnt value; ``similarity``: similarity only; ``none``: no
experience, bank frozen), each seed: Stage I alone (offline rewriter, ``--budget``, no rewind:
every mode spends the whole budget on Stage I) from a fresh copy of the learnt bank.

``table``: per mode, the GM speedup over the operators (each operator's speedup the geometric
mean over seeds), the operators with a gain, and the charged evaluations to the first gain
(mean over the runs with one).

    python benchmarks/bank_values.py learn --src <cann-ops>/src --out bench_bank
    python benchmarks/bank_values.py measure --src <cann-ops>/src --out bench_bank --half held_out
    python benchmarks/bank_values.py table --out bench_bank --half held_out
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import tempfile
from ascendopt.bank.transfer import import_json
from pathlib import Path
from typing import Any

SPLIT = Path(__file__).resolve().parent / "results" / "stage1_split.json"
MODES = ("value", "similarity", "none")


def half_ops(src: str, half: str, only: str = "") -> list[Any]:
    """The suite operators of one half of the committed split (matched by category/name),
    optionally only those of the comma-separated list ``only``."""
    from ascendopt.suites import load_suite

    names = set(json.loads(SPLIT.read_text())[half])
    if only:
        names &= set(only.split(","))
    return [o for o in load_suite("cannops", src).ops if f"{o.dir.parent.name}/{o.dir.name}" in names]


def first_gain(records: list[Any], digest: str | None) -> int | None:
    """Charged evaluations up to and including the first accepted candidate's."""
    n = 0
    for r in records:
        n += bool(r.charged)
        if digest is not None and r.evaluation.digest == digest:
            return n
    return None


def run_one(sop: Any, bank_file: Path | None, mode: str, seed: int, budget: int, rewind_budget: int,
            cache: Path) -> dict[str, Any]:
    """Stage I on one operator, composed as an ``ascendopt bench`` pair composes its run
    (:mod:`ascendopt.session`: the simulator under the sandbox policy, inputs from ``seed``,
    lazy probes, an in-memory store, ``budget``), with the offline rewriter and the bank
    ``bank_file`` (None: no bank) retrieving by ``mode``."""
    from ascendopt.agent import AgentConfig, optimize
    from ascendopt.bank.store import ExperienceBank
    from ascendopt.bench.pair import suite_cases
    from ascendopt.operator import Operator
    from ascendopt.refine.rewriter import OfflineRewriter
    from ascendopt.session import script_session

    op = Operator.load(sop.dir)
    cases, timed = suite_cases(sop)
    session = script_session(seed=seed, budget=budget, cache_dir=cache)
    beval = session.budgeted(session.evaluator(timed, cases), op.name, {"method": "stage1", "mode": mode})
    bank = ExperienceBank(bank_file) if bank_file is not None else None
    if bank is not None:
        bank.retrieval = "similarity" if mode == "similarity" else "value"
    cfg = AgentConfig(only="stage1", rewind_budget=rewind_budget, seed=session.spec.seeds.strategy,
                      use_experience=mode != "none", freeze_bank=mode == "none")
    try:
        res = optimize(op, cases, beval, OfflineRewriter(), bank, cfg)
    finally:
        beval.finish()
        session.close()
        if bank is not None:
            bank.close()
    acc = next((a.digest for a in res.accepted if a.stage == "stage1"), None)
    return {"op": f"{sop.dir.parent.name}/{sop.dir.name}", "mode": mode, "seed": seed, "budget": budget,
            "baseline_us": res.baseline_us, "best_us": res.best_us, "speedup": res.speedup or 1.0,
            "charged": res.charged, "first_gain": first_gain(session.store.list_evaluations(beval.run_id, op.name), acc),
            "bank_added": res.bank_added, "stop": res.stop_reason}


def _done(path: Path) -> dict[tuple, dict[str, Any]]:
    if not path.exists():
        return {}
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return {(r["op"], r["mode"], r["seed"]): r for r in rows}


def _append(path: Path, row: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")
    print(json.dumps(row), flush=True)


def learn(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bank_file, log = out / "learnt.db", out / "learn.jsonl"
    if not bank_file.exists():
        from ascendopt.bank.store import DEFAULT_BANK_JSON, ExperienceBank

        with ExperienceBank(bank_file) as b:
            import_json(b, DEFAULT_BANK_JSON)
    done = _done(log)
    for sop in half_ops(args.src, "tune", args.ops):
        key = (f"{sop.dir.parent.name}/{sop.dir.name}", "value", 0)
        if key not in done:
            _append(log, run_one(sop, bank_file, "value", 0, args.budget, args.learn_rewind_budget, out / "cache"))


def measure(args: argparse.Namespace) -> None:
    out = Path(args.out)
    learnt = out / "learnt.db"
    if not learnt.exists():
        raise SystemExit(f"{learnt}: run `learn` first")
    log = out / f"measure_{args.half}.jsonl"
    done = _done(log)
    for sop in half_ops(args.src, args.half, args.ops):
        for mode in MODES:
            for seed in range(args.seeds):
                if (f"{sop.dir.parent.name}/{sop.dir.name}", mode, seed) in done:
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    copy = Path(tmp) / "bank.db"
                    shutil.copy(learnt, copy)
                    _append(log, run_one(sop, copy, mode, seed, args.budget, 0, out / "cache"))


def table(args: argparse.Namespace) -> None:
    rows = list(_done(Path(args.out) / f"measure_{args.half}.jsonl").values())
    print(f"{'mode':<11} {'ops':>4} {'GM':>7} {'gain on':>8} {'evals to 1st gain':>18}")
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        by_op: dict[str, list[float]] = {}
        for r in mine:
            by_op.setdefault(r["op"], []).append(math.log(r["speedup"] or 1.0))
        gm = math.exp(sum(sum(v) / len(v) for v in by_op.values()) / len(by_op)) if by_op else float("nan")
        gains = [r["first_gain"] for r in mine if r["first_gain"] is not None]
        firsts = f"{sum(gains) / len(gains):.1f} ({len(gains)}/{len(mine)} runs)" if gains else "-"
        won = sum(1 for v in by_op.values() if sum(v) / len(v) > 0)
        print(f"{mode:<11} {len(by_op):>4} {gm:>7.3f} {won:>8} {firsts:>18}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("learn", "measure", "table"):
        p = sub.add_parser(name)
        p.add_argument("--out", required=True)
        p.add_argument("--half", default="held_out", choices=("tune", "held_out"))
        if name != "table":
            p.add_argument("--src", required=True)
            p.add_argument("--budget", type=int, default=60)
            p.add_argument("--seeds", type=int, default=3)
            p.add_argument("--learn-rewind-budget", type=int, default=20)
            p.add_argument("--ops", default="", help="only these operators of the half (category/name, comma-separated)")
    args = ap.parse_args()
    {"learn": learn, "measure": measure, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
