"""Source forms real (cann-ops) operators use, each on a one-edit variant of our scale_copy
fixture: the variant must build and still pass its cases. Self-checking kernels use
`assert`, which the simulator reports as assert_failed."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator, graph_level_sources

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"
TILING = "op_host/scale_copy_tiling.h"


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def case():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}["many_cores"]


def edit(op: Operator, rel: str, *pairs: tuple[str, str]) -> Operator:
    text = op.files[rel]
    for old, new in pairs:
        assert old in text, f"fixture changed: {old!r} not in {rel}"
        text = text.replace(old, new, 1)
    return op.with_file(rel, text, origin="test/form")


def passes(backend, op, case) -> None:
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=30.0))
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:3000]}"


KERNEL_HEAD = ('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include "kernel_tiling/kernel_tiling.h"')


def test_platform_info_header_and_local_mem_size(backend, base, case):
    op = edit(base, HOST, ('#include "tiling/platform/platform_ascendc.h"',
                           '#include "tiling/platform/platform_ascendc.h"\n#include "platform/platform_info.h"'),
              ("uint32_t tileLength = 1024;",
               "uint64_t ub = 0;\n    context->GetPlatformInfo()->GetLocalMemSize(fe::LocalMemType::UB, ub);\n"
               "    uint32_t tileLength = ub >= 64 * 1024 ? 1024 : 8;"))
    passes(backend, op, case)


def test_graph_layer_sources_are_left_out_of_tiling(backend, base, case):
    aclnn = '#include "aclnn/aclnn_base.h"\n#include "aclnn_scale_copy.h"\nint AclnnOnly() { return 1; }\n'
    l0 = '#include "scale_copy_l0.h"\nint L0Only() { return l0::Missing(); }\n'
    files = dict(base.files)
    files.update({"op_host/aclnn_scale_copy.h": "#pragma once\n#include \"aclnn/acl_meta.h\"\n",
                  "op_host/aclnn_scale_copy.cpp": aclnn,
                  "op_host/scale_copy_l0.h": '#pragma once\n#include "opdev/op_executor.h"\n',
                  "op_host/scale_copy_l0.cpp": l0,
                  "op_host/shape_helper.h": '#pragma once\n#include "level0/squeeze.h"\n',
                  "op_host/uses_helper.cpp": '#include "shape_helper.h"\n'})
    op = Operator.from_files("scale_copy", files, root=base.root)
    assert graph_level_sources(op.files) == {
        "op_host/aclnn_scale_copy.h", "op_host/aclnn_scale_copy.cpp", "op_host/scale_copy_l0.h",
        "op_host/scale_copy_l0.cpp", "op_host/shape_helper.h", "op_host/uses_helper.cpp"}
    passes(backend, op, case)


def test_tiling_fields_without_semicolons_and_std_cout(backend, base, case):
    op = edit(base, TILING, ("TILING_DATA_FIELD_DEF(uint32_t, totalLength);", "TILING_DATA_FIELD_DEF(uint32_t, totalLength)"),
              ("TILING_DATA_FIELD_DEF(uint32_t, perCore);", "TILING_DATA_FIELD_DEF(uint32_t, perCore)"))
    op = edit(op, HOST, ("context->SetBlockDim(useCores);",
                         "context->SetBlockDim(useCores);\n    if (useCores == 0) std::cout << \"no cores\" << std::endl;"))
    passes(backend, op, case)


def test_tiling_header_including_graph_types_in_kernel_build(backend, base, case):
    """The kernel wrapper defines DT_* macros; a tiling header pulling in graph/types.h must compile."""
    op = edit(base, TILING, ('#include "register/tilingdata_base.h"',
                             '#include "register/tilingdata_base.h"\n#include "graph/types.h"'))
    passes(backend, op, case)


def test_tbuf_alloc_free_and_kernel_tiling_header(backend, base, case):
    op = edit(base, KERNEL, KERNEL_HEAD,
              ("Muls(yLocal, xLocal, 2.0f, n);",
               "LocalTensor<float> t = tmp.AllocTensor<float>();\n        Muls(t, xLocal, 2.0f, n);\n"
               "        PipeBarrier<PIPE_V>();\n        Adds(yLocal, t, 0.0f, n);\n        tmp.FreeTensor(t);"),
              ("pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));",
               "pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));\n"
               "        pipe.InitBuffer(tmp, tileLength * sizeof(float));"),
              ("GlobalTensor<float> xGm, yGm;", "GlobalTensor<float> xGm, yGm;\n    TBuf<TPosition::VECCALC> tmp;"))
    passes(backend, op, case)


def test_tquesync_orders_like_a_hard_event(backend, base, case):
    """TQueSync<MTE2, V> replaces the queue's own ordering of the copy-in: no race is reported,
    and its flag is the HardEvent's (a TQueSync SetFlag is waited on with WaitFlag<MTE2_V>)."""
    op = edit(base, KERNEL,
              ("inQueue.EnQue(xLocal);",
               "TQueSync<PIPE_MTE2, PIPE_V> sync;\n        sync.SetFlag(0);\n        WaitFlag<HardEvent::MTE2_V>(0);\n"
               "        inQueue.EnQue(xLocal);"))
    passes(backend, op, case)


