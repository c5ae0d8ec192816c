from ascendopt.cxx.parse import parse, walk
from ascendopt.transforms import REWRITES
from ascendopt.transforms.library.hoist_invariant import invariant

from .conftest import load


GREATER = "level1/greater_custom"
FILL = "        AscendC::Duplicate(ones, static_cast<half>(1.0f), tileDataNum);\n"
HEAD = "            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;\n"


def slow_op():
    """greater_custom filling its tensor of ones on every tile instead of once."""
    op = load(GREATER)
    src = op.files[op.kernel_file]
    assert src.count(FILL) == 1 and src.count(HEAD) == 1
    src = src.replace(FILL, "").replace(HEAD, HEAD + "    " + FILL)
    return op.with_file(op.kernel_file, src)


def test_fill_of_constants_moves_before_the_tile_loop(check):
    slow = slow_op()
    rw = REWRITES.get("hoist_invariant")
    sites = rw.find(slow)
    assert [s.label for s in sites] == [
        "AscendC::Duplicate(ones, static_cast<half>(1.0f), tileDataNum) hoisted (in Process, loop for (i < tileNum))"]
    fast = rw.apply(slow, sites[0])
    assert fast.files[fast.kernel_file] == load(GREATER).files[fast.kernel_file]
    assert all(r.status == "ok" for r in check(fast))


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
class K { public:
void W(LocalTensor<half>& t) { Adds(t, t, (half)1, 8); }
void R(const LocalTensor<half>& t) { Exp(a, t, 8); }
void F(uint32_t n) {
  LocalTensor<half> c = buf.Get<half>();
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); R(c); }
  for (uint32_t i = 0; i < n; ++i) { Muls(c, a, v, n); Exp(b, c, n); }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, i); }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); W(c); }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); v = v + 1; }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); Exp(a, b, n); }
  for (uint32_t i = 0; i < n; ++i) { Exp(b, c, n); Duplicate(c, v, n); }
  for (uint32_t i = 0; i < n; ++i) { Adds(c, c, v, n); }
  for (uint32_t i = 0; i < n; ++i) { LocalTensor<half> d = q.AllocTensor<half>(); Duplicate(d, v, n); q.EnQue(d); }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); Unknown(c); }
  for (uint32_t i = 0; i < n; ++i) { Duplicate(c, v, n); c.SetValue(0, v); }
  for (uint32_t i = 0; i < n; ++i) { if (i == 0) { Duplicate(c, v, n); } }
  for (uint32_t m = n; m > 0; m = m / 2) { Duplicate(c, v, m); }
}
LocalTensor<half> a, b; half v; TBuf<TPosition::VECCALC> buf; TQue<TPosition::VECOUT, 1> q; };
"""


def test_dataflow_decides():
    p = parse("k.cpp", SNIPPETS)
    got = [p.line(n.start_byte) for n in walk(p.tree.root_node)
           if n.type == "expression_statement" and invariant(p, n) is not None]
    # 8: R only reads c; 9: the Muls (c is read after it, written nowhere else); 13: both
    # statements (independent). Not: 9's Exp (c written by the Muls), 10 (loop variable),
    # 11 (W writes its parameter), 12 (v assigned), 14 (c read before the fill), 15 (accumulates),
    # 16 (declared per iteration), 17 (unknown callee), 18 (SetValue), 19 (under an if),
    # 20 (count written by the loop update)
    assert got == [8, 9, 13, 13]


def test_no_site_when_already_hoisted():
    assert REWRITES.get("hoist_invariant").find(load(GREATER)) == []
