"""How many cann-ops operators build and pass their cases on the simulator (issue 15): a thin
wrapper around the package's ``ascendopt compat`` that checks categories of a checkout and
writes the JSON document to ``benchmarks/results/cannops_compat.json``.

    python benchmarks/cannops_compat.py --src /path/to/cann-ops [math activation ...]
        [--only abs,swish] [--timeout 300] [--case-timeout 60] [--workers 1] [--max-cases N]
        [--goldens FILE.py ...] [--out benchmarks/results/cannops_compat.json]

The checkout comes from ``--src`` or ``CANNOPS_DIR``; the positional arguments are categories
under its ``src/`` (default: math activation). Operators of the shipped ``cannops`` suite are
checked with its goldens and case files; the others with the function of ``--goldens``
(default: every ``suites/cannops/goldens/*.py``) named like them, else with their own golden
scripts (which import TensorFlow/PyTorch: then ``unchecked``). Statuses, causes and the
document: ``src/ascendopt/compat/report.py``; the same run from the command line is
``ascendopt compat <checkout>/src/math --goldens suites/cannops/goldens/math.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ascendopt.cli.compat import print_totals, print_row
from ascendopt.compat import (CompatConfig, TargetError, dir_targets, document, run_targets, select, suite_targets,
                              with_goldens)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CATEGORIES = ("math", "activation")
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "cannops_compat.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("categories", nargs="*", default=list(DEFAULT_CATEGORIES))
    ap.add_argument("--src", default=os.environ.get("CANNOPS_DIR"), help="cann-ops checkout (or CANNOPS_DIR)")
    ap.add_argument("--only", default="", help="comma-separated operator directory names")
    ap.add_argument("--goldens", type=Path, nargs="*", default=sorted((ROOT / "suites/cannops/goldens").glob("*.py")))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per operator (build + all cases)")
    ap.add_argument("--case-timeout", type=float, default=60.0, help="seconds per case run")
    ap.add_argument("--max-cases", type=int, default=0, help="check at most this many cases per operator")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    if not args.src:
        ap.error("no cann-ops checkout: pass --src DIR or set CANNOPS_DIR")
    src = Path(args.src) / "src"
    try:
        targets = [t for cat in args.categories for t in dir_targets(src / cat)]
        suite = {t.dir: t for t in suite_targets("cannops", src)}
        targets = [suite.get(t.dir, t) for t in targets]  # the suite's goldens and cases where it has them
        targets = with_goldens(select(targets, args.only.split(",")), args.goldens)
    except TargetError as e:
        ap.error(str(e))
    cfg = CompatConfig(workers=args.workers, timeout_s=args.timeout, case_timeout_s=args.case_timeout,
                       max_cases=args.max_cases or None)
    run = run_targets(targets, cfg, on_row=print_row)
    print_totals(run, len(targets))
    if not args.only and not run.interrupted:
        config = {"src": str(args.src), "categories": args.categories, "goldens": [str(g) for g in args.goldens],
                  **cfg.to_dict()}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        doc = document(run.rows, wall_s=run.wall_s, interrupted=False, config=config)
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 130 if run.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
