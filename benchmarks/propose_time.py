"""Issue 31, item 3: lazy proposals. Times ``OfflineRewriter.propose(ctx, n)`` (ranked, built only
up to n; cold: the parses and site finding are included) against ``candidates(ctx)`` (every
proposal built; warm: the parses and sites are cached by then) on one operator, with an empty
diagnosis and no experiences (the registry order).

    python benchmarks/propose_time.py <operator dir> [--n 3]
"""

from __future__ import annotations

import argparse
import time

from ascendopt.evaluate.evaluation import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.rewriter import OfflineRewriter, RewriteContext


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op_dir")
    ap.add_argument("--n", type=int, default=3)
    args = ap.parse_args()
    op = Operator.load(args.op_dir)
    rewriter = OfflineRewriter()

    def ctx() -> RewriteContext:
        return RewriteContext(op, Evaluation("ok"), Diagnosis())

    t = time.perf_counter()
    few = rewriter.propose(ctx(), args.n)
    t_few = time.perf_counter() - t
    t = time.perf_counter()
    every = rewriter.candidates(ctx())
    t_all = time.perf_counter() - t
    print(f"{op.name}: propose(n={args.n}) built {len(few)} in {t_few:.2f} s (cold); "
          f"candidates() built {len(every)} in {t_all:.2f} s (warm caches)")


if __name__ == "__main__":
    main()
