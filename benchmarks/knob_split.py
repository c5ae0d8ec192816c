"""The Stage II knob-role split (issue 32): which operators the knob-role work may be judged on.

The pool is every cann-ops operator (suite ``cannops``) whose ``KnobSpace.from_operator`` has at
least one knob at the commit the split is drawn on, minus issue 37's held-out operators (read from
``benchmarks/results/stage1_split.json``; they are never loaded). ``random.Random(seed)`` draws
half of the pool (rounded down) as held out for issue 32; the same generator then draws three of
the ``ops/`` operators with at least one knob. Everything else is the tune half. Operators are
named ``<category>/<dir>`` (cann-ops) and ``<level>/<dir>`` (ops/).

    python benchmarks/knob_split.py --src /work/cannops/src --seed 32 --out benchmarks/results/knob_split.json
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

from ascendopt.operator import Operator
from ascendopt.suites import load_suite
from ascendopt.tiling.space import KnobSpace

ROOT = Path(__file__).resolve().parents[1]
STAGE1_SPLIT = ROOT / "benchmarks" / "results" / "stage1_split.json"


def rel(d: Path) -> str:
    """``<category>/<dir>``: the operator directory with its parent."""
    return f"{d.parent.name}/{d.name}"


def knob_count(d: Path) -> int:
    """Knobs of the operator at ``d`` (0 when it cannot be loaded)."""
    try:
        return len(KnobSpace.from_operator(Operator.load(d)))
    except Exception as e:  # noqa: BLE001 - any failure means "no space"
        print(f"{rel(d)}: no space ({type(e).__name__}: {e})", file=sys.stderr)
        return 0


def pool(dirs: list[Path], excluded: set[str]) -> dict[str, int]:
    """``rel(d) -> knobs`` for the operators of ``dirs`` not excluded that have at least one knob."""
    out = {}
    for d in sorted(dirs, key=rel):
        if rel(d) in excluded:
            continue
        n = knob_count(d)
        if n:
            out[rel(d)] = n
    return out


def split(cann: dict[str, int], own: dict[str, int], seed: int, n_own: int = 3) -> dict:
    """Half of ``cann`` and ``n_own`` of ``own`` held out, by one ``random.Random(seed)``."""
    rng = random.Random(seed)
    names = sorted(cann)
    held = sorted(rng.sample(names, len(names) // 2))
    own_names = sorted(own)
    own_held = sorted(rng.sample(own_names, min(n_own, len(own_names))))
    return {"seed": seed,
            "cannops": {"pool": len(names), "held_out": held, "tune": sorted(set(names) - set(held))},
            "ops": {"pool": len(own_names), "held_out": own_held, "tune": sorted(set(own_names) - set(own_held))},
            "knobs": {**cann, **{f"ops/{k}": v for k, v in own.items()}}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True, help="cann-ops src directory")
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    excluded = set(json.loads(STAGE1_SPLIT.read_text())["held_out"])
    cann = pool([o.dir for o in load_suite("cannops", args.src).ops], excluded)
    own = pool([d for d in (ROOT / "ops").glob("level*/*") if d.is_dir()], set())
    doc = split(cann, own, args.seed)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    doc["commit"] = head.stdout.strip()
    doc["excluded"] = f"issue 37 held-out ({len(excluded)}, {STAGE1_SPLIT.name}), never loaded"
    doc["command"] = "python benchmarks/knob_split.py --src <cann-ops>/src --seed 32 --out " + str(args.out)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    c, o = doc["cannops"], doc["ops"]
    print(f"cann-ops: {c['pool']} with knobs, {len(c['held_out'])} held out; "
          f"ops/: {o['pool']} with knobs, {len(o['held_out'])} held out (seed {args.seed})")


if __name__ == "__main__":
    main()
