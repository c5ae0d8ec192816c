"""Tiling headers are host code that the kernel wrapper also compiles (for the tiling struct).
A header that names gert contexts only in host helpers (compile-info accessors, as many cann-ops
tiling headers have) compiles on the kernel side too, and the kernel build key covers the
generated wrapper (a wrapper change never answers with an old cached result). Tiling headers
see ge::DT_* as enumerators although kernel code sees the device build's DT_* macros."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

HEADER = "op_host/scale_copy_tiling.h"
HELPERS = """
struct ScaleCopyCompileInfo {
    uint32_t coreNum = 0;
};

template <typename T>
inline T* GetCompileInfoPtr(gert::TilingParseContext* context) {
    return context->GetCompiledInfo<T>();
}

inline uint32_t TilingKeyOf(gert::TilingContext* context) {
    return context->GetTilingKey() == 0 ? 1 : 2;
}

struct ScaleCopyTypes {
    ge::DataType x{ge::DataType::DT_FLOAT16};
    ge::DataType y{ge::DT_FLOAT};
};
"""
# The device build's DT_* macros stay usable in kernel code after the tiling headers.
KERNEL_CHECK = '#if DT_FLOAT16 != 1 || DT_BF16 != 27\n#error device DT_* macros lost\n#endif\n'



def test_tiling_header_with_gert_helpers_builds_and_runs(backend):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    text = op.files[HEADER]
    anchor = "REGISTER_TILING_DATA_CLASS"
    assert anchor in text
    op = op.with_file(HEADER, text.replace(anchor, HELPERS + anchor, 1))
    kernel = "op_kernel/scale_copy.cpp"
    op = op.with_file(kernel, KERNEL_CHECK + op.files[kernel])
    results = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "scale_copy"))
    assert results and all(r.status == "ok" for r in results), [r.message for r in results]
