"""Stage I + the loop: how much of a lost speed does ``optimize`` recover, with and without
experiences, at equal budget.

    python benchmarks/stage1_recovery.py [--budget 60] [--max-variants 16] [--report]
        [--suite own|cannops|FILE --src PATH --ops GLOB,...]

1. **Weak variants** of this project's operators are made by rewind's own motifs, none
   hand-fixed: per operator (in suite order) the kernel motifs (Stage I's domain; the host
   motifs shrink tiles or cores, which Stage II's benchmark covers) are tried in registry
   order rotated by the operator's index, and the first de-optimization that stays correct
   and is at least :data:`MIN_LOSS` slower becomes that operator's variant; every third
   operator also gets a two-motif variant (a second motif of any scope applied to the first). Variants of the held-out
   operators (:data:`HELD_OUT` of ``rewind_yield.py``) are reported separately. With ``--suite`` the operators
   are a suite's (e.g. cann-ops, none of which was read while the transforms were written: all are
   held out), with the suite's cases and timed cases; results go to ``stage1_recovery_<suite>.*``.
2. Each variant is optimized offline (``OfflineRewriter``) for ``--budget`` evaluations with
   rewind off and the bank frozen, twice: with the shipped default bank, leaving out every
   experience measured on the same operator (so nothing it retrieves was learnt on itself),
   and with ``--no-experience``.
3. Recovered share = (weak - best) / (weak - strong); target: >= 90 % on >= 80 % of variants.
   Also: evaluations charged until 90 % was first reached.

Summaries: ``benchmarks/results/stage1_recovery[_<suite>].{txt,json}``; records stay in a scratch dir.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.agent import AgentConfig, optimize
from ascendopt.bench.pair import suite_cases
from ascendopt.evaluate.evaluator import Evaluator
from ascendopt.operator import Operator
from ascendopt.refine.rewriter import OfflineRewriter
from ascendopt.session import motifs_for, script_session
from ascendopt.suites import load_suite
from ascendopt.transforms import MOTIFS


sys.path.insert(0, str(Path(__file__).resolve().parent))
from rewind_yield import HELD_OUT  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
MIN_LOSS = 0.05


def _weaken(op: Operator, cases, evaluator: Evaluator, order: list[str], strong_us: float,
            soc: str, skip: str = "") -> tuple[Operator, str, float] | None:
    for name in order:
        if name == skip:
            continue
        m = motifs_for(soc, [name])[0]  # built for the operator's SoC, as rewind builds them
        try:
            sites = m.find(op)
        except Exception:  # noqa: BLE001
            continue
        for s in sites[:2]:
            cand = m.apply(op, s)
            ev = evaluator.evaluate(cand, cases)
            if ev.ok and ev.latency_us and ev.latency_us >= strong_us * (1 + MIN_LOSS):
                return cand, f"{name}: {s.label}", ev.latency_us
    return None


def _suite_ops(suite: str, src: str | None, globs: str) -> list:
    """The suite's operators (``globs``: only those whose ``CATEGORY/NAME`` or name matches)."""
    ops = load_suite(suite, src).ops
    pats = [g for g in globs.split(",") if g]
    if not pats:
        return list(ops)
    return [o for o in ops if any(fnmatch.fnmatch(f"{o.dir.parent.name}/{o.name}", g) or fnmatch.fnmatch(o.name, g)
                                  for g in pats)]


def _op_and_cases(v: dict):
    """A variant's suite operator, its cases and timed cases."""
    sop = next(o for o in load_suite(v.get("suite", "own"), v.get("src")).ops if str(o.dir) == v["dir"])
    cases, timed = suite_cases(sop)
    return sop, cases, timed


