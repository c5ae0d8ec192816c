"""Where ``spread_cores`` applies in a suite, and why not elsewhere: per operator, the host
launch (constant or computed), the rewrite's sites, and the independence verdict of every
outermost loop on the kernel's path (the first refusal reason).

    python benchmarks/spread_sites.py --suite cannops --src <cann-ops>/src [--skip NAME,...] [--ops GLOB,...]

``--why`` prints, for an operator without a site, the first check that fails (the kernel-wide
refusal, else "no loop on the resolved path", else the first outermost loop's refusal) and at
the end a count by reason; ``--passing`` keeps the operators that pass on the simulator (the
``ok`` rows of ``results/timing_issue30/cannops_headroom_after.jsonl``).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
from collections import Counter
from pathlib import Path

from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel_check import independent, kernel_refusal
from ascendopt.cxx.parallel_minor import inner_loops, minor_independent
from ascendopt.cxx.parse import of_type
from ascendopt.cxx.syntax import LOOPS, callee_name, enclosing, function_of
from ascendopt.operator import Operator
from ascendopt.suites import load_suite
from ascendopt.transforms.base import kernel_parsed
from ascendopt.transforms.library.spread_cores import SpreadCores, candidate_loops, launches


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


PASSING = Path(__file__).resolve().parent / "results" / "timing_issue30" / "cannops_headroom_after.jsonl"


def passing() -> set[str]:
    rows = [json.loads(line) for line in PASSING.read_text().splitlines() if line.strip()]
    return {r["op"] for r in rows if r.get("status") == "ok"}


def why(op: Operator) -> tuple[str, str]:
    """(reason class, detail) of the first check of ``spread_cores`` that fails, in the order
    :func:`~ascendopt.transforms.library.spread_cores.work_loops` checks: a candidate loop on the
    path, the kernel-wide refusals, the first candidate loop's verdict."""
    prog = Program(kernel_parsed(op))
    if not prog.entries():
        return "no __global__ entry in the kernel files", ""
    loops = candidate_loops(prog)
    if not loops:
        return "no counted loop on the resolved path", ""
    refused = kernel_refusal(prog)
    if refused.startswith("kernel already reads GetBlockIdx"):
        return refused, _constant_launch_split(op, prog)
    if refused:
        return refused, ""
    ctx, n = loops[0]
    cols = [minor_independent(prog, ctx, n, inner).reason for inner in inner_loops(ctx, n)]
    return "loop refused", (f"{ctx.name}:{ctx.p.line(n.start_byte)} {independent(prog, ctx, n).reason}"
                            + "".join(f"; column loop: {c}" for c in cols))


def _constant_launch_split(op: Operator, prog: Program) -> str:
    """For a kernel split by its block index under a host that launches a constant: where the
    per-core share comes from. Only the host launch would change, which is legal only if the
    kernel's partition covers the work for any block count; that is not proven here, so these
    stay refused: a share from tiling data computed for the host's constant is a Stage II knob
    (the tiling must change with the count), a share from ``GetBlockNum()`` needs the coverage
    proof (``n / GetBlockNum()`` drops the remainder unless the host guarantees divisibility)."""
    const = [ln.constant for ln in launches(op) if ln.constant is not None]
    if not const:
        return ""
    reads = [c for p in prog.files for c in of_type(p, "call_expression")
             if callee_name(p, c).removeprefix("template ").strip() == "GetBlockNum"
             and enclosing(c, ("binary_expression",)) is not None
             and p.text(enclosing(c, ("binary_expression",)).child_by_field_name("operator")) in ("/", "*", "-", "+", "%")]
    share = "from GetBlockNum() (coverage for any count not proven)" if reads else \
        "from tiling data computed for the host's constant: a Stage II knob"
    return f"host launches {', '.join(const)}; per-core share {share}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="own")
    ap.add_argument("--src")
    ap.add_argument("--ops", default="")
    ap.add_argument("--skip", default="", help="operator names never to open, comma-separated")
    ap.add_argument("--loops", action="store_true", help="print every loop's verdict")
    ap.add_argument("--why", action="store_true", help="print why an operator has no site, and a count by reason")
    ap.add_argument("--passing", action="store_true", help="only the operators that pass on the simulator")
    args = ap.parse_args()
    pats = [g for g in args.ops.split(",") if g]
    skip = {s for s in args.skip.split(",") if s}
    with_site = total = 0
    reasons: Counter[str] = Counter()
    ok = passing() if args.passing else None
    for sop in load_suite(args.suite, args.src).ops:
        key = f"{sop.dir.parent.name}/{sop.name}"
        if sop.name in skip or pats and not any(fnmatch.fnmatch(key, g) or fnmatch.fnmatch(sop.name, g) for g in pats):
            continue
        if ok is not None and key not in ok:
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
        if args.why and not sites:
            reason, detail = why(op)
            reasons[reason if reason != "loop refused" else f"loop refused: {_reason_class(detail)}"] += 1
            print(f"    why: {reason}" + (f" ({detail})" if detail else ""))
            if detail.startswith("host launches"):
                reasons[f"{reason}, {detail.split('; ')[1]}"] += 1
                reasons[reason] -= 1
        if args.loops:
            for v in loop_verdicts(op):
                print(f"    loop {v}")
    print(f"{with_site} of {total} operators have a site")
    for reason, n in (+reasons).most_common():
        print(f"  {n:4d}  {reason}")


def _reason_class(detail: str) -> str:
    """A loop verdict without its location, code and names (for counting)."""
    text = re.sub(r"\(.*\)", "", detail.split(" ", 1)[1] if " " in detail else detail).split("; column")[0].strip()
    text = min(text.split(": "), key=lambda t: sum(not (c.isalnum() or c in " _'") for c in t))
    return re.sub(r"^\S+ (carried|read|written|accessed|also)\b", r"<name> \1", text)


if __name__ == "__main__":
    main()
