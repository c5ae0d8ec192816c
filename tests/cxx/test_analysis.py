"""The C++ analysis layer on small kernels in the forms real operators use."""

from ascendopt.cxx import parse as cparse
from ascendopt.cxx.affine import affine, counted_loop, index_base
from ascendopt.cxx.defuse import assigned_names, dead_after, written_names
from ascendopt.cxx.macros import expand, function_macros, macro_loops
from ascendopt.cxx.parse import declarator_name, parse, walk
from ascendopt.cxx.scope import is_scalar, make_ctx, reached_methods, reaches, tensor_kind, tensor_type, type_of
from ascendopt.cxx.syntax import callee_name, calls, function_defs, function_name, identifiers

KERNEL = """
#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;
#define SCALE_LOOP(dst, src, n) for (int32_t k = 0; k < n; k++) { dst.SetValue(k, src.GetValue(k) * 2); }
template <typename T>
class KernelScale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n) {
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        pipe.InitBuffer(inQ, BUFFER_NUM, n * sizeof(T));
    }
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute(i);
        }
    }
private:
    __aicore__ inline void CopyIn(int32_t i);
    __aicore__ inline void Compute(int32_t i) {
        AscendC::LocalTensor<T> xLocal = inQ.DeQue<T>();
        auto yLocal = outQ.AllocTensor<half>();
        float s = 2.0f;
        AscendC::Muls(yLocal, xLocal, (T)s, len);
        SCALE_LOOP(yLocal, xLocal, len);
        outQ.EnQue(yLocal);
        inQ.FreeTensor(xLocal);
    }
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQ, outQ;
    AscendC::GlobalTensor<T> xGm;
    int32_t tiles, len;
};
template <typename T>
__aicore__ inline void KernelScale<T>::CopyIn(int32_t i) {
    AscendC::LocalTensor<T> xLocal = inQ.AllocTensor<T>();
    AscendC::DataCopy(xLocal, xGm[i * len], len);
    inQ.EnQue(xLocal);
}
"""


def _fn(p, name):
    return next(f for f in function_defs(p) if function_name(p, f) == name)


def test_parse_is_cached_by_content():
    cparse.clear_cache()
    a = parse("k.cpp", KERNEL)
    assert parse("k.cpp", KERNEL) is a
    assert parse("k.cpp", KERNEL + "\n") is not a
    assert parse("other.cpp", KERNEL) is not a
    info = cparse.cache_info()
    assert info["hits"] == 1 and info["misses"] == 3


def test_qualifiers_are_blanked_offsets_kept():
    p = parse("k.cpp", KERNEL)
    init = _fn(p, "Init")
    assert p.text(init).startswith("inline void Init")   # the blanked qualifier is whitespace to the tree
    assert p.src[init.start_byte - len("__aicore__ "):init.start_byte] == b"__aicore__ "


def test_method_following_reaches_out_of_class_definitions():
    p = parse("k.cpp", KERNEL)
    ctx = make_ctx(p, _fn(p, "Process"))
    assert {"Init", "Process", "CopyIn", "Compute"} <= set(ctx.methods)
    loop = next(n for n in walk(ctx.fn) if n.type == "for_statement")
    assert {function_name(p, m) for m in reached_methods(ctx, loop)} == {"CopyIn", "Compute"}
    # Process's loop issues a GM DMA only through CopyIn, defined outside the class
    assert reaches(ctx, loop, lambda c, call: callee_name(c.p, call) == "DataCopy")
    assert not reaches(ctx, loop, lambda c, call: callee_name(c.p, call) == "SetGlobalBuffer")


def test_declared_types_locals_parameters_members():
    p = parse("k.cpp", KERNEL)
    copy_in = _fn(p, "CopyIn")
    ctx = make_ctx(p, copy_in)
    dc = next(calls(p, ["DataCopy"], copy_in))
    assert tensor_kind(ctx, dc.child_by_field_name("arguments").named_children[0]) == "local"
    assert tensor_kind(ctx, dc.child_by_field_name("arguments").named_children[1]) == "global"
    assert type_of(ctx, "i") == "int32_t" and type_of(ctx, "len") == "int32_t"
    compute = _fn(p, "Compute")
    muls = next(calls(p, ["Muls"], compute))
    assert is_scalar(make_ctx(p, compute), "s", muls.start_byte)
    assert tensor_type(p, muls, "xLocal").pair() == ("LocalTensor", "T")
    assert tensor_type(p, muls, "yLocal").pair() == ("LocalTensor", "half")   # auto x = q.AllocTensor<half>()
    assert tensor_type(p, dc, "xGm").pair() == ("GlobalTensor", "T")          # member, out-of-class method
    assert tensor_type(p, muls, "s").pair() is None


