import re

from ascendopt.cases import load_op_cases
from ascendopt.cxx.parse import parse, walk
from ascendopt.cxx.syntax import functions
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.operator import Operator
from ascendopt.tiling.space import KnobSpace
from ascendopt.transforms import REWRITES
from ascendopt.transforms.base import apply_edits, kernel_parsed
from ascendopt.transforms.library._ubbuf import UbBuffer, buffer_edits, plan_buffers
from ascendopt.transforms.library.stage_scalar_gm import analyze, staged_lines

from .conftest import load


MULS = "level1/muls_custom"
PROCESS = re.compile(r"    __aicore__ inline void Process\(\)\n    \{\n.*?\n    \}\n", re.S)


def slow_op(body: str = "yGm.SetValue(i, xGm.GetValue(i) * static_cast<TX>(value));") -> Operator:
    """muls_custom whose Process is one scalar GM loop over the core's elements and whose Init
    claims no UB (the form of kernels that never stage their data)."""
    op = load(MULS)
    src = re.sub(r"\n *pipe\.InitBuffer\(.*?\);", "", op.files[op.kernel_file])
    new = ("    __aicore__ inline void Process()\n    {\n"
           "        for (uint32_t i = 0; i < coreDataNum; ++i) {\n"
           f"            {body}\n"
           "        }\n    }\n")
    assert len(PROCESS.findall(src)) == 1
    return op.with_file(op.kernel_file, PROCESS.sub(lambda m: new, src))


