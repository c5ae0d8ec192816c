from ascendopt.cases import load_op_cases
from ascendopt.cxx.parse import parse, walk
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import REWRITES
from ascendopt.transforms.library.fuse_mul_add import fusion

from .conftest import load
from .forms import kernel


def slow_op():
    """muls_custom computing y = 0 + x * value as Duplicate; Muls in x's buffer; Add."""
    op = load("level1/muls_custom")
    src = op.files[op.kernel_file]
    old = "            AscendC::Muls(yLocal, xLocal, static_cast<TX>(value), count);\n"
    assert src.count(old) == 1
    return op.with_file(op.kernel_file, src.replace(old, (
        "            AscendC::Duplicate(yLocal, static_cast<TY>(0), count);\n"
        "            AscendC::Muls(xLocal, xLocal, static_cast<TX>(value), count);\n"
        "            AscendC::Add(yLocal, xLocal, yLocal, count);\n")))


def slow_mul_op():
    """mul_custom computing y = 0 + x1 * x2 as Duplicate; Mul into x2's buffer; Add."""
    op = load("level1/mul_custom")
    src = op.files[op.kernel_file]
    old = "        AscendC::Mul(yLocal, x1Local, x2Local, count);\n"
    assert src.count(old) == 1
    return op.with_file(op.kernel_file, src.replace(old, (
        "        AscendC::Duplicate(yLocal, static_cast<T>(0), count);\n"
        "        AscendC::Mul(x2Local, x1Local, x2Local, count);\n"
        "        // the product is added to the running value\n"
        "        AscendC::Add(yLocal, yLocal, x2Local, count);\n")))


def test_muls_then_add_into_dst_becomes_axpy(check):
    slow = slow_op()
    rw = REWRITES.get("fuse_mul_add")
    sites = rw.find(slow)
    assert [s.detail for s in sites] == ["Axpy"]
    assert "-> Axpy(yLocal, xLocal, static_cast<TX>(value), count) in Compute" in sites[0].label
    fast = rw.apply(slow, sites[0])
    text = fast.files[fast.kernel_file]
    # TY is a template parameter: the fused call for half/float, the original pair otherwise
    assert ("            if constexpr (std::is_same_v<TY, half> || std::is_same_v<TY, float>) {\n"
            "                AscendC::Axpy(yLocal, xLocal, static_cast<TX>(value), count);\n"
            "            } else {\n"
            "                AscendC::Muls(xLocal, xLocal, static_cast<TX>(value), count);\n"
            "                AscendC::Add(yLocal, xLocal, yLocal, count);\n"
            "            }\n") in text
    assert all(r.status == "ok" for r in check(fast))


