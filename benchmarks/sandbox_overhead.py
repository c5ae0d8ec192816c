"""Cost of the sandbox (issue 18: target < 50 ms per evaluation).

Measures, sandbox on vs off, on the ``scale_copy`` test fixture:
  * one evaluation (correctness run + timed run of one case) with the build cached: the runner
    processes are what the sandbox wraps;
  * one compiler invocation (a small translation unit), the per-job cost on a cache miss.

Usage: python benchmarks/sandbox_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ascendopt.backends.sim import sandbox
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ops" / "scale_copy"


def _time(fn, repeats: int) -> tuple[float, float]:
    xs = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1e3)
    return statistics.median(xs), min(xs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    sup = sandbox.probe()
    if not sup.available:
        raise SystemExit(f"sandbox unavailable: {sup.reason}")
    print(f"bwrap: {sup.bwrap}")
    op = Operator.load(FIXTURE)
    case = [c for c in load_op_cases(FIXTURE) if c.name == "small_tail"]
    with tempfile.TemporaryDirectory() as cache:
        backend = SimBackend(builder=SimBuilder(cache_dir=Path(cache)))
        ev = Evaluator(backend, EvalConfig(jobs=1))
        assert ev.evaluate(op, case).status == "ok"  # builds (cached from here on)
        src = Path(cache) / "tu.cpp"
        src.write_text("#include <vector>\nint f(int n) { std::vector<int> v(n); return int(v.size()); }\n")
        rows = []
        for label, policy in (("off", sandbox.Sandbox(enabled=False)), ("on", sandbox.Sandbox())):
            sandbox.configure(policy)
            backend._signatures.clear()  # the signature run is part of a fresh runner's first evaluation
            e_med, e_min = _time(lambda: ev.evaluate(op, case, seed=1), args.repeats)

            def compile_once() -> None:
                argv, pre = sandbox.compile_argv(["g++", "-c", str(src), "-o", str(Path(cache) / "tu.o")], 4 << 30)
                subprocess.run(argv, check=True, preexec_fn=pre)

            c_med, c_min = _time(compile_once, max(3, args.repeats // 3))

            def true_once() -> None:
                argv, pre = sandbox.run_argv(["/bin/true"], 1 << 30, Path(cache))
                subprocess.run(argv, check=True, preexec_fn=pre)

            t_med, t_min = _time(true_once, args.repeats)
            rows.append((label, e_med, e_min, c_med, c_min, t_med, t_min))
        sandbox.configure(sandbox.Sandbox())
    print(f"{'sandbox':8} {'evaluation ms (median/min)':>28} {'g++ -c ms (median/min)':>24} {'/bin/true ms (median/min)':>27}")
    for label, e_med, e_min, c_med, c_min, t_med, t_min in rows:
        print(f"{label:8} {e_med:17.1f} / {e_min:6.1f} {c_med:15.1f} / {c_min:6.1f} {t_med:18.1f} / {t_min:6.1f}")
    (_, e0, _, c0, _, t0, _), (_, e1, _, c1, _, t1, _) = rows
    print(f"overhead per evaluation (2 runner processes): {e1 - e0:+.1f} ms; per compiler job: {c1 - c0:+.1f} ms; "
          f"per process: {t1 - t0:+.1f} ms")


if __name__ == "__main__":
    main()
