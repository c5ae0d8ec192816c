"""One knob's landscape: the latency of a config on an operator's benchmark case as one knob
moves, the other knobs fixed (the float32 cases, as in ``stage2_strategies.py``; with
``--dtypes all`` the largest case of all, which ``ascendopt tune`` times).

    python benchmarks/knob_scan.py silu --config '{"maxCoreNum": 42, "ubReserveBytes": 25600}' \\
        --knob maxCoreNum --values 40:44
    python benchmarks/knob_scan.py reduce_sum_last --knob groupRows --values 8:128:4

``--values`` is ``lo:hi[:step]`` (inclusive) or a comma list. Knobs not in ``--config`` keep the
operator's own values. Prints one line per value: status, latency (µs), block dim and the
busiest pipes of the profile.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import benchmark_cases
from ascendopt.operator import Operator
from ascendopt.session import script_session
from ascendopt.tiling.space import KnobSpace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from stage2_strategies import select_cases  # noqa: E402


def parse_values(text: str) -> list[int]:
    if ":" in text:
        lo, hi, *step = (int(x) for x in text.split(":"))
        return list(range(lo, hi + 1, step[0] if step else 1))
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("op", help="operator name under ops/ (e.g. silu)")
    ap.add_argument("--knob", required=True)
    ap.add_argument("--values", required=True, help="lo:hi[:step] (inclusive) or a comma list")
    ap.add_argument("--config", default="{}", help="JSON of the other knobs' values")
    ap.add_argument("--dtypes", choices=("float32", "all"), default="float32",
                    help="the cases the benchmark case is chosen from")
    args = ap.parse_args()
    op_dirs = {p.parent.name: p.parent for p in (ROOT / "ops").rglob("op_host")}
    if args.op not in op_dirs:
        sys.exit(f"unknown operator {args.op!r}; known: {', '.join(sorted(op_dirs))}")
    op = Operator.load(op_dirs[args.op])
    session = script_session(seed=0, jobs=1)  # the evaluator the commands compose
    space = KnobSpace.from_operator(op, soc=session.soc)
    if args.knob not in space.ids:
        sys.exit(f"unknown knob {args.knob!r}; knobs: {', '.join(space.ids)}")
    config = json.loads(args.config)
    unknown = set(config) - set(space.ids)
    if unknown:
        sys.exit(f"unknown knobs in --config: {sorted(unknown)}; knobs: {', '.join(space.ids)}")
    cases = select_cases(load_op_cases(op_dirs[args.op]), args.dtypes)
    evaluator = session.evaluator(())
    bench = benchmark_cases(cases, evaluator.config.benchmark_cases)
    print(f"{args.op}: {args.knob} over {args.values} with {json.dumps(config)} on {bench[0].name}")
    for v in parse_values(args.values):
        ev = evaluator.evaluate(space.apply(op, {**config, args.knob: v}, origin="scan"), bench)
        lat = f"{ev.latency_us:10.4f}" if ev.ok and ev.latency_us is not None else f"{'-':>10}"
        prof = next(iter(ev.profile.values()), {}) if ev.ok and ev.profile else {}
        ratios = sorted((prof.get("pipe_ratio_mean") or {}).items(), key=lambda kv: -kv[1])[:3]
        pipes = " ".join(f"{p} {r:.0%}" for p, r in ratios)
        print(f"{v:>10} {ev.status:<14}{lat}  block dim {prof.get('block_dim', '-')}  {pipes}", flush=True)


if __name__ == "__main__":
    main()
