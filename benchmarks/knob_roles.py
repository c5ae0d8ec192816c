"""Issue 32's before/after measurement on both halves of ``results/knob_split.json``.

    python benchmarks/knob_roles.py --src /work/cannops/src --phase before [--sample 6] [--values 2]
    python benchmarks/knob_roles.py --src /work/cannops/src --phase after   # same operators

Per half (``held_out``, ``tune``):

* knobs per operator on every operator of the half (static; ``KnobSpace.from_operator``);
* on a seeded sample (``random.Random(32)`` order; ``--sample`` operators per half: two thirds
  cann-ops, the rest ``ops/``; an operator whose own sources fail its cases is recorded and
  replaced by the next in the order), the dead-knob share of ``knob_quality.py`` (each knob moved
  alone to ``--values`` neighbouring values) and the gain of ``ascendopt tune --budget 40`` at the
  suite's benchmark case.

Resumable: each finished operator is a line of ``--state`` (default
``/tmp/knob_roles_<phase>.jsonl``); a rerun skips it. ``--phase after`` takes its sample from
``results/knob_roles_before.json`` so both phases judge the same operators. Writes
``results/knob_roles_<phase>.{json,txt}``; ``--summarize`` writes them from the operators
finished so far (a run cut short by the clock).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path

from ascendopt.cli.common import load_targets
from ascendopt.operator import Operator
from ascendopt.tiling.space import KnobSpace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from knob_quality import measure  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
HALVES = ("held_out", "tune")


def op_dir(name: str, src: Path) -> Path:
    """``category/dir`` of cann-ops or ``ops/level/dir``."""
    return ROOT / name if name.startswith("ops/") else src / name


def half_ops(split: dict, half: str) -> list[str]:
    return split["cannops"][half] + [f"ops/{n}" for n in split["ops"][half]]


def sample_order(split: dict, half: str, seed: int) -> tuple[list[str], list[str]]:
    """The half's cann-ops and ops/ operators, each in a ``random.Random(seed)`` order."""
    rng = random.Random(seed)
    cann = list(split["cannops"][half])
    own = [f"ops/{n}" for n in split["ops"][half]]
    rng.shuffle(cann)
    rng.shuffle(own)
    return cann, own


def target(name: str, src: Path):
    """``(Operator, cases)`` with the suite's correctness cases."""
    suite, s = ("own", None) if name.startswith("ops/") else ("cannops", src)
    (op, cases, _), = load_targets(None, suite, s, only=Path(name).name)
    return op, cases


def run_tune(name: str, src: Path, budget: int, phase: str) -> dict:
    out = Path(f"/tmp/knob_roles_tune/{phase}/{name.replace('/', '_')}")
    suite = ["--suite", "own"] if name.startswith("ops/") else ["--suite", "cannops", "--src", str(src)]
    cmd = [sys.executable, "-m", "ascendopt.cli", "tune", Path(name).name, *suite, "--budget", str(budget),
           "--json", "--out", str(out), "--db", str(out.parent / "tune.db")]
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        r = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"error": (p.stderr or p.stdout)[-400:], "seconds": round(time.perf_counter() - t0, 1)}
    return {"baseline_us": r.get("baseline_latency_us"), "best_us": r.get("best_latency_us"),
            "speedup": r.get("speedup"), "charged": r.get("charged"), "stop": r.get("stop_reason"),
            "seconds": round(time.perf_counter() - t0, 1)}


def measure_op(name: str, src: Path, values: int, budget: int, phase: str) -> dict:
    op, cases = target(name, src)
    q = measure([(op, cases)], values, log=lambda s: print("  " + s, flush=True))["ops"][0]
    row = {"op": name, "quality": {k: q.get(k) for k in ("knobs", "dead", "inert", "skipped")},
           "knob_ids": [(k["id"], k["role"], k["dead"]) for k in q.get("detail", [])]}
    if not q.get("skipped"):
        row["tune"] = run_tune(name, src, budget, phase)
    return row


