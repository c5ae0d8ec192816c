import pytest

from ascendopt.cxx.parse import parse, walk
from ascendopt.transforms import REWRITES, get_motif
from ascendopt.transforms.library.vectorize_scalar_loop import translate

from .conftest import load


MULS = "level1/muls_custom"
MULS_CALL = "            AscendC::Muls(yLocal, xLocal, static_cast<TX>(value), count);\n"


def slow_op():
    """muls_custom whose compute is a hand-written scalar loop fenced by full barriers."""
    op = load(MULS)
    src = op.files[op.kernel_file]
    new = ("            AscendC::PipeBarrier<PIPE_ALL>();\n"
           "            for (uint32_t j = 0; j < count; ++j) {\n"
           "                yLocal.SetValue(j, xLocal.GetValue(j) * static_cast<TX>(value));\n"
           "            }\n"
           "            AscendC::PipeBarrier<PIPE_ALL>();\n")
    assert src.count(MULS_CALL) == 1
    return op.with_file(op.kernel_file, src.replace(MULS_CALL, new))


def test_scalar_loop_becomes_muls_and_its_barriers_go(check):
    slow = slow_op()
    rw = REWRITES.get("vectorize_scalar_loop")
    sites = rw.find(slow)
    assert [s.label for s in sites] == ["Muls for count elements in Compute"]
    fast = rw.apply(slow, sites[0])
    assert fast.origin == "stage1/vectorize_scalar_loop"
    assert fast.files[fast.kernel_file] == load(MULS).files[fast.kernel_file]
    assert all(r.status == "ok" for r in check(fast))


@pytest.mark.parametrize("opname", ["level1/mul_custom", "level1/abs_custom"])
def test_undoes_the_rewind_scalar_loop_with_its_flags(check, opname):
    """The rewind motif's loops (locals per element, V->S / S->V flag pairs with fetched event
    ids) are unseen code to this matcher; every one is vectorized back."""
    op = load(opname)
    motif = get_motif("scalar_loop")
    rw = REWRITES.get("vectorize_scalar_loop")
    site = motif.find(op)[-1]
    slow = motif.apply(op, site)
    sites = rw.find(slow)
    assert len(sites) == 1
    fast = rw.apply(slow, sites[0])
    text = fast.files[fast.kernel_file]
    assert "SetValue" not in text and "SetFlag" not in text and "FetchEventID" not in text
    assert all(r.status == "ok" for r in check(fast))


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
template <typename T> class K { public:
void F(const LocalTensor<T>& a, const LocalTensor<T>& b, float s, uint32_t n, uint32_t off) {
  LocalTensor<T> y = q.AllocTensor<T>();
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i) + b.GetValue(i));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i) * s + 1);
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, 2 - a.GetValue(i));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, std::max(a.GetValue(i), (T)0));
  for (uint32_t i = 0; i < n; i++) { auto v = a.GetValue(i); y.SetValue(i, (v > b.GetValue(i) || v != v) ? v : b.GetValue(i)); }
  for (uint32_t i = 0; i < n; i++) { auto v = a.GetValue(i); y.SetValue(i, v < 0 ? -v : v + 0); }
  for (uint32_t i = 0; i < n; i++) { auto v = a.GetValue(i); y.SetValue(i, v < 0 ? v * s : v); }
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, s);
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, y.GetValue(i) * s + a.GetValue(i));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, (a.GetValue(i) - b.GetValue(i)) * s);
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, exp(-a.GetValue(i)));
  for (uint32_t i = 0; i < n; i++) y[8].SetValue(i, a.GetValue(off + i) - 3);
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i) * s + y.GetValue(i));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i) / s);
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i + 1));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, g.GetValue(i) * 2);
  for (uint32_t i = 0; i < n; i += 2) y.SetValue(i, a.GetValue(i));
  for (uint32_t i = 1; i < n; i++) y.SetValue(i, a.GetValue(i));
  for (uint32_t i = 0; i < n; i++) y.SetValue(i, a.GetValue(i));
  for (uint32_t i = 0; i < n; i++) { y.SetValue(i, a.GetValue(i)); b.SetValue(i, 0); }
}
GlobalTensor<T> g; TQue<TPosition::VECOUT, 1> q; };
"""

EXPECTED = [
    ["Add(y, a, b, n);"],
    ["Muls(y, a, s, n);", "Adds(y, y, 1, n);"],
    ["Muls(y, a, -1, n);", "Adds(y, y, 2, n);"],
    ["Maxs(y, a, (T)0, n);"],
    ["Max(y, a, b, n);"],
    ["Abs(y, a, n);"],
    ["LeakyRelu(y, a, s, n);"],
    ["Duplicate(y, s, n);"],
    ["Muls(y, y, s, n);", "Add(y, y, a, n);"],
    ["Sub(y, a, b, n);", "Muls(y, y, s, n);"],
    ["Muls(y, a, -1, n);", "Exp(y, y, n);"],
    ["Adds(y[8], a[off], -(3), n);"],
    # dst read by the last instruction: the other operand goes to a temporary
    ["Muls(aoVt0, a, s, n);", "Add(y, aoVt0, y, n);"],
    ["Duplicate(y, s, n);", "Div(y, a, y, n);"],  # t / s: the scalar Duplicate'd, exact Div
    # not vectorized: shifted read; global operand; step 2; start 1; plain copy; a plain copy
    # as one of two outputs
    None, None, None, None, None, None,
]


def test_translations():
    p = parse("k.cpp", SNIPPETS)
    got = [translate(p, n) for n in walk(p.tree.root_node) if n.type == "for_statement"]
    assert [g.lines if g else None for g in got] == EXPECTED


def test_no_site_in_vector_kernels():
    assert REWRITES.get("vectorize_scalar_loop").find(load(MULS)) == []
