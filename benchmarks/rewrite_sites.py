"""How many rewrites the offline Stage I rewriter proposes for each operator of a suite, with no
experiences (registry order), by transform: the figure behind "real kernels offer many rewrite
sites, so the experiences' ranking decides what Stage I tries" (stage1_recovery_cannops.txt).

    python benchmarks/rewrite_sites.py [--suite cannops --src <cann-ops>/src] [--ops GLOB,...]
"""

from __future__ import annotations

import argparse
import fnmatch
from collections import Counter

from ascendopt.operator import Operator
from ascendopt.refine.rewriter import OfflineRewriter, RewriteContext
from ascendopt.suites import load_suite


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="own")
    ap.add_argument("--src")
    ap.add_argument("--ops", default="", help="CATEGORY/NAME or NAME globs, comma-separated")
    args = ap.parse_args()
    pats = [g for g in args.ops.split(",") if g]
    rewriter = OfflineRewriter()
    for sop in load_suite(args.suite, args.src).ops:
        key = f"{sop.dir.parent.name}/{sop.name}"
        if pats and not any(fnmatch.fnmatch(key, g) or fnmatch.fnmatch(sop.name, g) for g in pats):
            continue
        try:
            op = Operator.load(sop.dir)
        except Exception as e:  # noqa: BLE001 - an operator that does not load is listed as such
            print(f"{key}: does not load ({e})")
            continue
        props = rewriter.candidates(RewriteContext(op, None, None, [], set()))
        by = Counter(p.transform.name for p in props)
        print(f"{key}: {len(props)} " + " ".join(f"{t}={n}" for t, n in by.most_common()))


if __name__ == "__main__":
    main()