def make_variants(max_variants: int, suite: str = "own", src: str | None = None, globs: str = "",
                  save: Path | None = None) -> list[dict]:
    """The weak variants (see the module docstring); with ``save`` each is written as it is made."""
    names = list(MOTIFS.all())
    out = []
    for i, sop in enumerate(_suite_ops(suite, src, globs)):
        if len(out) >= max_variants:
            break
        d = sop.dir
        try:
            op = Operator.load(d)
            cases, timed = suite_cases(sop)
        except Exception as e:  # noqa: BLE001 - an operator that does not load is skipped, said
            print(f"skip {sop.name}: {e}", file=sys.stderr)
            continue
        session = script_session(soc=sop.soc)  # the evaluator the commands compose, on the operator's SoC
        ev = session.evaluator(timed, cases)
        strong = ev.evaluate(op, cases)
        if not strong.ok or not strong.latency_us:
            print(f"skip {sop.name}: the original is {strong.status}", file=sys.stderr)
            continue
        order = names[i % len(names):] + names[:i % len(names)]
        kernel_order = [n for n in order if MOTIFS.all()[n].scope == "kernel"]
        one = _weaken(op, cases, ev, kernel_order, strong.latency_us, session.soc)
        if one is None:
            continue
        weak, what, weak_us = one
        base = {"op": op.name, "dir": str(d), "suite": suite, "src": src,
                "held_out": suite != "own" or op.name in HELD_OUT}
        out.append({**base, "what": [what], "strong_us": strong.latency_us, "weak_us": weak_us,
                    "files": dict(weak.files)})
        print(f"variant {op.name}: {what} {strong.latency_us:.2f} -> {weak_us:.2f} us", file=sys.stderr, flush=True)
        if save:
            save.write_text(json.dumps(out))
        if i % 3 == 0 and len(out) < max_variants:
            two = _weaken(weak, cases, ev, order[1:] + order[:1], weak_us * (1 + 0.0), session.soc,
                          skip=what.split(":")[0])
            if two is not None:
                weak2, what2, weak2_us = two
                out.append({**base, "what": [what, what2], "strong_us": strong.latency_us,
                            "weak_us": weak2_us, "files": dict(weak2.files)})
                print(f"variant {op.name}: {what} + {what2} -> {weak2_us:.2f} us", file=sys.stderr, flush=True)
                if save:
                    save.write_text(json.dumps(out))
    return out


def run_variant(v: dict, budget: int, use_experience: bool, scratch: Path, tag: str) -> dict:
    d = Path(v["dir"])
    sop, cases, timed = _op_and_cases(v)
    Operator.load(d)  # the directory's op type (one a macro makes is resolved once, here)
    weak = Operator.from_files(v["op"], v["files"], d, origin="original")
    # what `ascendopt optimize` composes (ascendopt.session), the shipped bank in memory
    session = script_session("stage1_recovery", soc=sop.soc, budget=budget, db=scratch / f"{tag}.db")
    be = session.budgeted(session.evaluator(timed, cases), v["op"], {"variant": v["what"]})
    bank = session.bank()
    cfg = AgentConfig(rewind_budget=0, freeze_bank=True, use_experience=use_experience, exclude_ops=(v["op"],))
    t0 = time.perf_counter()
    res = optimize(weak, cases, be, OfflineRewriter(), bank, cfg)
    lost = v["weak_us"] - v["strong_us"]
    best = res.best_us or v["weak_us"]
    # evaluations charged until 90 % of the loss was recovered
    to90 = None
    for n, r in enumerate((r for r in session.store.list_evaluations(be.run_id) if r.charged), start=1):
        lat = r.evaluation.latency_us
        if r.evaluation.ok and lat is not None and (v["weak_us"] - lat) >= 0.9 * lost:
            to90 = n
            break
    return {"recovered": (v["weak_us"] - best) / lost if lost > 0 else 1.0, "best_us": best, "to90": to90,
            "charged": res.charged, "by_stage": res.charged_by_stage, "seconds": round(time.perf_counter() - t0, 1),
            "accepted": [a.what for a in res.accepted]}


