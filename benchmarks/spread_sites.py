"""Where ``spread_cores`` applies in a suite, and why not elsewhere: per operator, the host
launch (constant or computed), the rewrite's sites, and the independence verdict of every
outermost loop on the kernel's path (the first refusal reason).

    python benchmarks/spread_sites.py --suite cannops --src <cann-ops>/src [--skip NAME,...] [--ops GLOB,...]
"""

from __future__ import annotations

import argparse
import fnmatch

from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel_check import independent
from ascendopt.cxx.parse import of_type
from ascendopt.cxx.syntax import LOOPS, enclosing, function_of
from ascendopt.operator import Operator
from ascendopt.suites import load_suite
from ascendopt.transforms.base import kernel_parsed
from ascendopt.transforms.library.spread_cores import SpreadCores, launches


def loop_verdicts(op: Operator) -> list[str]:
    prog = Program(kernel_parsed(op))
    out = []
    for c in prog.reach(prog.entries()):
        for n in of_type(c.p, "for_statement"):
            outer = enclosing(n, LOOPS)
            if function_of(n) == c.fn and not (outer is not None and function_of(outer) == c.fn):
                v = independent(prog, c, n)
                out.append(f"{c.name}:{c.p.line(n.start_byte)} " + ("independent" if v.ok else v.reason))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="own")
    ap.add_argument("--src")
    ap.add_argument("--ops", default="")
    ap.add_argument("--skip", default="", help="operator names never to open, comma-separated")
    ap.add_argument("--loops", action="store_true", help="print every loop's verdict")
    args = ap.parse_args()
    pats = [g for g in args.ops.split(",") if g]
    skip = {s for s in args.skip.split(",") if s}
    with_site = total = 0
    for sop in load_suite(args.suite, args.src).ops:
        key = f"{sop.dir.parent.name}/{sop.name}"
        if sop.name in skip or pats and not any(fnmatch.fnmatch(key, g) or fnmatch.fnmatch(sop.name, g) for g in pats):
            continue
        total += 1
        try:
            op = Operator.load(sop.dir)
            sites = SpreadCores().find(op)
            launch = ",".join(ln.constant or "computed" for ln in launches(op)) or "none"
        except Exception as e:  # noqa: BLE001 - listed as such
            print(f"{key}: error {type(e).__name__}: {e}")
            continue
        with_site += bool(sites)
        print(f"{key}: launch={launch} sites={len(sites)}" + "".join(f"\n    site: {s.label}" for s in sites))
        if args.loops:
            for v in loop_verdicts(op):
                print(f"    loop {v}")
    print(f"{with_site} of {total} operators have a site")


if __name__ == "__main__":
    main()
