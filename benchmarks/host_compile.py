"""Compile time of one op_host object, as a tiling-only candidate pays it.

    python benchmarks/host_compile.py [OP_DIR ...] [--repeats N] [--json]

For each operator (default: every op under ops/) the host source is compiled with exactly the
candidate command (`SimBuilder.host_compile_cmd`: -O0, host precompiled header force-included)
`--repeats` times; the minimum wall time is printed with the object's count of weak/text
symbols (what the host emulation headers make every object instantiate). To compare with an
older tree, run the same command in a checkout of it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ascendopt.backends.sim.build import SimBuilder
from ascendopt.operator import Operator

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ops", nargs="*", type=Path, help="operator directories (default: every op under ops/)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    dirs = args.ops or sorted(p.parent for p in (ROOT / "ops").rglob("op_host"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="ao-hostcc-") as tmp:
        builder = SimBuilder(cache_dir=Path(tmp) / "cache")
        builder.host_prelude()  # the PCH is built once per toolchain, not per candidate
        for d in dirs:
            op = Operator.load(d)
            src_dir = builder._materialize(op)
            for rel in (k for k in sorted(op.host_files()) if k.endswith((".cpp", ".cc", ".cxx"))):
                obj = Path(tmp) / "h.o"
                cmd = builder.host_compile_cmd(src_dir / rel, obj)
                times = []
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    res = subprocess.run(cmd, capture_output=True, text=True)
                    times.append(time.perf_counter() - t)
                    if res.returncode != 0:
                        print(f"{rel}: compile failed\n{res.stderr[-2000:]}", file=sys.stderr)
                        return 1
                nm = subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True).stdout
                syms = sum(1 for ln in nm.splitlines() if ln.split()[1:2] in (["W"], ["T"]))
                rows.append({"op": op.name, "file": rel, "min_s": min(times), "symbols": syms})
                if not args.json:
                    print(f"{op.name:<22} {rel:<40} {min(times):6.3f} s  {syms:5d} weak/text symbols")
    summary = {"median_min_s": statistics.median(r["min_s"] for r in rows)}
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
    else:
        print(f"\nmedian over sources of the best-of-{args.repeats} host compile: {summary['median_min_s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
