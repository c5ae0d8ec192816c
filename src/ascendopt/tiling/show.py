"""``python -m ascendopt.tiling.show OP_DIR [--soc NAME] [--json]``: print an operator's knob space."""

from __future__ import annotations

import argparse
import json
import sys

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.operator import Operator
from ascendopt.tiling.space import KnobSpace


def describe(d) -> str:
    if d.kind == "cat":
        return "{" + ", ".join(map(str, d.choices)) + "}"
    if d.kind == "pow2":
        return f"2^k in [{d.lo}, {d.hi}]"
    return f"[{d.lo}, {d.hi}]" + (f" step {d.step}" if d.step != 1 else "") + (" log" if d.log else "")


def format_space(space: KnobSpace) -> str:
    """A human-readable table of the knobs (one per line)."""
    t = space.template
    lines = []
    if t is not None:
        where = "synthesized (whole function body)" if t.synthesized else "between markers"
        lines.append(f"tiling function {t.function} in {t.file}; region {where}")
    if not len(space):
        lines.append("no knobs found")
        return "\n".join(lines)
    rows = [("id", "where", "source", "default", "range", "role", "rebuild")]
    for k in space:
        extra = f" (+{len(k.extra)})" if k.extra else ""
        rows.append((k.id, f"{k.file}:{k.line}{extra}", k.text, str(k.default), describe(k.domain), k.role, k.rebuild))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.append(f"{len(space)} knobs, {space.size():.3g} configs")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ascendopt.tiling.show", description=__doc__)
    ap.add_argument("op_dir")
    ap.add_argument("--soc", default=DEFAULT_SOC)
    ap.add_argument("--json", action="store_true", help="print the space as JSON")
    a = ap.parse_args(argv)
    space = KnobSpace.from_operator(Operator.load(a.op_dir), a.soc)
    print(json.dumps(space.to_json(), indent=1) if a.json else format_space(space))
    return 0


if __name__ == "__main__":
    sys.exit(main())
