"""spread_cores: split an independent work loop over the cores (tests/refine)."""

import pytest

from ascendopt.transforms import REWRITES

from .conftest import load

MULS = "level1/muls_custom"
HOST = "op_host/muls_custom.cpp"


def single_core_muls():
    """muls_custom made single-core the way real operators are: the kernel ignores its block
    index (one share starting at 0) and the host forces the launch to 1 (the tiling for 1 core)."""
    op = load(MULS)
    k = op.files[op.kernel_file]
    start = k.index("        uint32_t blockIdx = AscendC::GetBlockIdx();")
    end = k.index("        value = td.value;")
    k = k[:start] + ("        uint64_t offset = 0;\n        tileDataNum = td.tileDataNum;\n"
                     "        coreDataNum = td.lastCoreDataNum;\n        tileNum = td.lastTileNum;\n"
                     "        tailDataNum = td.lastTailDataNum;\n") + k[end:]
    h = op.files[HOST]
    assert "uint32_t maxCoreNum = coreNum;" in h and "context->SetBlockDim(static_cast<uint32_t>(usedCores));" in h
    h = h.replace("uint32_t maxCoreNum = coreNum;", "uint32_t maxCoreNum = 1;")
    h = h.replace("context->SetBlockDim(static_cast<uint32_t>(usedCores));", "context->SetBlockDim(1);")
    return op.with_file(op.kernel_file, k).with_file(HOST, h)


def test_single_core_muls_is_split_and_faster(check):
    slow = single_core_muls()
    rw = REWRITES.get("spread_cores")
    sites = rw.find(slow)
    assert [s.label for s in sites] == [
        "split loop over i in Process over GetBlockNum() cores (host SetBlockDim(1) -> core count)"]
    fast = rw.apply(slow, sites[0])
    assert "SetBlockDim(ascendcPlatform.GetCoreNum())" in fast.files[HOST]
    assert "AscendC::GetBlockIdx()" in fast.files[fast.kernel_file]
    assert rw.find(fast) == []  # now it reads its block index
    before, after = check(slow), check(fast)
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[-1].block_dim == 48 and before[-1].block_dim == 1
    assert after[-1].task_duration_us < before[-1].task_duration_us / 4


def test_no_site_in_the_multi_core_original():
    assert REWRITES.get("spread_cores").find(load(MULS)) == []


# ----------------------------------------------------------------------------- forms (find only)
from .forms import kernel  # noqa: E402

TILE_HELPERS = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }
    __aicore__ inline void CopyIn(uint32_t progress) {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[progress * len], len);
        inQ.EnQue(x);
    }
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::Abs(t, x, len);
        AscendC::Adds(y, t, 1.0f, len);
        outQ.EnQue(y);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void CopyOut(uint32_t progress) {
        AscendC::LocalTensor<float> y = outQ.DeQue<float>();
        uint32_t offset = progress * len;
        AscendC::DataCopy(yGm[offset], y, len);
        outQ.FreeTensor(y);
    }
"""
SCALAR = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < len; i++) {
            float v = xGm.GetValue(i);
            yGm.SetValue(i, v > 0 ? v : -v);
        }
    }
"""
ROWS = """
    __aicore__ inline void Process() {
        for (uint32_t r = 0; r < tiles; ++r) {
            for (uint32_t j = 0; j < len; ++j) {
                yGm.SetValue(r * len + j, xGm.GetValue(r * len + j) * 2);
            }
        }
    }
"""
MUST_NOT = {
    "scatter by data index, row not scaled by the column count": """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++)
            for (uint32_t j = 0; j < len; j++)
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) + j, 1.0f);
    }""",
    "accumulation across iterations": """
    __aicore__ inline void Process() {
        float sum = 0;
        for (uint32_t i = 0; i < len; i++) {
            sum += xGm.GetValue(i);
            yGm.SetValue(i, sum);
        }
    }""",
    "reads the previous output": """
    __aicore__ inline void Process() {
        for (uint32_t i = 1; i < len; i++) yGm.SetValue(i, yGm.GetValue(i - 1) + xGm.GetValue(i));
    }""",
    **{f"already split by {what}": f"""{head}
    __aicore__ inline void Process() {{
        uint32_t off = {read} * len;
        for (uint32_t i = 0; i < len; i++) yGm.SetValue(off + i, xGm.GetValue(off + i));
    }}""" for what, head, read in (
        ("block index", "", "AscendC::GetBlockIdx()"), ("the block_idx device variable", "", "block_idx"),
        ("get_block_idx()", "", "get_block_idx()"),
        ("a macro", "#define MY_BLOCK (AscendC::get_block_idx())", "MY_BLOCK"))},
    "outside the loop GM handed to a function not in the kernel's files": """
    __aicore__ inline void Process() {
        ZeroFill(xGm, len);
        for (uint32_t i = 0; i < len; i++) yGm.SetValue(i, xGm.GetValue(i));
    }""",
    "SyncAll": """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < len; i++) yGm.SetValue(i, xGm.GetValue(i));
        AscendC::SyncAll();
    }""",
    "copy longer than the stride": """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
            AscendC::Duplicate(y, 0.0f, len);
            outQ.EnQue(y);
            y = outQ.DeQue<float>();
            AscendC::DataCopy(yGm[i * len], y, 2 * len);
            outQ.FreeTensor(y);
        }
    }""",
    "GM written outside the loop": """
    __aicore__ inline void Process() {
        yGm.SetValue(0, 0.0f);
        for (uint32_t i = 1; i < len; i++) yGm.SetValue(i, xGm.GetValue(i));
    }""",
    "prefetch: a queue filled before the loop": """
    __aicore__ inline void Process() {
        CopyIn(0);
        for (uint32_t i = 0; i < tiles; i++) {
            if (i + 1 < tiles) CopyIn(i + 1);
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::DataCopy(yGm[i * len], x, len);
            inQ.FreeTensor(x);
        }
    }
    __aicore__ inline void CopyIn(uint32_t progress) {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[progress * len], len);
        inQ.EnQue(x);
    }""",
    "UB scratch accumulated across tiles": """
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> acc = tmpBuf.Get<float>();
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
            AscendC::DataCopy(x, xGm[i * len], len);
            inQ.EnQue(x);
            x = inQ.DeQue<float>();
            AscendC::Add(acc, acc, x, len);
            AscendC::DataCopy(yGm[i * len], acc, len);
            inQ.FreeTensor(x);
        }
    }""",
}


