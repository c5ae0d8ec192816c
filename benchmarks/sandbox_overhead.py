"""Cost of the sandbox (issue 18: target < 50 ms per evaluation).

Measures, sandbox on vs off, on the ``scale_copy`` test fixture:
  * one evaluation (correctness run + timed run of one case) with the build cached: the runner
    processes are what the sandbox wraps; with ``jobs=1`` the two runs go one after the other,
    with ``jobs=2`` (the default on a 2-core machine) they overlap;
  * one runner start (``/bin/true`` as the runner command): the sandbox's fixed cost;
  * one compiler invocation (a small translation unit), the per-job cost on a cache miss.

On and off alternate within each repeat (the order flips every repeat), so load from other
processes on the machine falls on both alike; the overhead reported is the median of the
per-repeat differences (on - off), with the medians and minima of each side.

Usage: python benchmarks/sandbox_overhead.py [--repeats N] [--write FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from ascendopt import sandbox
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator
from ascendopt.session import script_session

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ops" / "scale_copy"


def _paired(fn: Callable[[sandbox.Sandbox], None], repeats: int) -> tuple[list[float], list[float]]:
    """Milliseconds per call with the sandbox off and on, alternating."""
    off, on = [], []
    policies = ((off, sandbox.Sandbox(enabled=False)), (on, sandbox.Sandbox()))
    for r in range(repeats):
        for xs, policy in (policies if r % 2 == 0 else policies[::-1]):
            t = time.perf_counter()
            fn(policy)
            xs.append((time.perf_counter() - t) * 1e3)
    return off, on


def _row(label: str, off: list[float], on: list[float]) -> str:
    diff = statistics.median(b - a for a, b in zip(off, on))
    return (f"{label:36} {statistics.median(off):8.1f} {min(off):7.1f} {statistics.median(on):8.1f} "
            f"{min(on):7.1f} {diff:+9.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--write", type=Path, default=None, help="Also write the table to this file.")
    args = ap.parse_args()
    sup = sandbox.probe()
    if not sup.available:
        raise SystemExit(f"sandbox unavailable: {sup.reason}")
    op = Operator.load(FIXTURE)
    case = [c for c in load_op_cases(FIXTURE) if c.name == "small_tail"]
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache:
        backend = script_session(cache_dir=Path(cache)).backend
        ev = Evaluator(backend, EvalConfig(jobs=1))
        ev2 = Evaluator(backend, EvalConfig(jobs=2))
        assert ev.evaluate(op, case).status == "ok"  # builds (cached from here on)
        src = Path(cache) / "tu.cpp"
        src.write_text("#include <vector>\nint f(int n) { std::vector<int> v(n); return int(v.size()); }\n")

        def evaluate(policy: sandbox.Sandbox, evaluator: Evaluator = ev) -> None:
            backend.sandbox = policy
            assert evaluator.evaluate(op, case, seed=1).status == "ok"

        def start(policy: sandbox.Sandbox) -> None:
            with policy.run_command(["/bin/true"], 1 << 30, Path(cache)) as cmd:
                subprocess.run(cmd.argv, check=True, preexec_fn=cmd.preexec, pass_fds=cmd.pass_fds)

        def compile_once(policy: sandbox.Sandbox) -> None:
            argv, pre = policy.compile_argv(["g++", "-c", str(src), "-o", str(Path(cache) / "tu.o")], 4 << 30)
            subprocess.run(argv, check=True, preexec_fn=pre)

        rows = [_row("evaluation, jobs=1 (2 runs in turn)", *_paired(evaluate, args.repeats)),
                _row("evaluation, jobs=2 (2 runs overlap)",
                     *_paired(lambda p: evaluate(p, ev2), args.repeats)),
                _row("runner start (/bin/true)", *_paired(start, args.repeats)),
                _row("g++ -c (small TU)", *_paired(compile_once, max(3, args.repeats // 3)))]
    load1 = os.getloadavg()[0]
    head = (f"{'ms':36} {'off med':>8} {'off min':>7} {'on med':>8} {'on min':>7} {'on-off':>9}\n"
            f"{'':36} {'':8} {'':7} {'':8} {'':7} {'(median)':>9}")
    text = "\n".join([f"bwrap: {sup.bwrap}; {args.repeats} repeats, on/off alternating; "
                      f"load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} cores", head, *rows])
    print(text)
    if args.write:
        args.write.write_text(text + "\n")


if __name__ == "__main__":
    main()
