"""One operator launched on more blocks than have work: cann-ops math/scatter_sub's benchmark case as
shipped (its tiling sets 1 block) and with the tiling setting 48 blocks and the kernel's entry
returning at once on blocks 1..47, both timed on the simulator (docs/timing-model.md, "Bandwidth
share": idle blocks take no HBM bandwidth, so both take the same time).

    PYTHONPATH=<tree>/src python benchmarks/idle_blocks.py [--src /work/cannops/src]
"""
from __future__ import annotations

import argparse


def main() -> None:
    from ascendopt.cases import make_inputs
    from ascendopt.evaluate.check import case_dtypes
    from ascendopt.operator import Operator
    from ascendopt.session import script_session
    from ascendopt.suites import load_suite

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/work/cannops/src")
    args = ap.parse_args()
    [sop] = [o for o in load_suite("cannops", args.src).ops if str(o.dir).endswith("/math/scatter_sub")]
    case = sop.load_cases(list(sop.benchmark[:1]))[0]
    be = script_session(soc=sop.soc).backend
    op = Operator.load(sop.dir)
    host, kern = "op_host/scatter_sub.cpp", "op_kernel/scatter_sub.cpp"
    entry = "GET_TILING_DATA(tilingData, tiling);"
    assert "coreNum = 1;" in op.files[host] and entry in op.files[kern]
    idle = op.with_file(host, op.files[host].replace("coreNum = 1;", "coreNum = 48;"), origin="idle_blocks")
    idle = idle.with_file(kern, op.files[kern].replace(entry, entry + "\n    if (AscendC::GetBlockIdx() != 0) return;"),
                          origin="idle_blocks")
    inputs = make_inputs(case, 0)
    for name, o in (("shipped", op), ("48 blocks, 47 idle", idle)):
        build = be.build(o, case_dtypes(case))
        assert build.ok, build.error[-2000:]
        rr = be.run(build, o, case, inputs)
        print(f"{name}: {rr.status.value}, block_dim {rr.block_dim}, HBM shared by "
              f"{rr.profile.get('hbm_share_cores')}: {rr.task_duration_us:.2f} us, "
              f"slowest core {rr.profile['max_core_cycles']:.1f} cycles")


if __name__ == "__main__":
    main()
