"""Knob extraction, template synthesis and apply() on real and synthetic operators."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ascendopt.cxx.parse import parse
from ascendopt.operator import Operator
from ascendopt.tiling import REGION_KEY, KnobSpace, find_template
from ascendopt.tiling.show import format_space, main as show_main
from ascendopt.tiling.template import MARK_END, MARK_START

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ops"

SYNTH_HOST = """\
// cann-ops style host file without evolve markers
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BLOCK_DIM = 8;
const uint32_t TILE_NUM = 8;
constexpr uint32_t BLOCK_SIZE = 32;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t UNUSED_NUM = 7;

static ge::graphStatus DecoyTiling(gert::TilingContext* context)
{
    uint32_t decoyTile = 999;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus AddTilingFunc(gert::TilingContext* context)
{
    AddCustomTilingData tiling;
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint32_t typeLength = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
    if (totalLength == 0 || typeLength == 0 || totalLength > 65536) {
        return ge::GRAPH_FAILED;
    }
    uint32_t inputBytes = totalLength * typeLength;
    uint32_t ubPartNum = (typeLength == 2) ? 5 : 3;
    uint32_t ubDataNumber = ubSize / BLOCK_SIZE / ubPartNum / BUFFER_NUM;
    uint32_t tileLength = 4 * 1024;
    uint32_t maxCores = std::min(coreNum, 40u);
    uint32_t useCores = totalLength < 40 ? totalLength : 40;
    uint32_t floorCores = useCores > 0 ? useCores : 1;
    uint32_t alignNum = BLOCK_SIZE / typeLength;
    uint32_t alignedLength = (totalLength + alignNum - 1) / alignNum * alignNum;
    uint32_t loops = 1;
    for (uint32_t i = 0; i < 4; ++i) {
        loops *= 2;
    }
    tiling.set_totalLength(alignedLength);
    tiling.set_ubDataNumber(ubDataNumber);
    tiling.set_usedCores(maxCores < floorCores ? maxCores : floorCores);
    tiling.set_tileNum(TILE_NUM);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(BLOCK_DIM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::AddTilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
}  // namespace ops
"""

SYNTH_KERNEL = """\
#include "kernel_operator.h"
constexpr int32_t TOTAL_LENGTH = 8 * 2048;
constexpr int32_t TILE_NUM = 8;
constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t SCALAR_IDX = 0;
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> q;
}
"""


@pytest.fixture
def synth_op(tmp_path) -> Operator:
    d = tmp_path / "add_custom"
    (d / "op_host").mkdir(parents=True)
    (d / "op_kernel").mkdir()
    (d / "op_host" / "add_custom.cpp").write_text(SYNTH_HOST)
    (d / "op_host" / "add_custom_tiling.h").write_text("BEGIN_TILING_DATA_DEF(AddCustomTilingData)\nEND_TILING_DATA_DEF;\n")
    (d / "op_kernel" / "add_custom.cpp").write_text(SYNTH_KERNEL)
    return Operator.load(d)


def load(rel: str) -> tuple[Operator, KnobSpace]:
    op = Operator.load(ROOT / rel)
    return op, KnobSpace.from_operator(op, "Ascend910B2")


def knob_map(space: KnobSpace) -> dict[str, tuple[int, str, str]]:
    return {k.id: (k.default, k.role, k.scope) for k in space}


# -- extraction on the corpus ----------------------------------------------------------------
def test_scale_copy_knobs():
    op, space = load("tests/fixtures/ops/scale_copy")
    assert not space.template.synthesized
    assert knob_map(space) == {"tileLength": (1024, "tile", "region"), "BUFFER_NUM": (2, "buffer_num", "kernel")}
    assert space["BUFFER_NUM"].rebuild == "kernel" and space["BUFFER_NUM"].file == "op_kernel/scale_copy.cpp"
    assert space["tileLength"].line == 18


def test_gelu_knobs():
    op, space = load("ops/level1/gelu")
    m = knob_map(space)
    assert m == {"ubReserveBytes": (0, "ub_reserve", "region"), "minBytesPerCore": (4096, "core_grain", "region"),
                 "maxCoreNum": (48, "core_cap", "region"), "BUFFER_NUM": (2, "buffer_num", "namespace")}
    # host and kernel BUFFER_NUM are one knob written to both files
    b = space["BUFFER_NUM"]
    assert b.rebuild == "kernel" and {s.file for s in b.spans} == {"op_host/gelu.cpp", "op_kernel/gelu.cpp"}
    # alignment / hardware facts and shape-derived values are not knobs
    for fixed in ("BLOCK_BYTES", "REPEAT_BYTES", "totalNum", "inBytes", "alignNum", "tileNum", "ubSize"):
        assert fixed not in m
    assert space.domain("maxCoreNum").hi == 48


def test_rms_norm_knobs():
    op, space = load("ops/level2/rms_norm")
    m = knob_map(space)
    assert set(m) == {"groupRows", "batchRows.then", "batchRows.else", "BUFFER_NUM", "UB_RESERVED_BYTES"}
    assert space.domain("batchRows.then").kind == "cat"
    for fixed in ("rows", "cols", "MAX_DMA_BURSTS", "MAX_REPEAT", "FP32_PER_BLOCK", "FP32_PER_REPEAT",
                  "BLOCK_BYTES", "rowsPerTile", "DEFAULT_EPSILON"):
        assert fixed not in m


def test_matmul_knobs():
    op, space = load("ops/level3/matmul_custom")
    m = knob_map(space)
    assert m == {"baseM": (128, "tile", "region"), "baseN": (128, "tile", "region"), "baseK": (64, "tile", "region"),
                 "stepK": (2, "tile", "region"), "l1BufNum": (2, "buffer_num", "region"),
                 "l0BufNum": (2, "buffer_num", "region"), "baseM.2": (64, "tile", "region"),
                 "baseN.2": (64, "tile", "region")}
    assert space.domain("baseM").step == 16  # whole cube fractals
    for fixed in ("CUBE_BLOCK", "HALF_BYTES", "FLOAT_BYTES", "M", "N", "K", "kSlices"):
        assert fixed not in m


FACTS_HOST = """\
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
namespace optiling {
constexpr uint32_t KEY_HALF = 1;
constexpr uint32_t KEY_FLOAT = 2;
constexpr uint32_t SHAPE_IDX = 0;
constexpr uint32_t BYTES_A = 2;
constexpr uint32_t GRANULE = 32;
constexpr uint32_t SPLIT = 3;
constexpr uint32_t UNIT = 16;
static uint32_t RoundUp(uint32_t a, uint32_t b) { return (a + b - 1) / b * b; }
static ge::graphStatus Tiling(gert::TilingContext* context)
{
    TD tiling;
    uint64_t ubSize;
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t total = context->GetInputShape(SHAPE_IDX)->GetStorageShape().GetShapeSize();
    auto dt = context->GetInputDesc(0)->GetDataType();
    uint32_t width = 4;
    uint32_t key = KEY_FLOAT;
    uint32_t parts = 3;
    if (dt == ge::DT_FLOAT16 || dt == ge::DT_BF16) {
        width = BYTES_A;
        key = KEY_HALF;
        parts = 2;
    } else if (dt == ge::DT_INT64) {
        width = 8;
        parts = 5;
    }
    uint32_t mode = 0;
    if (total > 100) { mode = 1; } else if (total > 50) { mode = 2; }
    uint32_t unused = 77;
    uint32_t tail = 0;
    tail = total % 7;
    uint32_t big = 0;
    if (total > 9) { big = total / 9; }
    uint32_t threshold = 1000;
    uint32_t cores = 8;
    if (total > threshold) { cores = 16; }
    uint32_t perBlock = GRANULE / width;
    uint32_t aligned = (total + perBlock - 1) / perBlock * perBlock;
    uint32_t tile = ubSize / parts / SPLIT / width;
    uint32_t used = cores > 1 ? cores : 1;
    uint32_t depth = 2;
    tiling.set_aligned(aligned);
    tiling.set_padded(RoundUp(total, UNIT));
    tiling.set_tile(tile);
    tiling.set_tail(tail);
    tiling.set_big(big);
    tiling.set_mode(mode);
    tiling.set_depth(depth);
    context->SetTilingKey(key);
    context->SetBlockDim(used);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
namespace ops {
class Facts : public OpDef {
public:
    explicit Facts(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::Tiling);
    }
};
OP_ADD(Facts);
}  // namespace ops
"""

FACTS_KERNEL = """\
#include "kernel_operator.h"
constexpr int32_t MASK = 64;
constexpr int32_t LANES = 8;
extern "C" __global__ __aicore__ void facts(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, t.depth, t.tile * LANES);
    AscendC::LocalTensor<float> a = q.AllocTensor<float>();
    AscendC::Adds(a, a, 1.0f, MASK, 1, {1, 1, 8, 8});
}
"""


def test_knobs_are_decisions_not_facts(tmp_path):
    """Which literals are knobs is read off where their values go, not off their names."""
    d = tmp_path / "facts"
    (d / "op_host").mkdir(parents=True)
    (d / "op_kernel").mkdir()
    (d / "op_host" / "facts.cpp").write_text(FACTS_HOST)
    (d / "op_kernel" / "facts.cpp").write_text(FACTS_KERNEL)
    m = knob_map(KnobSpace.from_operator(Operator.load(d)))
    # type sizes (set to the tested dtype's byte size, or a constant that is), tiling-key
    # values, a query index, an enumeration, a value nobody reads, an initialiser overwritten
    # before use, a zero later replaced, a floor guard, a granule and what it is scaled from,
    # a granule passed to the operator's own rounding helper, an instruction operand of the
    # kernel: none is a knob
    for fact in ("width", "width.2", "width.3", "BYTES_A", "KEY_HALF", "KEY_FLOAT", "SHAPE_IDX", "mode",
                 "mode.2", "mode.3", "unused", "tail", "big", "used.cap", "perBlock", "GRANULE", "MASK", "UNIT"):
        assert fact not in m, fact
    # decisions, with roles from their uses: split of the UB, a threshold that picks a branch
    # of the core count, the core count itself, a kernel queue depth, a kernel size factor
    assert m["parts"][1] == "ub_parts" and m["parts.2"][1] == "ub_parts" and m["SPLIT"][1] == "ub_parts"
    assert "threshold" in m and m["cores"][1] == "tile" and m["cores.2"][0] == 16
    assert m["depth"][1] == "buffer_num"
    assert m["LANES"][1] == "tile"


# -- template synthesis path ----------------------------------------------------------------
def test_synthesized_template_and_knobs(synth_op):
    space = KnobSpace.from_operator(synth_op)
    tpl = space.template
    assert tpl.synthesized and tpl.function == "AddTilingFunc"
    assert "DecoyTiling" not in space.region_text and "ubPartNum" in space.region_text
    m = knob_map(space)
    assert m["ubPartNum.then"][:2] == (5, "ub_parts") and m["ubPartNum.else"][:2] == (3, "ub_parts")
    assert m["tileLength"][:2] == (4096, "tile") and space["tileLength"].text == "4 * 1024"
    assert m["maxCores.min"][0] == 40 and space["maxCores.min"].suffix == "u"
    assert m["useCores.cap"][0] == 40 and len(space["useCores.cap"].extra) == 1  # both 40s move together
    assert m["BLOCK_DIM"][1] == "block_dim" and m["TILE_NUM"][1] == "tile"
    assert space["TILE_NUM"].rebuild == "kernel" and len(space["TILE_NUM"].extra) == 1
    assert space["BUFFER_NUM"].rebuild == "kernel"
    not_knobs = {"decoyTile", "UNUSED_NUM", "BLOCK_SIZE", "totalLength", "typeLength", "ubSize", "inputBytes",
                 "ubDataNumber", "alignNum", "alignedLength", "loops", "i", "floorCores", "floorCores.else", "TOTAL_LENGTH",
                 "SCALAR_IDX", "kernel/TILE_NUM", "kernel/BUFFER_NUM"}
    assert not (not_knobs & set(m)), not_knobs & set(m)
    assert not any("65536" in k.text for k in space)  # guard clause literal stays fixed


def test_with_markers_and_region(synth_op):
    tpl = find_template(synth_op)
    marked = tpl.with_markers(synth_op)
    text = marked.files[tpl.file]
    assert MARK_START in text and MARK_END in text
    tpl2 = find_template(marked)
    assert not tpl2.synthesized
    assert tpl2.region_text(marked).strip() == tpl.region_text(synth_op).strip()
    edited = tpl2.with_region(marked, "\n    uint32_t tileLength = 2048;\n")
    assert "tileLength = 2048" in edited.files[tpl.file] and edited.parent == marked.digest


# -- apply ----------------------------------------------------------------------------------
OPS = ["tests/fixtures/ops/scale_copy", "ops/level1/gelu", "ops/level2/rms_norm", "ops/level3/matmul_custom"]


@pytest.mark.parametrize("rel", OPS)
def test_apply_defaults_is_identity(rel):
    op, space = load(rel)
    same = space.apply(op, space.defaults())
    assert dict(same.files) == dict(op.files) and same.digest == op.digest


def _expected(op: Operator, space: KnobSpace, config: dict) -> dict[str, str]:
    files = {f: op.files[f].encode() for f in op.files}
    edits: dict[str, list] = {}
    for kid, v in config.items():
        k = space[kid]
        if v != k.default:
            for s in k.spans:
                edits.setdefault(s.file, []).append((s.start, s.end, k.render_value(v)))
    for f, es in edits.items():
        src = files[f]
        pieces, pos = [], 0
        for a, b, t in sorted(es):
            pieces += [src[pos:a], t.encode()]
            pos = b
        pieces.append(src[pos:])
        files[f] = b"".join(pieces)
    return {f: b.decode() for f, b in files.items()}


@pytest.mark.parametrize("rel", OPS)
def test_apply_changes_only_spans(rel):
    op, space = load(rel)
    rng = random.Random(7)
    for _ in range(5):
        c = space.sample(rng)
        new = space.apply(op, c, origin="stage2/test")
        assert dict(new.files) == _expected(op, space, c)
        assert new.parent == op.digest and new.origin == "stage2/test"
        for f in op.files:
            if f.endswith(".cpp") and new.files[f] != op.files[f]:
                assert not parse(f, new.files[f]).tree.root_node.has_error, f
        # re-extraction finds the new values at the same knobs
        again = KnobSpace.from_operator(new)
        for k in again:
            if k.render == "literal" and k.id in c and not k.extra:
                assert k.default == c[k.id]


def test_apply_synth_renders(synth_op):
    space = KnobSpace.from_operator(synth_op)
    new = space.apply(synth_op, {"useCores.cap": 24, "maxCores.min": 16, "tileLength": 2048,
                                 "TILE_NUM": 4})
    host = new.files["op_host/add_custom.cpp"]
    assert "totalLength < 24 ? totalLength : 24;" in host
    assert "std::min(coreNum, 16u)" in host and "tileLength = 2048;" in host
    assert "const uint32_t TILE_NUM = 4;" in host
    assert "constexpr int32_t TILE_NUM = 4;" in new.files["op_kernel/add_custom.cpp"]
    assert not parse("h.cpp", host).tree.root_node.has_error


def test_core_cap_render():
    op, space = load("ops/level1/gelu")
    new = space.apply(op, {"maxCoreNum": 20})
    assert "uint32_t maxCoreNum = (coreNum < 20U ? coreNum : 20U);" in new.files["op_host/gelu.cpp"]


def test_unparseable_operator_gives_no_crash(tmp_path):
    d = tmp_path / "weird"
    (d / "op_host").mkdir(parents=True)
    (d / "op_kernel").mkdir()
    (d / "op_host" / "weird.cpp").write_text("namespace ops { OP_ADD(Weird); } ))) {{{ int x = ;")
    (d / "op_kernel" / "weird.cpp").write_text('extern "C" __global__ __aicore__ void weird(GM_ADDR x) { (((( }')
    space = KnobSpace.from_operator(Operator.load(d))
    assert len(space) == 0 and "no knobs" in format_space(space)


def test_show_entry_point(capsys):
    assert show_main([str(ROOT / "ops/level1/gelu")]) == 0
    out = capsys.readouterr().out
    assert "maxCoreNum" in out and "op_host/gelu.cpp:54" in out and "core_cap" in out and "coreNum" in out


def test_apply_region_replacement_keeps_outside_knobs():
    op, space = load("ops/level1/gelu")
    region = "\n    uint32_t ubReserveBytes = 512;\n    uint32_t minBytesPerCore = 8192;\n    uint32_t maxCoreNum = coreNum;\n"
    new = space.apply(op, {REGION_KEY: region, "minBytesPerCore": 64, "BUFFER_NUM": 3})
    host = new.files["op_host/gelu.cpp"]
    assert "minBytesPerCore = 8192;" in host and "minBytesPerCore = 64;" not in host  # region text wins
    assert "constexpr uint32_t BUFFER_NUM = 3;" in host                              # outside knob applied
    assert "constexpr int32_t BUFFER_NUM = 3;" in new.files["op_kernel/gelu.cpp"]
    assert find_template(new).region_text(new) == region