def load_state(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    return {r["op"]: r for r in map(json.loads, path.read_text().splitlines()) if r}


def sampled(split: dict, args, state: dict[str, dict]) -> dict[str, list[str]]:
    """Per half, the sampled operators (from the before file when ``--phase after``)."""
    if args.phase != "before":
        return json.loads((RESULTS / "knob_roles_before.json").read_text())["sample"]
    out = {}
    n_own = args.sample // 3
    for half in HALVES:
        cann, own = sample_order(split, half, args.seed)
        picked: list[str] = []
        for order, want in ((cann, args.sample - n_own), (own, n_own)):
            ok = 0
            for name in order:
                if ok == want:
                    break
                if name not in state:
                    print(f"[{half}] {name}", flush=True)
                    state[name] = measure_op(name, args.src, args.values, args.budget, args.phase)
                    with args.state.open("a") as f:
                        f.write(json.dumps(state[name]) + "\n")
                picked.append(name)
                ok += not state[name]["quality"].get("skipped")
        out[half] = picked
    return out


def finished(split: dict, args, state: dict[str, dict]) -> dict[str, list[str]]:
    """The sample as far as it was measured: per half, the finished operators in the order
    they were drawn (``--phase after``: those of the before sample finished after too)."""
    if args.phase != "before":
        before = json.loads((RESULTS / "knob_roles_before.json").read_text())["sample"]
        return {h: [n for n in before[h] if n in state] for h in HALVES}
    out = {}
    for half in HALVES:
        cann, own = sample_order(split, half, args.seed)
        out[half] = [n for n in cann + own if n in state]
    return out


def gm(xs: list[float]) -> float | None:
    return round(math.exp(sum(map(math.log, xs)) / len(xs)), 4) if xs else None


def summary(split: dict, sample: dict[str, list[str]], state: dict[str, dict], src: Path) -> dict:
    doc: dict = {"sample": sample, "halves": {}}
    for half in HALVES:
        counts = {n: len(KnobSpace.from_operator(Operator.load(op_dir(n, src)))) for n in half_ops(split, half)}
        rows = [state[n] for n in sample[half]]
        ran = [r for r in rows if not r["quality"].get("skipped")]
        knobs = sum(r["quality"]["knobs"] for r in ran)
        dead = sum(r["quality"]["dead"] for r in ran)
        sp = [r["tune"]["speedup"] for r in ran if r.get("tune", {}).get("speedup")]
        doc["halves"][half] = {
            "operators": len(counts), "knobs": sum(counts.values()),
            "knobs_per_op": round(sum(counts.values()) / len(counts), 3),
            "ops_without_knobs": sum(1 for v in counts.values() if not v), "counts": counts,
            "sample_ran": len(ran), "sample_knobs": knobs, "sample_dead": dead,
            "dead_share": round(dead / knobs, 4) if knobs else 0.0,
            "tune_gm_speedup": gm(sp), "rows": rows}
    return doc


def table(doc: dict, phase: str, args) -> str:
    lines = [f"Issue 32 knob roles, {phase} (commit {doc['commit']})",
             f"command: {doc['command']}", ""]
    for half in HALVES:
        h = doc["halves"][half]
        lines.append(f"{half}: {h['operators']} operators, {h['knobs']} knobs, {h['knobs_per_op']} per operator, "
                     f"{h['ops_without_knobs']} without knobs")
        lines.append(f"  sample ({h['sample_ran']} ran): {h['sample_knobs']} knobs, {h['sample_dead']} dead "
                     f"({h['dead_share']:.1%}); tune --budget {args.budget} GM speedup {h['tune_gm_speedup']}")
        for r in h["rows"]:
            q, t = r["quality"], r.get("tune", {})
            if q.get("skipped"):
                lines.append(f"    {r['op']:<44} skipped (own sources: {q['skipped']})")
                continue
            lines.append(f"    {r['op']:<44} knobs {q['knobs']:>2} dead {q['dead']:>2} inert {q['inert']:>2}  "
                         f"tune {t.get('baseline_us')} -> {t.get('best_us')} us ({t.get('speedup')}x)"
                         + (f" error {t['error'][-120:]!r}" if t.get("error") else ""))
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True)
    ap.add_argument("--phase", choices=("before", "after"), required=True)
    ap.add_argument("--sample", type=int, default=6)
    ap.add_argument("--values", type=int, default=2)
    ap.add_argument("--budget", type=int, default=40)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--state", type=Path)
    ap.add_argument("--summarize", action="store_true",
                    help="measure nothing: write the results of the sampled operators finished so far")
    args = ap.parse_args()
    args.state = args.state or Path(f"/tmp/knob_roles_{args.phase}.jsonl")
    split = json.loads((RESULTS / "knob_split.json").read_text())
    state = load_state(args.state)
    if args.summarize:
        sample = finished(split, args, state)
    else:
        sample = sampled(split, args, state)
    for half in HALVES:
        for name in sample[half]:
            if name not in state:
                print(f"[{half}] {name}", flush=True)
                state[name] = measure_op(name, args.src, args.values, args.budget, args.phase)
                with args.state.open("a") as f:
                    f.write(json.dumps(state[name]) + "\n")
    doc = summary(split, sample, state, args.src)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    doc["commit"] = head.stdout.strip()
    doc["command"] = (f"python benchmarks/knob_roles.py --src <cann-ops>/src --phase {args.phase} "
                      f"--sample {args.sample} --values {args.values} --budget {args.budget}")
    (RESULTS / f"knob_roles_{args.phase}.json").write_text(json.dumps(doc, indent=1) + "\n")
    text = table(doc, args.phase, args)
    (RESULTS / f"knob_roles_{args.phase}.txt").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
