from ascendopt.cxx.parse import parse, walk
from ascendopt.transforms import REWRITES
from ascendopt.transforms.library.datacopypad_tail import copy_loop

from .conftest import load


MULS = "level1/muls_custom"

COPY_IN = """        if ((count * sizeof(TX)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(xLocal, xGm[gmOffset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(TX)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<TX> padParams{false, 0, 0, TX(0)};
            AscendC::DataCopyPad(xLocal, xGm[gmOffset], copyParams, padParams);
        }
"""
COPY_OUT = """        if ((count * sizeof(TY)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(yGm[gmOffset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(TY)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[gmOffset], yLocal, copyParams);
        }
"""


def slow_op():
    """muls_custom moving every tile between GM and UB element by element (fenced by barriers)."""
    op = load(MULS)
    src = op.files[op.kernel_file]
    assert src.count(COPY_IN) == 1 and src.count(COPY_OUT) == 1
    src = src.replace(COPY_IN, """        AscendC::PipeBarrier<PIPE_ALL>();
        for (uint32_t j = 0; j < count; j++) {
            xLocal.SetValue(j, xGm.GetValue(gmOffset + j));
        }
        AscendC::PipeBarrier<PIPE_ALL>();
""")
    src = src.replace(COPY_OUT, """        AscendC::PipeBarrier<PIPE_ALL>();
        for (uint32_t j = 0; j < count; j++) {
            yGm[gmOffset].SetValue(j, yLocal.GetValue(j));
        }
        AscendC::PipeBarrier<PIPE_ALL>();
""")
    return op.with_file(op.kernel_file, src)


def test_both_element_copies_become_datacopypad(check):
    slow = slow_op()
    rw = REWRITES.get("datacopypad_tail")
    sites = rw.find(slow)
    assert [s.label for s in sites] == ["GM->UB xLocal <- xGm[gmOffset]: count x TX in CopyIn",
                                        "UB->GM yGm[gmOffset] <- yLocal: count x TY in CopyOut"]
    half = rw.apply(slow, sites[0])
    assert ("        AscendC::DataCopyPad(xLocal, xGm[gmOffset], AscendC::DataCopyExtParams{1, "
            "static_cast<uint32_t>((count) * sizeof(TX)), 0, 0, 0}, "
            "AscendC::DataCopyPadExtParams<TX>{false, 0, 0, static_cast<TX>(0)});\n") in half.files[half.kernel_file]
    assert all(r.status == "ok" for r in check(half))
    sites = rw.find(half)
    assert len(sites) == 1
    fast = rw.apply(half, sites[0])
    text = fast.files[fast.kernel_file]
    assert "SetValue" not in text and "PipeBarrier" not in text
    assert ("AscendC::DataCopyPad(yGm[gmOffset], yLocal, AscendC::DataCopyExtParams{1, "
            "static_cast<uint32_t>((count) * sizeof(TY)), 0, 0, 0});") in text
    assert all(r.status == "ok" for r in check(fast))


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
class K { public:
void F(uint32_t n, uint32_t off) {
  auto a = q.AllocTensor<float>();
  LocalTensor<half> h = q.AllocTensor<half>();
  for (uint32_t i = 0; i < n; ++i) a.SetValue(i, g.GetValue(off + i));
  for (uint32_t i = 0; i < n; ++i) { g.SetValue(i, a.GetValue(i)); }
  for (uint32_t i = 0; i < n; ++i) a.SetValue(i, g.GetValue(i) * 2);
  for (uint32_t i = 0; i < n; ++i) h.SetValue(i, g.GetValue(i));
  for (uint32_t i = 0; i < n; ++i) a.SetValue(i, a.GetValue(i));
  for (uint32_t i = 0; i < n; i += 8) a.SetValue(i, g.GetValue(i));
  for (uint32_t i = 0; i < n; ++i) a.SetValue(i, g.GetValue(i + 1));
  for (uint32_t i = 0; i < n; ++i) a.SetValue(i, g.GetValue(2 * i));
}
GlobalTensor<float> g; TQue<TPosition::VECIN, 1> q; };
"""


def test_matches_only_plain_gm_ub_element_copies():
    p = parse("k.cpp", SNIPPETS)
    got = [copy_loop(p, n) for n in walk(p.tree.root_node) if n.type == "for_statement"]
    # not: a computed value, a float -> half conversion, UB -> UB, step 8; a shifted source
    # is a copy from g[1]; a strided one is not a copy
    assert got == [("GM->UB", "a", "g[off]", "float", "n"), ("UB->GM", "g", "a", "float", "n"),
                   None, None, None, None, ("GM->UB", "a", "g[1]", "float", "n"), None]


def test_no_site_in_dma_kernels():
    assert REWRITES.get("datacopypad_tail").find(load(MULS)) == []