def test_mul_then_add_into_dst_becomes_mul_add_dst(check):
    slow = slow_mul_op()
    rw = REWRITES.get("fuse_mul_add")
    sites = rw.find(slow)
    assert [s.detail for s in sites] == ["MulAddDst"]
    fast = rw.apply(slow, sites[0])
    assert "AscendC::MulAddDst(yLocal, x1Local, x2Local, count);" in fast.files[fast.kernel_file]
    every = sorted(load_op_cases(slow.root), key=case_elements)
    ints = [c for c in every if "int" in c.inputs[0].dtype]
    assert all(r.status == "ok" for r in check(fast, every[:2] + every[-1:] + ints[:1]))


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
template <typename T> class K { public:
void A(LocalTensor<T>& d, LocalTensor<T>& x, LocalTensor<T>& y, T a, int n) {
  LocalTensor<T> t = buf.Get<T>();
  Mul(t, x, d, n); Add(d, t, y, n);
}
void B(LocalTensor<T>& d, LocalTensor<T>& x, T a, int n) {
  LocalTensor<T> t = buf.Get<T>();
  Muls(t, x, a, n); Add(d, t, d, n);
  Muls(t, x, a, n); Add(d, t, d, n); Exp(d, t, n);
  Muls(t, x, a, n); Add(d, t, d, n); Exp(t, d, n); Exp(d, t, n);
  Muls(t, x, a, n); Add(d, t, x, n);
  Muls(field, x, a, n); Add(d, field, d, n);
  for (int i = 0; i < 4; ++i) { Exp(d, t, n); Muls(t, x, a, n); Add(d, t, d, n); }
  Muls(t, x, a, n); Add(d, t, d, m);
}
void C(LocalTensor<int32_t>& d, LocalTensor<int32_t>& x, int32_t a, int n) {
  LocalTensor<int32_t> t = buf.Get<int32_t>();
  Muls(t, x, a, n); Add(d, t, d, n);
}
LocalTensor<T> field; TBuf<TPosition::VECCALC> buf; };
"""


def test_matches_only_when_the_product_is_dead():
    p = parse("k.cpp", SNIPPETS)
    got = [(f[0], f[1]) for n in walk(p.tree.root_node) if n.type == "expression_statement"
           and (f := fusion(p, n)) is not None]
    # line 6: FusedMulAdd (d is a factor); 10: Axpy, t next overwritten by line 11's Muls;
    # 12: Axpy, t overwritten by Exp(t, d, n) before its read. Not: 11 (t read next by Exp),
    # 13 (Muls with y != d), 14 (t a field), 15 (t read earlier in the loop), 16 (counts differ),
    # 20 (int32_t elements)
    assert got == [("FusedMulAdd", ["d", "x", "y", "n"]), ("Axpy", ["d", "x", "a", "n"]), ("Axpy", ["d", "x", "a", "n"])]
    assert [p.line(n.start_byte) for n in walk(p.tree.root_node)
            if n.type == "expression_statement" and fusion(p, n)] == [6, 10, 12]


def test_no_site_in_plain_kernels():
    for name in ("level1/muls_custom", "level1/gelu", "level1/silu"):
        assert REWRITES.get("fuse_mul_add").find(load(name)) == []


BARRIERS = """
__aicore__ inline void A(AscendC::LocalTensor<float>& d, AscendC::LocalTensor<float>& x, float a, int n) {
  AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
  AscendC::Muls(t, x, a, n);
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Add(d, d, t, n);
  AscendC::Exp(d, d, n);
}
__aicore__ inline void B(AscendC::LocalTensor<float>& d, AscendC::LocalTensor<float>& x, float a, int n) {
  AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
  AscendC::Exp(x, x, n);
  AscendC::Muls(t, x, a, n);
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Add(d, d, t, n);
}
__aicore__ inline void C(AscendC::LocalTensor<float>& d, AscendC::LocalTensor<float>& x, float a, int n) {
  AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
  AscendC::Muls(t, x, a, n);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::Add(d, d, t, n);
}
__aicore__ inline void Process() {}
"""


def test_fuses_across_a_v_barrier_and_keeps_it_only_when_it_orders_an_earlier_write():
    op = kernel(BARRIERS)
    rw = REWRITES.get("fuse_mul_add")
    sites = rw.find(op)
    # A: an in-place chain over a barrier (Add(d, d, t)); B: the same after Exp wrote x; not C
    # (a full barrier orders more than the vector pipe)
    assert [(s.detail, s.label.split(" in ")[-1]) for s in sites] == [("Axpy", "A"), ("Axpy", "B")]
    a = rw.apply(op, sites[0]).files[op.kernel_file]
    assert "  AscendC::Axpy(d, x, a, n);\n  AscendC::Exp(d, d, n);\n}" in a
    assert a.count("PipeBarrier<PIPE_V>") == 1  # B's
    # B: Exp wrote x before the pair; the barrier kept that write ordered before the Add: it
    # stays, now before the fused call
    b = rw.apply(op, sites[1]).files[op.kernel_file]
    assert "  AscendC::Exp(x, x, n);\n  AscendC::PipeBarrier<PIPE_V>();\n  AscendC::Axpy(d, x, a, n);\n}" in b
    assert b.count("PipeBarrier<PIPE_V>") == 2


def test_fusion_across_a_v_barrier_end_to_end_is_correct_and_faster(check):
    """muls_custom's slow form with the author's PipeBarrier<PIPE_V> between Muls and Add: the
    Duplicate before the pair writes y, so one barrier stays before the Axpy."""
    op = slow_op()
    src = op.files[op.kernel_file]
    old = "            AscendC::Add(yLocal, xLocal, yLocal, count);\n"
    slow = op.with_file(op.kernel_file, src.replace(old, "            AscendC::PipeBarrier<PIPE_V>();\n" + old))
    rw = REWRITES.get("fuse_mul_add")
    (site,) = rw.find(slow)
    fast = rw.apply(slow, site)
    text = fast.files[fast.kernel_file]
    assert ("                AscendC::PipeBarrier<PIPE_V>();\n"
            "                AscendC::Axpy(yLocal, xLocal, static_cast<TX>(value), count);\n") in text
    cases = [c for c in sorted(load_op_cases(slow.root), key=case_elements) if c.inputs[0].dtype in ("float", "float32")][-1:]
    before, after = check(slow, cases), check(fast, cases)
    assert [r.status for r in before + after] == ["ok", "ok"]
    assert after[0].task_duration_us < before[0].task_duration_us
    print("fuse_mul_add barrier muls_custom:", before[0].task_duration_us, "->", after[0].task_duration_us)
