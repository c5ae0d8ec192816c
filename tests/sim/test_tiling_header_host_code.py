"""Tiling headers are host code, and the kernel build includes them for their tiling structs: a
header whose host helpers name ge:: types without the gert contexts (a parameter struct holding
std::vector<ge::DataType>), write to std::cout after including the registry header (whose
toolkit version brings <iostream>), or fill the tiling class through its set_ / get_ /
SaveToBuffer / GetDataSize accessors in an inline helper, or declare a tiling class whose
methods take the Matmul tiling API's plain types (matmul_tiling::PlatformInfo, DataType),
still builds and runs."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

HEADER = "op_host/scale_copy_tiling.h"
END = "}  // namespace optiling\n#endif"

GE_TYPES = """struct ScaleCopyParam {
    std::vector<ge::DataType> dtypes;
    ge::Format format;
};
"""
COUT = """inline bool ScaleCopyCheck(uint32_t n) {
    if (n == 0) std::cout << "empty input" << std::endl;
    return n != 0;
}
"""

ACCESSORS = """inline size_t ScaleCopyFill(ScaleCopyTilingData& td, void* buf, size_t cap) {
    td.set_totalLength(td.get_perCore() * 2u);
    return td.SaveToBuffer(buf, cap) ? td.GetDataSize() : 0;
}
"""

MATMUL_TYPES = """class ScaleCopyMmTiling {
public:
    void InitPlatformInfo(matmul_tiling::PlatformInfo& info) const;
    matmul_tiling::DataType dtype = matmul_tiling::DataType::DT_FLOAT16;
    matmul_tiling::MatmulConfigParams config;
};
"""


def _variant(includes: str, host_code: str) -> Operator:
    base = Operator.load(FIXTURE_OPS / "scale_copy")
    text = base.files[HEADER]
    assert END in text, "fixture changed"
    text = text.replace('#include "register/tilingdata_base.h"\n', includes, 1).replace(END, host_code + END, 1)
    return base.with_file(HEADER, text, origin="test/tiling-header-host-code")


@pytest.fixture(scope="module")
def case():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}["many_cores"]


@pytest.mark.parametrize("includes, host_code", [
    ('#include <vector>\n#include "register/tilingdata_base.h"\n', GE_TYPES),
    ('#include "register/tilingdata_base.h"\n#include "register/op_def_registry.h"\n', COUT),
    ('#include "register/tilingdata_base.h"\n', ACCESSORS),
    ('#include "register/tilingdata_base.h"\n#include "tiling/tiling_api.h"\n', MATMUL_TYPES),
], ids=["ge_types", "cout", "accessors", "matmul_types"])
def test_kernel_builds_with_host_code_in_the_tiling_header(backend, case, includes, host_code):
    [res] = check_operator(backend, _variant(includes, host_code), [case], cfg=CheckConfig(timeout_s=60.0))
    assert res.status == "ok", f"{res.status}: {res.message[:3000]}"
