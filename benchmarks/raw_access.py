"""Memory reached outside the AscendC APIs (issue 30): timing_lab on one core (128 KiB), its input
brought to UB by DataCopy, by memcpy from the GlobalTensor's GetPhyAddr(), by an element loop over
a raw `__gm__` pointer, and its multiply as a loop over raw pointers to the UB tensors instead of
Muls. Prints each variant's modelled time, the raw accesses the simulator issued for it, its
warning kinds, and the wall time of the run.

    PYTHONPATH=src python benchmarks/raw_access.py
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sim.timing.common import instr, load, run, variant  # noqa: E402

from ascendopt.session import script_session  # noqa: E402

VARIANTS = {"DataCopy": {}, "memcpy from GM": {"RAW_LOAD": 1}, "raw __gm__ loop": {"RAW_LOAD": 2},
            "raw UB multiply": {"RAW_COMPUTE": 1}}


def main() -> None:
    backend = script_session().backend
    op, cases = load("timing_lab")
    print(f"{'variant':<18} {'us':>10} {'raw GM':>8} {'raw local':>10}  warnings  (wall s)")
    for name, macros in VARIANTS.items():
        t0 = time.time()
        rr = run(backend, variant(op, "op_kernel/timing_lab.cpp", **macros), cases["t1core"])
        gm = sum(instr(rr, f"raw GM {k}", "S")[0] for k in ("read", "write"))
        local = sum(instr(rr, f"raw local {k}", "S")[0] for k in ("read", "write"))
        kinds = ",".join(sorted({w["kind"] for w in rr.warnings or ()})) or "-"
        print(f"{name:<18} {rr.task_duration_us:>10.2f} {gm:>8} {local:>10}  {kinds}  ({time.time() - t0:.1f})")


if __name__ == "__main__":
    main()
