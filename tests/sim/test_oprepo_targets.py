"""An operator's host sources in separate CMake libraries (the cann-ops form: the OpDef source in
``opsproto`` / ``op_host_aclnn``, the tiling source in ``optiling``) link as separate libraries:
a non-inline function that an op_host header defines, included by both, is no duplicate
(activation/gelu_quant's GetMod), while two sources of one library defining it still fail to
link, as in the real build. The fixture is our scale_copy (y = 2 x) split that way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator
from ascendopt.oprepo import find_repo

from ..conftest import FIXTURE_OPS

HELPER = """\
#pragma once
#include <cstdint>
namespace optiling {
uint32_t AoCeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }  // not inline: one per library
}  // namespace optiling
"""

TILING = """\
#include "scale_copy_tiling.h"
#include "scale_copy_helper.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ScaleCopyTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNum();
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t blocks = AoCeilDiv(total, 8);
    uint32_t useCores = blocks < cores ? blocks : cores;
    uint32_t perCore = AoCeilDiv(blocks, useCores) * 8;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(1024);
    context->SetBlockDim(AoCeilDiv(total, perCore));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(ScaleCopy).Tiling(TilingFunc);
}  // namespace optiling
"""

OPDEF = """\
#include "register/op_def_registry.h"
#include "scale_copy_helper.h"
namespace ops {
class ScaleCopy : public OpDef {
public:
    explicit ScaleCopy(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleCopy);
}  // namespace ops
"""

SEPARATE = """\
target_sources(op_host_aclnn PRIVATE op_host/scale_copy_def.cpp)
target_sources(optiling PRIVATE op_host/scale_copy.cpp)
target_sources(opsproto PRIVATE op_host/scale_copy_def.cpp)
"""

ONE_LIBRARY = """\
target_sources(optiling PRIVATE op_host/scale_copy.cpp op_host/scale_copy_def.cpp)
"""


def _tree(root: Path, cmake: str) -> Path:
    op = root / "src/cat/scale_copy"
    (root / "src/common/inc").mkdir(parents=True)
    shutil.copytree(FIXTURE_OPS / "scale_copy" / "op_kernel", op / "op_kernel")
    shutil.copytree(FIXTURE_OPS / "scale_copy" / "tests", op / "tests")
    (op / "op_host").mkdir()
    shutil.copy(FIXTURE_OPS / "scale_copy" / "op_host" / "scale_copy_tiling.h", op / "op_host")
    for name, text in (("scale_copy_helper.h", HELPER), ("scale_copy.cpp", TILING), ("scale_copy_def.cpp", OPDEF)):
        (op / "op_host" / name).write_text(text)
    (op / "CMakeLists.txt").write_text(cmake)
    return op


def test_libraries_read_from_cmake(tmp_path):
    repo = find_repo(_tree(tmp_path / "a", SEPARATE))
    assert repo.host_own_groups == (("op_host/scale_copy.cpp",), ("op_host/scale_copy_def.cpp",))
    assert find_repo(_tree(tmp_path / "b", ONE_LIBRARY)).host_own_groups == ()


def test_a_header_function_in_two_libraries_links(backend, tmp_path):
    op_dir = _tree(tmp_path, SEPARATE)
    cases = load_op_cases(op_dir)
    results = check_operator(backend, Operator.load(op_dir), cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:2000] for r in results]


def test_a_header_function_twice_in_one_library_does_not(backend, tmp_path):
    op = Operator.load(_tree(tmp_path, ONE_LIBRARY))
    build = backend.build(op, {"x": "float", "y": "float"})
    assert not build.ok and "multiple definition" in build.error and "AoCeilDiv" in build.error
