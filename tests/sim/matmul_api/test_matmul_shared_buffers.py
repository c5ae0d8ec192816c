"""Several Matmul objects on one TPipe share the cube memories, as the library's Matmul::Init
places them (InitShareBufStart / InitShareBufEnd): each Init starts L0A and L0B at 0 and puts its
L1 and L0C buffers at the start of one region common to every Matmul object of the pipe. Two
objects whose L0C buffers each fill most of L0C therefore both fit (cann-ops upsample_bilinear2d
registers two such objects), and both compute right."""
from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

KERNEL = "op_kernel/matmul_api.cpp"
OP_DIR = FIXTURE_OPS / "matmul_api"
REGIST = "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);\n"


def _two_objects() -> Operator:
    base = Operator.load(OP_DIR)
    text = base.files[KERNEL]
    assert REGIST in text and "    mm.End();\n" in text, "fixture changed"
    # The second object's L0C block (128 x 240 fp32, one buffer) is 120 KiB of L0C's 128 KiB: it
    # fits only where the first object's L0C buffer is, and L0A/L0B likewise start at 0.
    regist = ("    matmul::Matmul<AT, BT, CT, BiasT, CFG_MDL> big;\n"
              "    TCubeTiling bt = t;\n"
              "    bt.baseM = 128; bt.baseN = 240; bt.baseK = 64; bt.dbL0C = 1;\n"
              "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t, big, &bt);\n")
    text = text.replace(REGIST, regist, 1)
    # The second object recomputes the same output block after the first.
    again = ("    mm.End();\n"
             "    big.SetTail(tm, tn);\n"
             "    big.SetTensorA(aGm[uint64_t(m0) * t.Ka]);\n"
             "    big.SetTensorB(bGm[TRANS_B ? uint64_t(n0) * t.Kb : uint64_t(n0)], TRANS_B);\n"
             "    if (t.isBias) big.SetBias(biasGm[n0]);\n"
             "    big.IterateAll(out);\n"
             "    big.End();\n")
    text = text.replace("    mm.End();\n", again, 1)
    return base.with_file(KERNEL, text, origin="test/matmul-shared-buffers")


def test_two_objects_share_l0_and_l1(backend):
    # Both objects with a bias: the bias table is the running object's alone too.
    case = {c.name: c for c in load_op_cases(OP_DIR)}["aligned_bias_128x256x128"]
    [res] = check_operator(backend, _two_objects(), [case], cfg=CheckConfig(timeout_s=120.0))
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"