def _sites(op):
    return REWRITES.get("spread_cores").find(op)


@pytest.mark.parametrize("body,var,method", [(TILE_HELPERS, "i", "Process"), (SCALAR, "i", "Process"),
                                             (ROWS, "r", "Process")], ids=["tile-helpers", "scalar", "rows"])
def test_applies(body, var, method):
    op = kernel(body)
    sites = _sites(op)
    assert [s.label for s in sites] == [f"split loop over {var} in {method} over GetBlockNum() cores (host launch unchanged)"]
    out = REWRITES.get("spread_cores").apply(op, sites[0]).files[op.kernel_file]
    assert ("/ 64 * 64" in out) == (body is SCALAR)  # element loops: shares of 64 elements
    assert "AscendC::GetBlockIdx()" in out


@pytest.mark.parametrize("name", list(MUST_NOT))
def test_refused(name):
    assert _sites(kernel(MUST_NOT[name])) == []


def _with_host(op, old, new):
    h = op.files["op_host/abs_custom.cpp"]
    assert old in h
    return op.with_file("op_host/abs_custom.cpp", h.replace(old, new))


LAUNCH = "context->SetBlockDim(static_cast<uint32_t>(usedCores));"


def test_host_literal_and_forced_launch_become_the_core_count():
    rw = REWRITES.get("spread_cores")
    lit = _with_host(kernel(SCALAR), LAUNCH, "context->SetBlockDim(1);")
    forced = _with_host(kernel(SCALAR), LAUNCH, "usedCores = 1;\n    " + LAUNCH)
    for op, label in ((lit, "host SetBlockDim(1) -> core count"),
                      (forced, "host SetBlockDim(static_cast<uint32_t>(usedCores)) with usedCores = 1 -> core count")):
        sites = rw.find(op)
        assert [s.label for s in sites] == [f"split loop over i in Process over GetBlockNum() cores ({label})"]
        host = rw.apply(op, sites[0]).files["op_host/abs_custom.cpp"]
        assert "SetBlockDim(ascendcPlatform.GetCoreNum())" in host
        assert "usedCores = 1;" in host or op is lit  # tiling values untouched


def test_host_without_a_platform_object_constructs_one():
    op = kernel(SCALAR).with_file("op_host/abs_custom.cpp", "#include \"abs_custom_tiling.h\"\nnamespace optiling {\n"
                                  "static ge::graphStatus TilingFunc(gert::TilingContext* context) {\n"
                                  "    context->SetBlockDim(1);\n    return ge::GRAPH_SUCCESS;\n}\n}\nOP_ADD(AbsCustom);\n")
    rw = REWRITES.get("spread_cores")
    host = rw.apply(op, rw.find(op)[0]).files["op_host/abs_custom.cpp"]
    assert "SetBlockDim(platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNum())" in host
    assert '#include "tiling/platform/platform_ascendc.h"' in host


SCALAR_ABS = """#include "kernel_operator.h"
template <typename T> class KernelAbsScalar {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n)
    {
        len = n;
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        yGm.SetGlobalBuffer((__gm__ T*)y, n);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < len; i++) {
            T v = xGm.GetValue(i);
            yGm.SetValue(i, v < 0 ? -v : v);
        }
    }
private:
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t len = 0;
};

extern "C" __global__ __aicore__ void abs_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelAbsScalar<DTYPE_X> op;
    op.Init(x, y, td.lastCoreDataNum);
    op.Process();
}
"""


