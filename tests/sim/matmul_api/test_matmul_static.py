"""Constant Matmul tiling (MatmulApiStaticTiling, GetMatmulApiTiling, matmul_static.h): a Matmul
whose MM_CFG is a full-constant static tiling computes with it when REGIST_MATMUL_OBJ passes a
null tiling, and with the runtime tiling when one is passed. The MatmulApi fixture's kernel
rewritten that way, on its 64 x 64 x 64 case (one core), against numpy."""
from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

OP_DIR = FIXTURE_OPS / "matmul_api"
KERNEL = "op_kernel/matmul_api.cpp"
STATIC = """constexpr static MatmulShapeParams kShape = {64, 64, 64, 64, 64, 64};
    constexpr static MatmulConfig kCfg = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(kShape);
    constexpr static MatmulApiStaticTiling kStatic = GetMatmulApiTiling<AT, BT, CT, BiasT>(kCfg);
    static_assert(kStatic.baseM == 64 && kStatic.singleCoreK == 64 && kStatic.depthA1 >= 1);
    matmul::Matmul<AT, BT, CT, BiasT, kStatic> mm;"""


@pytest.mark.parametrize("tiling_arg", ["nullptr", "&t"])
def test_static_tiling_matches_numpy(backend, tiling_arg):
    op = Operator.load(OP_DIR)
    text = op.files[KERNEL]
    old_obj = "matmul::Matmul<AT, BT, CT, BiasT, CFG_MDL> mm;"
    old_reg = "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);"
    assert old_obj in text and old_reg in text
    text = text.replace(old_obj, STATIC).replace(old_reg, f"REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, {tiling_arg});")
    op = op.with_file(KERNEL, text)
    cases = [c for c in load_op_cases(OP_DIR) if c.name == "aligned_64x64x64"]
    assert cases
    [res] = check_operator(backend, op, cases)
    assert res.status == "ok", res.message[-3000:]