def test_def_use():
    p = parse("k.cpp", KERNEL)
    compute = _fn(p, "Compute")
    body = compute.child_by_field_name("body")
    assert "yLocal" in written_names(p, body) and "xLocal" in written_names(p, body)  # Muls dst, FreeTensor
    assert assigned_names(p, body) == set()
    muls = next(calls(p, ["Muls"], compute)).parent
    assert not dead_after(p, muls, "yLocal")        # EnQue'd later
    loop = next(n for n in walk(_fn(p, "Process")) if n.type == "for_statement")
    assert assigned_names(p, loop) == {"i"}
    assert {"i", "tiles"} <= identifiers(p, loop)


def test_declarator_names_through_references():
    p = parse("r.cpp", "void f(const int& a, int* b) { int& c = x; auto&& d = y; int e[4]; }")
    names = [declarator_name(p, d) for n in walk(p.tree.root_node)
             if n.type in ("parameter_declaration", "declaration") for d in n.children_by_field_name("declarator")]
    assert names == ["a", "b", "c", "d", "e"]


def test_counted_loops_and_affine_indices():
    p = parse("a.cpp", "void f() { for (uint32_t j = 0; j < n; j += 2) { x[base + j * 4] = y[j]; z[(j)] = 1; } }")
    loop = next(n for n in walk(p.tree.root_node) if n.type == "for_statement")
    cl = counted_loop(p, loop)
    assert (cl.var, p.text(cl.bound), p.text(cl.step)) == ("j", "n", "2")
    subs = [n.child_by_field_name("index") or n.named_children[-1] for n in walk(loop)
            if n.type == "subscript_expression"]
    idx = [s.named_children[0] if s.type == "subscript_argument_list" else s for s in subs]
    got = [affine(p, i, "j") for i in idx]
    assert [(c, p.text(b) if b is not None else None) for c, b in got] == [("4", "base"), ("1", None), ("1", None)]
    assert index_base(p, idx[1], "j") == (True, None)
    other = parse("b.cpp", "void f() { x[j * j]; x[k]; }")
    for s in (n for n in walk(other.tree.root_node) if n.type == "subscript_expression"):
        i = s.child_by_field_name("index") or s.named_children[-1]
        i = i.named_children[0] if i.type == "subscript_argument_list" else i
        assert affine(other, i, "j") is None


def test_loops_inside_macros_the_sources_define():
    p = parse("k.cpp", KERNEL)
    macros = function_macros(p)
    assert macros["SCALE_LOOP"].params == ("dst", "src", "n")
    uses = list(macro_loops(p))
    assert len(uses) == 1
    use, x, loop = uses[0]
    assert callee_name(p, use) == "SCALE_LOOP"
    cl = counted_loop(x, loop)
    assert (cl.var, x.text(cl.bound)) == ("k", "len")
    assert "yLocal.SetValue(k, xLocal.GetValue(k) * 2)" in x.text(loop)
    assert expand(p, next(calls(p, ["Muls"])), macros) is None


def test_dead_after_a_tensor_declared_outside_the_loop_is_live():
    # the loop check compared nodes by identity (``is``), which tree-sitter never gives for a
    # parent walked to twice, so a tensor reused by the next iteration counted as dead
    p = parse("d.cpp", """void f() {
        AscendC::LocalTensor<float> t = q.AllocTensor<float>();
        for (int i = 0; i < n; i++) {
            AscendC::Mul(t, a, b, len);
            AscendC::LocalTensor<float> u = q.AllocTensor<float>();
            AscendC::Mul(u, a, b, len);
        }
    }""")
    muls = [c.parent for c in calls(p, ["Mul"])]
    assert not dead_after(p, muls[0], "t")
    assert dead_after(p, muls[1], "u")


def test_a_write_through_a_view_writes_the_viewed_tensor():
    # gcd (cann-ops) selects into ``a_fp = a.template ReinterpretCast<FpT>()`` inside the loop:
    # ``a`` changes every iteration, so ``Max(a0, a, b)`` there is not loop-invariant
    p = parse("v.cpp", """void f() {
        auto a_fp = a.template ReinterpretCast<float>();
        AscendC::LocalTensor<half> row = b[16];
        for (int i = 0; i < n; i++) {
            AscendC::Max(a0, a, b, len);
            AscendC::Select(a_fp, mask, z, a0_fp, mode, len);
            AscendC::Adds(row, row, 1, len);
        }
    }""")
    loop = next(n for n in walk(p.tree.root_node) if n.type == "for_statement")
    select = next(calls(p, ["Select"])).parent
    assert {"a_fp", "a"} <= written_names(p, select)
    adds = next(calls(p, ["Adds"])).parent
    assert {"row", "b"} <= written_names(p, adds)
    assert "a" in written_names(p, loop)


def test_callee_name_of_dependent_template_method_calls():
    """``q.template DeQue<T>()`` (a member template of a dependent type) names ``DeQue``,
    not ``template DeQue``."""
    p = parse("k.cpp", "void f() { auto t = q.template DeQue<half>(); x.template Get<float>(); "
                       "AscendC::DataCopy<T>(a, b, c); }")
    names = [callee_name(p, n) for n in walk(p.tree.root_node) if n.type == "call_expression"]
    assert names == ["DeQue", "Get", "DataCopy"]
