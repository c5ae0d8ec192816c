"""Apply ``spread_cores`` to suite operators and measure: every case of the suite checked on
the simulator before and after (status, block dim, task duration of the benchmark cases).

    python benchmarks/spread_measure.py --suite cannops --src <cann-ops>/src --ops NAME,...
"""

from __future__ import annotations

import argparse

from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator
from ascendopt.session import script_session
from ascendopt.suites import load_suite
from ascendopt.transforms.library.spread_cores import SpreadCores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="cannops")
    ap.add_argument("--src")
    ap.add_argument("--ops", required=True, help="operator names, comma-separated")
    args = ap.parse_args()
    names = set(args.ops.split(","))
    for sop in load_suite(args.suite, args.src).ops:
        if sop.name not in names:
            continue
        backend = script_session(soc=sop.soc).backend  # the backend the commands compose, on the operator's SoC
        op = Operator.load(sop.dir)
        sites = SpreadCores().find(op)
        if not sites:
            print(f"{sop.name}: no site")
            continue
        fast = SpreadCores().apply(op, sites[0])
        cases = sop.load_cases()
        for label, o in (("original", op), ("rewritten", fast)):
            rs = check_operator(backend, o, cases, seed=1, cfg=CheckConfig(timeout_s=300.0))
            bad = [r for r in rs if r.status != "ok"]
            timed = [r for r in rs if not sop.benchmark or r.name in sop.benchmark]
            print(f"{sop.name} {label}: {len(rs) - len(bad)}/{len(rs)} ok"
                  + "".join(f"; {r.name}: block_dim {r.block_dim}, {r.task_duration_us:.1f} us" for r in timed
                            if r.task_duration_us is not None)
                  + "".join(f"; FAIL {r.name}: {r.status} {r.message[:200]}" for r in bad[:3]))


if __name__ == "__main__":
    main()