def table(rows: list[dict], budget: int) -> str:
    lines = [f"Stage I + loop recovery, budget {budget}, offline rewriter, default bank leaving out the operator's own "
             "experiences (exp) vs --no-experience (noexp)", "",
             f"{'operator':<18} {'split':<8} {'weakened by':<44} {'strong':>7} {'weak':>7} "
             f"{'exp %':>6} {'to90':>5} {'noexp %':>7} {'to90':>5}"]
    for r in rows:
        e, n = r["exp"], r["noexp"]
        lines.append(f"{r['op']:<18} {'held' if r['held_out'] else 'in':<8} {' + '.join(w.split(':')[0] for w in r['what']):<44} "
                     f"{r['strong_us']:>7.2f} {r['weak_us']:>7.2f} {100 * e['recovered']:>6.0f} {e['to90'] or '-':>5} "
                     f"{100 * n['recovered']:>7.0f} {n['to90'] or '-':>5}")
    for cond in ("exp", "noexp"):
        ok = [r for r in rows if r[cond]["recovered"] >= 0.9]
        t90 = sorted(r[cond]["to90"] for r in rows if r[cond]["to90"])
        med = t90[len(t90) // 2] if t90 else None
        lines.append(f"{cond}: {len(ok)}/{len(rows)} variants recover >= 90 % ({len(ok) / max(1, len(rows)):.0%}); "
                     f"median evaluations to 90 %: {med}; mean recovered "
                     f"{sum(min(1.0, r[cond]['recovered']) for r in rows) / max(1, len(rows)):.0%}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=int, default=60)
    ap.add_argument("--max-variants", type=int, default=16)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--save-variants", type=Path, help="only make the weak variants and save them here (JSON)")
    ap.add_argument("--variants", type=Path, help="use the weak variants saved by --save-variants")
    ap.add_argument("--conditions", default="exp,noexp", help="run only these conditions (their rows are saved "
                                                                 "per condition and merged by --merge)")
    ap.add_argument("--merge", action="store_true", help="merge the saved per-condition rows into the table")
    ap.add_argument("--suite", default="own", help="the operators' suite (own, cannops or a manifest)")
    ap.add_argument("--src", help="where the suite's operators live (cann-ops: <checkout>/src)")
    ap.add_argument("--ops", default="", help="only these operators (CATEGORY/NAME or NAME globs, comma-separated)")
    args = ap.parse_args()
    stem = "stage1_recovery" if args.suite == "own" else f"stage1_recovery_{Path(args.suite).stem}"
    txt = RESULTS / f"{stem}.txt"
    if args.report:
        print(txt.read_text())
        return
    if args.merge:
        rows = merge(stem)
        text = table(rows, args.budget)
        txt.write_text(text + "\n")
        (RESULTS / f"{stem}.json").write_text(json.dumps({"budget": args.budget, "rows": rows}, indent=1))
        print(text)
        return
    variants = json.loads(args.variants.read_text()) if args.variants else make_variants(args.max_variants, args.suite, args.src, args.ops,
                                                                               args.save_variants)
    if args.save_variants:
        args.save_variants.write_text(json.dumps(variants))
        print(f"{len(variants)} variants saved to {args.save_variants}", file=sys.stderr)
        return
    conds = [c for c in args.conditions.split(",") if c]
    if True:
        rows = []
        with tempfile.TemporaryDirectory(prefix="ao-stage1-") as tmp:
            for i, v in enumerate(variants):
                row = {k: v[k] for k in ("op", "what", "strong_us", "weak_us", "held_out")}
                for cond in conds:
                    row[cond] = run_variant(v, args.budget, cond == "exp", Path(tmp), f"{i}-{cond}")
                    print(f"{v['op']} {cond}: recovered {row[cond]['recovered']:.0%} in {row[cond]['charged']} "
                          f"({row[cond]['seconds']} s) {row[cond]['accepted']}", file=sys.stderr, flush=True)
                rows.append(row)
                RESULTS.mkdir(exist_ok=True)
                (RESULTS / f"{stem}_{'_'.join(conds)}.json").write_text(
                    json.dumps({"budget": args.budget, "rows": rows}, indent=1))
        if set(conds) != {"exp", "noexp"}:
            return
    text = table(rows, args.budget)
    txt.write_text(text + "\n")
    (RESULTS / f"{stem}.json").write_text(json.dumps({"budget": args.budget, "rows": rows}, indent=1))
    print(text)


def merge(stem: str) -> list[dict]:
    """Rows of the per-condition runs, joined by variant index."""
    parts = [json.loads((RESULTS / f"{stem}_{c}.json").read_text())["rows"] for c in ("exp", "noexp")]
    rows = []
    for a, b in zip(*parts):
        assert a["op"] == b["op"] and a["what"] == b["what"], "the two runs used different variants"
        rows.append({**a, "noexp": b["noexp"]})
    return rows


if __name__ == "__main__":
    main()