def float_cases(op: Operator, n: int = 3):
    every = sorted((c for c in load_op_cases(op.root) if all(t.dtype == "float" for t in c.inputs)),
                   key=case_elements)
    return every[:1] + every[-(n - 1):]


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
template <typename T> class K { public:
__aicore__ inline float Sq(float v) { return v * v; }
__aicore__ inline void F(uint32_t n, uint32_t off) {
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, xGm.GetValue(i) * 2); }
  for (uint32_t i = tiling.start; i < tiling.end; i++) {
    float v = static_cast<float>(xGm.GetValue(i));
    if (v < 0) { v = -v; }
    yGm.SetValue(i + off, static_cast<T>(Sq(v) + i));
  }
  for (int32_t i = 0; i < n; ++i) { T a = xGm.GetValue(i); T b = zGm.GetValue(off + i); if (a > b) yGm.SetValue(i, a + b); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, yGm.GetValue(i) * 3 + xGm.GetValue(i)); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, xGm.GetValue(idxGm.GetValue(i))); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, xGm.GetValue(2 * i)); }
  for (uint32_t i = 1; i < n; ++i) { yGm.SetValue(i, yGm.GetValue(i - 1) + xGm.GetValue(i)); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, yGm.GetValue(i + 1)); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, xGm.GetValue(i)); n = 3; }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, xGm.GetValue(i)); if (i > 5) break; }
  for (uint32_t i = 0; i < n; ++i) { DataCopy(xLocal, xGm, 8); yGm.SetValue(i, 1); }
  for (uint32_t i = 0; i < n; ++i) { yGm.SetValue(i, Ext(xGm.GetValue(i))); }
  for (uint32_t i = 0; i < n; i += 2) { yGm.SetValue(i, xGm.GetValue(i)); }
}
GlobalTensor<T> xGm, yGm, zGm; GlobalTensor<int32_t> idxGm; LocalTensor<T> xLocal; TilingData tiling; };
"""

#: (name, base, read, written, copied in) per staged tensor, and the GM tensors read in place;
#: None: no site
EXPECTED = [
    ([("yGm", None, False, True, False), ("xGm", None, True, False, True)], []),
    ([("xGm", None, True, False, True), ("yGm", "off", False, True, False)], []),
    # a conditional write: y is copied in so the elements it skips go back unchanged
    ([("xGm", None, True, False, True), ("zGm", "off", True, False, True), ("yGm", None, False, True, True)], []),
    ([("yGm", None, True, True, True), ("xGm", None, True, False, True)], []),
    # x at a data-dependent index, or at stride 2, is not staged: it stays a scalar GM read
    ([("yGm", None, False, True, False), ("idxGm", None, True, False, True)], ["xGm"]),
    ([("yGm", None, False, True, False)], ["xGm"]),
    # a written tensor read at i-1 or at i+1 (two offsets); bound written in the loop; break; a
    # DMA in the body; an unknown call; step 2
    None, None, None, None, None, None, None,
]


def test_sites_and_what_is_staged():
    p = parse("k.cpp", SNIPPETS)
    got = []
    for n in walk(p.tree.root_node):
        if n.type == "for_statement":
            s = analyze(p, n)
            got.append(None if s is None else ([(t.name, t.base, t.read, t.written, t.copy_in) for t in s.tensors],
                                               s.kept))
    assert got == EXPECTED


def test_gather_operand_stays_a_scalar_gm_read():
    """``x.GetValue(idx.GetValue(i))``: idx and y are staged, x keeps its scalar GM read at the
    index now read from UB; the loop variable is still defined where the body uses it."""
    p = parse("k.cpp", SNIPPETS)
    loops = [n for n in walk(p.tree.root_node) if n.type == "for_statement"]
    s = analyze(p, loops[4])
    text = "\n".join(staged_lines(s, "TILE", ["b0", "b1"], ["u0", "u1"], "pipe.", True))
    assert "u0.SetValue(aoJ, xGm.GetValue(u1.GetValue(aoJ)));" in text
    assert "DataCacheCleanAndInvalid" in text   # scalar GM reads stay in the loop
    s = analyze(p, loops[1])
    text = "\n".join(staged_lines(s, "TILE", ["b0", "b1"], ["u0", "u1"], "pipe.", False))
    assert "const decltype(aoT) i = static_cast<decltype(aoT)>(aoT + aoJ);" in text
    assert "u1.SetValue(aoJ, static_cast<T>(Sq(v) + i));" in text
    assert "AscendC::DataCopyPad(yGm[aoT + (off)], u1," in text


def test_ubbuf_after_the_last_init_buffer_at_top_level():
    """muls_custom initialises a bf16 cast buffer inside ``if constexpr``: the scratch buffer is
    initialised after that statement, through the same pipe member."""
    op = load(MULS)
    files = kernel_parsed(op)
    p = files[0]
    fn = functions(p)["Compute"]
    plan = plan_buffers(files, p, fn)
    new = apply_edits(op, buffer_edits(plan, [UbBuffer("aoB", "64")]), "t").files[op.kernel_file]
    assert "            pipe.InitBuffer(castBuf, tileDataNum * sizeof(float));\n        }\n" \
           "        pipe.InitBuffer(aoB, 64);\n" in new
    assert "    AscendC::TBuf<AscendC::TPosition::VECCALC> aoB;\n};" in new


SCALAR_CLASS = """#include "kernel_operator.h"
template <typename T> class KS {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n) {
        xGm.SetGlobalBuffer((__gm__ T*)x, n); yGm.SetGlobalBuffer((__gm__ T*)y, n); len = n;
    }
    __aicore__ inline void Process() { Step(0, len); }
    __aicore__ inline void Step(uint32_t lo, uint32_t hi) {
        for (uint32_t i = lo; i < hi; ++i) { yGm.SetValue(i, xGm.GetValue(i) + 1); }
    }