def test_assert_macro_forms(backend, base, case):
    """ASSERT compiles away as on the device (here: a missing ';' before it and a name that does
    not exist); ::GetTPipePtr is declared at global scope."""
    op = edit(base, KERNEL,
              ("uint32_t tiles = (count + tileLength - 1) / tileLength;",
               "uint32_t tiles = (count + tileLength - 1) / tileLength\n"
               "        ASSERT(NotDeclaredAnywhere() != 0 && \"never compiled\");\n"
               "        assert(::GetTPipePtr() != nullptr);"))
    passes(backend, op, case)


def test_get_reduce_max_min_count_reads_the_last_whole_reduce(backend, base, case):
    check = """LocalTensor<float> r = red.Get<float>();
        uint32_t m = n < 64 ? n : 64;
        WholeReduceMax(r, xLocal, m, 1, 1, 1, 8);
        PipeBarrier<PIPE_ALL>();
        float val = 0, idx = 0;
        GetReduceMaxMinCount<float>(val, idx);
        uint32_t bits = 0, best = 0;
        for (uint32_t k = 1; k < m; ++k) if ((float)xLocal.GetValue(k) > (float)xLocal.GetValue(best)) best = k;
        __builtin_memcpy(&bits, &idx, 4);
        assert(val == r.GetValue(0) && val == (float)xLocal.GetValue(best) && bits == best);
        Muls(yLocal, xLocal, 2.0f, n);"""
    op = edit(base, KERNEL, ("Muls(yLocal, xLocal, 2.0f, n);", check),
              ("pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));",
               "pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));\n        pipe.InitBuffer(red, 64);"),
              ("GlobalTensor<float> xGm, yGm;", "GlobalTensor<float> xGm, yGm;\n    TBuf<TPosition::VECCALC> red;"))
    passes(backend, op, case)


def test_kernel_entry_written_without_a_space_after_extern(base):
    text = base.files[KERNEL].replace('extern "C" __global__', 'extern"C" __global__')
    assert 'extern"C"' in text
    op = base.with_file(KERNEL, text)
    assert op.kernel_file == KERNEL and op.kernel_entry == "scale_copy"


def test_kernel_log_assert_int4_and_dump_names(backend, base, case):
    # weight_quant_batch_matmul_v2's tool.h: ASCENDC_ASSERT(cond, { KERNEL_LOG(KERNEL_ERROR, ...); })
    # (both nothing in the device build: the condition is not evaluated), `using AscendC::int4b_t`,
    # InitDump, ONE_FOURTH_DEFAULT_REPEAT_STRIDE, RESERVED_WORKSPACE, ReduceLastND and the
    # AscendAntiQuant forms (declared; not called here).
    op = edit(base, KERNEL, ('#include "kernel_operator.h"',
                             '#include "kernel_operator.h"\n#include "kernel_log.h"\nusing AscendC::int4b_t;\n'
                             "using AscendC::AscendAntiQuant;\nusing AscendC::ReduceLastND;\n"
                             "static_assert(!AscendC::IsSameType<float, int4b_t>::value);\n"
                             "static_assert(AscendC::ONE_FOURTH_DEFAULT_REPEAT_STRIDE == 2);\n"
                             "static_assert(AscendC::RESERVED_WORKSPACE == 16 * 1024 * 1024);\n"
                             "__aicore__ inline uint32_t NeverZero(uint32_t b) {\n"
                             '    ASCENDC_ASSERT(b == 0, { KERNEL_LOG(KERNEL_ERROR, "b is %u", b); });\n'
                             "    return b;\n}\n"),
              ("LocalTensor<float> xLocal = inQueue.AllocTensor<float>();",
               "AscendC::InitDump(false, 0);\n        ReduceLastND r{1, 1, 1, 1, 1, 1};\n"
               "        AscendC::AntiQuantShapeInfo s{};\n        (void)r; (void)s; (void)NeverZero(1);\n"
               "        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();"))
    passes(backend, op, case)


def test_tiling_header_naming_ge_ascend_string_builds_in_the_kernel(backend, base, case):
    # common/op_host/op_tiling/op_tiling.h (included by weight_quant_batch_matmul_v2's tiling
    # header) declares a ge::AscendString member with only platform headers before it: the host
    # compile sees the type through the registry headers, the kernel build must too.
    op = edit(base, TILING, ("namespace optiling {",
                             "namespace optiling {\nstruct ParsedName {\n    ge::AscendString value;\n};\n"))
    passes(backend, op, case)