def single_core_abs(kernel_src: str):
    """abs_custom with ``kernel_src`` as its kernel and its host launching one core (the tiling
    for one core: ``lastCoreDataNum`` is every element)."""
    op = load("level1/abs_custom")
    h = op.files["op_host/abs_custom.cpp"].replace("uint32_t maxCoreNum = coreNum;", "uint32_t maxCoreNum = 1;")
    return op.with_file(op.kernel_file, kernel_src).with_file("op_host/abs_custom.cpp",
                                                               h.replace(LAUNCH, "context->SetBlockDim(1);"))


def test_scalar_gm_loop_split_in_64_element_shares(check):
    """A pure scalar GM loop on one core (the form bev_pool's zeroing loop has): split in shares
    of 64 elements, correct on the cases whose length is not a multiple of 64."""
    from ascendopt.cases import load_op_cases

    op = load("level1/abs_custom")
    slow = single_core_abs(SCALAR_ABS)
    rw = REWRITES.get("spread_cores")
    [site] = rw.find(slow)
    fast = rw.apply(slow, site)
    assert "aoChunk = (aoChunk + 64 - 1) / 64 * 64;" in fast.files[fast.kernel_file]
    cases = [c for c in load_op_cases(op.root) if c.name.endswith("_float")
             and 64 < c.inputs[0].size < 5000 and c.inputs[0].size % 64]
    assert cases
    before, after = check(slow, cases), check(fast, cases)
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[-1].block_dim == 48 and after[-1].task_duration_us < before[-1].task_duration_us


# ----------------------------------------------------------------------------- induction variables
#: ``offset += len`` at the top level of the body: a basic induction variable, ``offset0 + k*len``
#: at iteration ``k`` (cxx.induction); its uses after the update see ``offset0 + (k+1)*len``.
OFFSET = """
    __aicore__ inline void Process() {
        uint32_t offset = 0;
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
            AscendC::DataCopy(x, xGm[offset], len);
            inQ.EnQue(x);
            x = inQ.DeQue<float>();
            offset += len;
            AscendC::DataCopy(yGm[offset - len], x, len);
            inQ.FreeTensor(x);
        }
    }"""
#: A member updated in the loop and read in the helpers it calls (the forms cann-ops use).
OFFSET_MEMBER = """
    __aicore__ inline void Process() {
        gmOff = 0;
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn();
            Compute();
            CopyOut();
            this->gmOff = this->gmOff + len;
        }
    }
    __aicore__ inline void CopyIn() {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[gmOff], len);
        inQ.EnQue(x);
    }
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::Abs(y, x, len);
        outQ.EnQue(y);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void CopyOut() {
        AscendC::LocalTensor<float> y = outQ.DeQue<float>();
        AscendC::DataCopy(yGm[gmOff], y, len);
        outQ.FreeTensor(y);
    }
    uint64_t gmOff;"""
#: A decreasing offset: tiles written from the end.
OFFSET_DOWN = OFFSET.replace("uint32_t offset = 0;", "int64_t offset = tail;").replace("offset += len;", "offset -= len;") \
    .replace("yGm[offset - len]", "yGm[offset + len]")
#: The loop variable steps by a tile, the offset by the same tile.
OFFSET_TILE_STEP = """
    __aicore__ inline void Process() {
        uint32_t offset = 0;
        for (uint32_t i = 0; i < tail; i += len) {
            AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
            AscendC::DataCopy(x, xGm[offset], len);
            inQ.EnQue(x);
            x = inQ.DeQue<float>();
            AscendC::DataCopy(yGm[offset], x, len);
            inQ.FreeTensor(x);
            offset += len;
        }
    }"""
INDUCTION_MUST_NOT = {
    "conditional update": OFFSET.replace("offset += len;", "if (i % 2 == 0) offset += len;"),
    "update by a value written in the loop": OFFSET.replace("offset += len;", "step = i * len;\n            offset += step;")
                                                   .replace("uint32_t offset = 0;", "uint32_t offset = 0, step = 0;"),
    "updated twice": OFFSET.replace("offset += len;", "offset += len;\n            offset += 1;"),
    "read after the loop": OFFSET.replace("inQ.FreeTensor(x);\n        }\n", "inQ.FreeTensor(x);\n        }\n        tail = offset;\n"),
    "reads the next iteration's output": OFFSET.replace("xGm[offset], len", "yGm[offset], len")
                                               .replace("yGm[offset - len]", "yGm[offset]"),
    "16-bit offset (wraps)": OFFSET.replace("uint32_t offset = 0;", "uint16_t offset = 0;"),
    "float accumulator": """
    __aicore__ inline void Process() {
        float t = 0;
        for (uint32_t i = 0; i < len; i++) {
            yGm.SetValue(i, t);
            t += 0.5f;
        }
    }""",
    "updated in a called method": OFFSET_MEMBER.replace("this->gmOff = this->gmOff + len;", "")
                                               .replace("outQ.FreeTensor(y);\n    }", "outQ.FreeTensor(y);\n        gmOff += len;\n    }"),
}
_CORE_START = "offset += (aoFirst - aoBegin) / aoStep * static_cast<int64_t>(len);"