private:
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t len;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
    KS<float> op;
    op.Init(x, y, 8);
    op.Process();
}
"""


def test_loop_in_a_helper_of_a_class_without_pipe():
    """A class with no pipe and no buffers gets a TPipe member and the buffers at the end of
    its init method (the first method the kernel calls on it)."""
    op = load(MULS).with_file(load(MULS).kernel_file, SCALAR_CLASS)
    rw = REWRITES.get("stage_scalar_gm")
    sites = rw.find(op)
    assert [s.label for s in sites] == ["stage yGm, xGm through UB in Step, loop for (i < hi)"]
    text = rw.apply(op, sites[0]).files[op.kernel_file]
    assert "    AscendC::TPipe aoPipe;\n" in text
    assert "len = n;\n        aoPipe.InitBuffer(aoStageBuf, AO_STAGE_TILE * sizeof(T));\n" in text
    assert "constexpr uint32_t AO_STAGE_TILE = 2048;\ntemplate <typename T> class KS" in text
    assert "for (uint32_t aoT = lo; aoT < hi; aoT += AO_STAGE_TILE) {" in text


def test_no_buffers_where_the_pipe_is_reset():
    """A kernel that resets its pipe reuses the bytes for later buffers: no place for ours."""
    src = SCALAR_CLASS.replace("private:\n", "private:\n    AscendC::TPipe pipe;\n") \
        .replace("len = n;", "len = n; pipe.Reset();")
    op = load(MULS).with_file(load(MULS).kernel_file, src)
    assert REWRITES.get("stage_scalar_gm").find(op) == []
    ok = load(MULS).with_file(load(MULS).kernel_file, src.replace(" pipe.Reset();", ""))
    text = REWRITES.get("stage_scalar_gm").apply(ok, REWRITES.get("stage_scalar_gm").find(ok)[0]).files[ok.kernel_file]
    assert "len = n;\n        pipe.InitBuffer(aoStageBuf, AO_STAGE_TILE * sizeof(T));\n" in text


def test_no_site_in_staged_or_vector_kernels():
    rw = REWRITES.get("stage_scalar_gm")
    assert rw.find(load(MULS)) == []
    staged = rw.apply(slow_op(), rw.find(slow_op())[0])
    assert rw.find(staged) == []


def test_tile_is_a_stage2_knob():
    staged = REWRITES.get("stage_scalar_gm").apply(slow_op(), REWRITES.get("stage_scalar_gm").find(slow_op())[0])
    space = KnobSpace.from_operator(staged, "Ascend910B2")
    k = next(k for k in space.knobs if k.name == "AO_STAGE_TILE")
    assert (k.default, k.role, k.rebuild) == (2048, "tile", "kernel")


def _ok_us(results, allowed=None):
    """Total task time of passing cases; every warning kind is one of ``allowed`` (None: any)."""
    assert all(r.status == "ok" for r in results), [(r.name, r.status, r.message[:300]) for r in results]
    kinds = {w["kind"] for r in results for w in r.warnings}
    assert allowed is None or kinds <= allowed, [r.warnings for r in results]
    return sum(r.task_duration_us for r in results), kinds


def test_staged_muls_passes_and_is_faster_then_vectorizes(check):
    slow = slow_op()
    cases = float_cases(slow)
    rw = REWRITES.get("stage_scalar_gm")
    sites = rw.find(slow)
    assert [s.label for s in sites] == ["stage yGm, xGm through UB in Process, loop for (i < coreDataNum)"]
    staged = rw.apply(slow, sites[0])
    assert staged.origin == "stage1/stage_scalar_gm"
    assert "pipe.InitBuffer(aoStageBuf, AO_STAGE_TILE * sizeof(TY));" in staged.files[staged.kernel_file]
    t_slow, kinds = _ok_us(check(slow, cases))
    t_staged, _ = _ok_us(check(staged, cases), kinds)   # no new hazard
    assert t_staged < t_slow
    # composition: the staged inner loop is the form vectorize_scalar_loop translates, and
    # the tile's events order the copies against V too (no race)
    vec = REWRITES.get("vectorize_scalar_loop")
    vsites = vec.find(staged)
    assert [s.label.split(" for ")[0] for s in vsites] == ["Muls"]
    fast = vec.apply(staged, vsites[0])
    t_fast, _ = _ok_us(check(fast, cases), kinds)
    assert t_fast < t_staged
