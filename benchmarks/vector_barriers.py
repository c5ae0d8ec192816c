"""What an operator's PipeBarrier<PIPE_V> calls cost and guard: the operator as given and with every
``PipeBarrier<PIPE_V>();`` removed from its kernel sources, each built with the toolkit's default
``--cce-auto-sync`` and with ``--cce-auto-sync=off``, on the cases whose name contains FILTER.
Prints per run: modelled task duration, slowest core's cycles, the barriers the compiler's
auto-sync inserted (``auto_barriers``, summed over cores) and the ``same_pipe_race`` warnings.

    PYTHONPATH=src python benchmarks/vector_barriers.py ops/level2/rms_norm [FILTER]
"""
import re
import shutil
import sys
import tempfile
from pathlib import Path

BARRIER = re.compile(r"[ \t]*(AscendC::)?PipeBarrier<PIPE_V>\(\);[ \t]*\n")


def variants(op_dir: Path, tmp: Path):
    from ascendopt.operator import Operator

    off_dir = tmp / op_dir.name
    shutil.copytree(op_dir, off_dir)
    (off_dir / "CMakeLists.txt").write_text("add_ops_compile_options(ALL OPTIONS --cce-auto-sync=off)\n")
    for sync, op in (("auto-sync", Operator.load(op_dir)), ("=off", Operator.load(off_dir))):
        assert op.auto_sync == (sync == "auto-sync")
        yield sync, "as given", op, 0
        stripped, removed = op, 0
        for rel, text in op.files.items():
            if rel.startswith("op_kernel/"):
                new, n = BARRIER.subn("", text)
                if n:
                    stripped, removed = stripped.with_file(rel, new, origin="no PIPE_V barriers"), removed + n
        yield sync, "no PIPE_V barrier", stripped, removed


def main(op_dir: Path, only: str = "") -> None:
    from ascendopt.cases import load_op_cases, make_inputs
    from ascendopt.evaluate.check import case_dtypes
    from ascendopt.session import script_session

    be = script_session().backend
    cases = [c for c in load_op_cases(op_dir) if only in c.name]
    print(f"{'case':<42} {'build':<10} {'kernel':<18} {'removed':>7} {'us':>9} {'cycles':>9} "
          f"{'inserted':>8} {'warnings':>8}")
    with tempfile.TemporaryDirectory() as d:
        for sync, what, op, removed in variants(op_dir.resolve(), Path(d)):
            for case in cases:
                build = be.build(op, case_dtypes(case))
                if not build.ok:
                    print(case.name, sync, what, "build failed:", build.error[:200])
                    continue
                rr = be.run(build, op, case, make_inputs(case, 0))
                cores = rr.profile.get("cores", []) if rr.profile else []
                cyc = max((c["cycles"] for c in cores), default=0.0)
                inserted = sum(c.get("auto_barriers", 0) for c in cores)
                races = sum(w.get("count", 1) for w in rr.warnings if w["kind"] == "same_pipe_race")
                print(f"{case.name:<42} {sync:<10} {what:<18} {removed:>7} {rr.task_duration_us or 0:>9.3f} "
                      f"{cyc:>9.1f} {inserted:>8} {races:>8} {rr.status.value}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
