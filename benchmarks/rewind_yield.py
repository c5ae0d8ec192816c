"""Rewind yield per motif over a suite, and the shipped default bank.

    python benchmarks/rewind_yield.py [--suite own|DIR] [--budget 20] [--depth 2]
                                      [--workers 1] [--write-default] [--report]

Rewinds every operator of the suite (``own``: this project's ``ops/``; with a cann-ops
checkout, ``--suite $CANNOPS_DIR/src/math`` etc.) for ``--budget`` evaluations each, on the
simulator, noise-free, and prints per motif: sites found, candidates tried, kept, the kept
share, the median slowdown of the kept ones; split by in-sample operators (those the motifs
were written against) and held-out ones (:data:`HELD_OUT`, never opened while writing the
motifs). Also: evaluations per kept experience, the bank's size and families.

``--write-default`` exports the resulting bank to ``src/ascendopt/bank/default_bank.json``
(the bank ``ascendopt`` uses when no ``--bank`` is given). The run is deterministic: same
sources, same simulator, same bank. Summaries go to ``benchmarks/results/rewind_yield.{txt,json}``;
the records and the bank database stay in a scratch directory (not committed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.bank.store import DEFAULT_BANK_JSON
from ascendopt.operator import Operator
from ascendopt.rewind.engine import RewindConfig, rewind
from ascendopt.session import RunSpec, Session
from ascendopt.suites import load_suite
from ascendopt.transforms import MOTIFS
from ascendopt.bank.transfer import export_json


RESULTS = Path(__file__).resolve().parent / "results"
#: Operators kept aside while the motifs and rewrites were written (out-of-sample check).
HELD_OUT = {"log_softmax_last", "select_custom", "clip_custom", "matmul_custom"}


def run(suite: str, budget: int, depth: int, workers: int, scratch: Path, src: Path | None = None,
        max_ops: int = 0) -> dict:
    # what `ascendopt rewind` composes (ascendopt.session), on scratch files
    session = Session(RunSpec("rewind", budget=budget, workers=workers, db=scratch / "records.db",
                              bank=scratch / "bank.db"))
    bank = session.bank(seeded=False)
    motifs = session.motifs()
    executor = session.executor()
    per_op = []
    t0 = time.perf_counter()
    try:
        for sop in load_suite(suite, src).ops[:max_ops or None]:
            try:
                op, cases = Operator.load(sop.dir), sop.load_cases()
            except Exception as e:  # noqa: BLE001 - an operator that does not load is reported, not rewound
                print(f"{sop.dir.name}: does not load: {e}", file=sys.stderr, flush=True)
                continue
            be = session.budgeted(session.evaluator(tuple(sop.benchmark), cases), op.name,
                                  {"script": "rewind_yield"}, executor)
            res = rewind(op, cases, be, motifs, RewindConfig(depth=depth, batch=workers), bank=bank)
            be.finish()
            print(f"{op.name}: {len(res.kept)} kept / {sum(1 for a in res.attempts if a.status)} tried, "
                  f"{res.charged} charged, {res.seconds:.0f} s ({res.stop_reason})", file=sys.stderr, flush=True)
            per_op.append({**res.to_dict(), "held_out": op.name in HELD_OUT})
    finally:
        session.close()
    return {"suite": suite, "budget": budget, "depth": depth, "seconds": round(time.perf_counter() - t0, 1),
            "operators": per_op, "bank_size": len(bank), "families": bank.families(), "bank": bank}


def sites_found(suite: str, src: Path | None = None) -> dict[str, dict[str, int]]:
    """Sites each motif finds on each original operator (no evaluation)."""
    out: dict[str, dict[str, int]] = {}
    for d in load_suite(suite, src).dirs:
        try:
            op = Operator.load(d)
        except Exception:  # noqa: BLE001
            continue
        for name, cls in MOTIFS.all().items():
            try:
                n = len(cls().find(op))
            except Exception:  # noqa: BLE001 - a matcher crash counts as nothing found, and is shown
                n = -1
            out.setdefault(name, {})[op.name] = n
    return out


def table(data: dict, sites: dict[str, dict[str, int]]) -> str:
    lines = [f"Rewind yield, suite {data['suite']}, budget {data['budget']} per operator, depth {data['depth']}, "
             f"{data['seconds']:.0f} s", "",
             f"{'motif':<24} {'split':<9} {'ops w/ site':>11} {'tried':>6} {'kept':>5} {'yield':>6} {'med x':>6}"]
    for name in MOTIFS.all():
        for split, held in (("in", False), ("held-out", True)):
            ops = [o for o in data["operators"] if o["held_out"] == held]
            att = [a for o in ops for a in o["attempts"] if a["motif"] == name and a["status"]]
            kept = [a for a in att if a["reason"] == "kept"]
            with_site = sum(1 for o in ops if sites.get(name, {}).get(o["op"], 0) > 0)
            med = f"{statistics.median(a['slowdown'] for a in kept):.2f}" if kept else "-"
            yld = f"{len(kept) / len(att):.0%}" if att else "-"
            lines.append(f"{name:<24} {split:<9} {with_site:>5}/{len(ops):<5} {len(att):>6} {len(kept):>5} {yld:>6} {med:>6}")
    ops = data["operators"]
    charged = sum(o["charged"] for o in ops)
    kept = sum(o["kept"] for o in ops)
    lines += ["", f"{len(ops)} operators, {charged} evaluations charged, {kept} kept pairs, "
              f"{charged / kept if kept else float('inf'):.1f} evaluations per kept pair",
              f"bank: {data['bank_size']} experiences after dedup; families: "
              + ", ".join(f"{k} {v}" for k, v in data["families"].items())]
    failed = [o["op"] for o in ops if o["stop_reason"] == "root_failed"]
    if failed:
        lines.append(f"originals failing their own cases (not rewound): {', '.join(failed)}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="own")
    ap.add_argument("--src", type=Path, help="where a suite's operators live (e.g. $CANNOPS_DIR/src)")
    ap.add_argument("--max-ops", type=int, default=0, help="only the first N operators of the suite")
    ap.add_argument("--budget", type=int, default=20)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--write-default", action="store_true", help="export the bank to the shipped default bank")
    ap.add_argument("--report", action="store_true", help="print the last saved table and exit")
    ap.add_argument("--name", default="rewind_yield", help="results file stem")
    args = ap.parse_args()
    txt = RESULTS / f"{args.name}.txt"
    if args.report:
        print(txt.read_text())
        return
    with tempfile.TemporaryDirectory(prefix="ao-rewind-") as tmp:
        data = run(args.suite, args.budget, args.depth, args.workers, Path(tmp), args.src, args.max_ops)
        bank = data.pop("bank")
        if args.write_default:
            n = export_json(bank, DEFAULT_BANK_JSON)
            print(f"default bank: {n} experiences written to {DEFAULT_BANK_JSON}", file=sys.stderr)
        bank.close()
    sites = {m: dict(list(per.items())[:len(data["operators"])] if args.max_ops else per)
             for m, per in sites_found(args.suite, args.src).items()}
    text = table(data, sites)
    RESULTS.mkdir(exist_ok=True)
    txt.write_text(text + "\n")
    slim = {**data, "sites": sites,
            "operators": [{k: v for k, v in o.items() if k != "attempts"} |
                          {"attempts": [{k: a[k] for k in ("motif", "depth", "status", "reason", "slowdown",
                                                           "latency_us", "site")} for a in o["attempts"]]}
                          for o in data["operators"]]}
    (RESULTS / f"{args.name}.json").write_text(json.dumps(slim, indent=1, default=str) + "\n")
    print(text)


if __name__ == "__main__":
    main()