@pytest.mark.parametrize("body,lhs", [(OFFSET, "offset"), (OFFSET_MEMBER, "this->gmOff"), (OFFSET_TILE_STEP, "offset"),
                                      (OFFSET_DOWN, "offset")], ids=["local", "member", "tile-step", "decrement"])
def test_induction_variable_applies_and_starts_at_the_cores_first_iteration(body, lhs):
    op = kernel(body)
    [site] = _sites(op)
    out = REWRITES.get("spread_cores").apply(op, site).files[op.kernel_file]
    start = _CORE_START.replace("offset", lhs).replace("+=", "-=" if body is OFFSET_DOWN else "+=")
    assert start in out
    assert out.index("const int64_t aoLast") < out.index(start) < out.index("for (uint32_t i = static_cast")
    assert out.count(start) == 1


@pytest.mark.parametrize("name", list(INDUCTION_MUST_NOT))
def test_induction_variable_refused(name):
    assert _sites(kernel(INDUCTION_MUST_NOT[name])) == []


def single_core_muls_offset():
    """single_core_muls whose loop carries its GM offset: ``offset += tileDataNum`` after the
    tile, the helpers taking the offset instead of the tile number."""
    op = single_core_muls()
    k = op.files[op.kernel_file]
    old_loop = """        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }"""
    assert old_loop in k and k.count("uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;\n") == 2
    k = k.replace(old_loop, """        uint64_t offset = 0;
        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
            offset += tileDataNum;
        }""")
    k = k.replace("        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;\n", "")
    k = k.replace("uint32_t progress, uint32_t count", "uint64_t gmOffset, uint32_t count")
    return op.with_file(op.kernel_file, k)


def test_single_core_muls_with_an_offset_induction_variable_is_split_and_faster(check):
    slow = single_core_muls_offset()
    rw = REWRITES.get("spread_cores")
    [site] = rw.find(slow)
    fast = rw.apply(slow, site)
    assert "offset += (aoFirst - aoBegin) / aoStep * static_cast<int64_t>(tileDataNum);" in fast.files[fast.kernel_file]
    before, after = check(slow), check(fast)
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[-1].block_dim == 48 and before[-1].block_dim == 1
    assert after[-1].task_duration_us < before[-1].task_duration_us / 4


# ----------------------------------------------------------------------------- counted while loops
WHILE = """
    __aicore__ inline void Process() {
        uint32_t i = 0;
        while (i < tiles) {
            AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
            AscendC::DataCopy(x, xGm[i * len], len);
            inQ.EnQue(x);
            x = inQ.DeQue<float>();
            AscendC::DataCopy(yGm[i * len], x, len);
            inQ.FreeTensor(x);
            i++;
        }
    }"""
WHILE_MUST_NOT = {
    "continue skips the update": WHILE.replace("            i++;", "            if (len > 4) { continue; }\n            i++;"),
    "update not the last statement": WHILE.replace("            i++;", "            i++;\n            tail = 1;"),
    "updated twice": WHILE.replace("inQ.EnQue(x);", "inQ.EnQue(x);\n            i += 0;"),
    "start not set just before": WHILE.replace("uint32_t i = 0;", "uint32_t i = 0;\n        tail = 3;"),
    "read after the loop": WHILE.replace("i++;\n        }\n", "i++;\n        }\n        tail = i;\n"),
}


def test_counted_while_loop_applies():
    """``i = 0; while (i < n) { ...; i++; }`` is the counted loop ``for (i = 0; i < n; i++)``:
    the core's loop is a ``for`` from its first iteration whose body keeps the update."""
    op = kernel(WHILE)
    [site] = _sites(op)
    assert site.label == "split loop over i in Process over GetBlockNum() cores (host launch unchanged)"
    out = REWRITES.get("spread_cores").apply(op, site).files[op.kernel_file]
    assert "for (i = static_cast<decltype(i)>(aoFirst); i < static_cast<decltype(i)>(aoLast); ) {" in out
    assert "while" not in out and out.count("i++;") == 1


@pytest.mark.parametrize("name", list(WHILE_MUST_NOT))
def test_counted_while_loop_refused(name):
    assert _sites(kernel(WHILE_MUST_NOT[name])) == []
