"""Minor-index independence: may an *inner* loop's columns run on different cores?

Scatters and row gathers write ``var[X*n + ii]`` in ``for (i ...) { for (ii = 0; ii < n; ++ii)
{ ... } }`` with a row ``X`` read from data (``X = indices[i]``): two rows ``i`` may hit the same
``X``, so the outer loop is not independent (:mod:`ascendopt.cxx.parallel` refuses it). Its
*columns* are: for integers ``X, X'`` and ``0 <= ii, ii' < n``, ``X*n + ii == X'*n + ii'``
gives ``(X - X')*n == ii' - ii`` with ``|ii' - ii| < n``, so ``X == X'`` and ``ii == ii'``.
Every access of the inner loop's iteration ``ii`` to a GM tensor the loop writes touches only
elements of column ``ii``; a core that runs every outer iteration but only the columns
``[lo, hi)`` of each touches only those columns' elements, in the order the single loop touches
them (rows in order), and no other core touches them. So the partition is exact when
(:func:`minor_independent`):

(a) the inner loop is ``for (T ii = 0; ii < n; ++ii)`` directly in the outer loop (same
    function), ``n`` invariant in both loops (free of everything either writes);
(b) every GM access of the inner loop (through the methods it calls) to a tensor it writes is
    one element (``GetValue``/``SetValue``) at ``X*n + ii``: the index's polynomial is
    ``1 * ii + b`` with ``b`` a multiple of ``n`` (every monomial holds ``n``'s symbol, or every
    coefficient is a multiple of a literal ``n``); a subexpression the polynomials do not
    model (a value read from data, a scalar the loop writes) stands for an unknown integer, which
    the argument allows -- provided it *is* an integer: its leaves are integer literals or names
    of an integer type, or of a template type the rewrite asserts integral
    (``static_assert(std::is_integral<T>::value)``: a non-integer instantiation fails to
    compile, never computes a wrong result); copies (``DataCopy``) and raw pointers are refused;
(c) nothing is carried between inner iterations (as :mod:`ascendopt.cxx.parallel` (c)), no
    ``break``/``return``, and nothing the inner loop writes (a scalar, UB tensor, queue) is used
    by the rest of the outer loop (whose code every core runs, so it must compute the same on
    every core), which also neither writes GM nor reads a tensor the inner loop writes;
(d) the code outside the outer loop satisfies :func:`ascendopt.cxx.parallel_check._outside`
    and the kernel-wide refusals (block index, atomics, workspace, cube).

Indices are assumed in range as mathematical integers (the original's accesses are in bounds;
an index wrapped by overflow is the original's fault either way). Shares are whole multiples of
64 columns, and the rewrite spreads only when ``n`` is a multiple of 64 at run time (else core 0
runs every column): only then does a share boundary ``X*n + lo`` fall on a 64-element boundary
for every row, so no two cores write the same 32-byte block or cache line with scalar stores.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop
from ascendopt.cxx.defuse import written_names
from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel import I, Frame, Verdict, _Loop
from ascendopt.cxx.parallel_check import _carried, _outside, kernel_refusal
from ascendopt.cxx.parse import INT_TYPES, int_literal, unparen
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.scope import SCALAR_TYPES, Ctx, type_of
from ascendopt.cxx.syntax import LOOPS, callee_name, enclosing, function_of, own_nodes

_INT_OPS = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})


@dataclass(frozen=True)
class MinorVerdict(Verdict):
    """``asserts``: template type names the rewrite asserts integral."""

    asserts: tuple[str, ...] = ()


class _Minor(_Loop):
    """The inner loop's analysis, with GM indices evaluated leniently (b)."""

    lenient = False

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.asserts: set[str] = set()

    def gm_index(self, frame: Frame, expr: Node, extra: Node | None) -> Poly | None:
        self.lenient = True
        try:
            return super().gm_index(frame, expr, extra)
        finally:
            self.lenient = False

    def value(self, node: Node, frame: Frame) -> Poly | None:
        node = unparen(node)
        if self.lenient and node.type == "identifier" and self.p_of(frame).text(node) in frame.binds \
                and not self.integral(node, frame):  # a parameter of a non-integer type converts its argument
            return None
        got = super().value(node, frame)
        if got is None and self.lenient and self.integral(node, frame):
            return Poly.sym(f"?{node.id}")
        return got

    def integral(self, node: Node, frame: Frame) -> bool:
        """``node`` is an integer-typed expression (asserting template types integral)."""
        p = self.p_of(frame)
        node = unparen(node)
        if node.type == "number_literal":
            return int_literal(p.text(node)) is not None
        if node.type == "binary_expression":
            return p.text(node.child_by_field_name("operator")) in _INT_OPS \
                and all(self.integral(node.child_by_field_name(f), frame) for f in ("left", "right"))
        if node.type == "call_expression" and callee_name(p, node) == "static_cast":
            fn = p.text(node.child_by_field_name("function"))
            return self.int_type(fn[fn.find("<") + 1:fn.rfind(">")], frame)
        if node.type == "cast_expression":
            return self.int_type(p.text(node.child_by_field_name("type")), frame)
        name = None
        if node.type == "identifier":
            name = p.text(node)
        elif node.type == "field_expression" and node.child_by_field_name("argument").type == "this":
            name = p.text(node.child_by_field_name("field"))
        if name is None:
            return False
        t = type_of(frame.ctx, name, node.start_byte)  # a parameter's own type: the call converts to it
        if t is None and name in frame.binds:
            arg, caller = frame.binds[name]
            return self.integral(arg, caller)
        return self.int_type(t, frame)

    def int_type(self, t: str | None, frame: Frame) -> bool:
        if t is None:
            return False
        base = t.replace("const", "").replace("volatile", "").strip()
        if base.endswith("*") or "&" in base:
            return False
        base = base.split("::")[-1].strip()
        if base in INT_TYPES - {"auto"} or base.startswith(("unsigned ", "long ")) and "double" not in base:
            return True
        same_scope = frame.ctx.fn.id == self.ctx.fn.id or (frame.ctx.cls is not None and self.ctx.cls is not None
                                                           and frame.ctx.cls.id == self.ctx.cls.id)
        if base.isidentifier() and base not in SCALAR_TYPES and same_scope:  # a template parameter or alias
            self.asserts.add(base)  # visible at the loop (else the assert does not compile: no wrong result)
            return True
        return False


class _Rest(_Minor):
    """The outer loop's code outside the inner loop (keys as the inner loop's analysis names them)."""

    def __init__(self, *args, skip: Node, **kw):
        super().__init__(*args, **kw)
        self.skip = skip

    def visit(self, node: Node, frame: Frame, cond: tuple, depth: int = 0) -> None:
        if node.id != self.skip.id:
            super().visit(node, frame, cond, depth)


def inner_loops(ctx: Ctx, outer: Node) -> list[Node]:
    """Counted ``for`` loops whose nearest enclosing loop is ``outer`` (same function)."""
    return [n for n in own_nodes(outer.child_by_field_name("body")) if n.type == "for_statement"
            and enclosing(n, LOOPS) == outer and function_of(n) == ctx.fn and counted_loop(ctx.p, n) is not None]


def minor_independent(prog: Program, ctx: Ctx, outer: Node, inner: Node) -> MinorVerdict:
    """Whether the columns ``ii`` of ``inner`` (inside ``outer``) may run on different cores."""
    cl = counted_loop(ctx.p, inner)
    if cl is None or cl.step is not None or ctx.p.text(cl.start).strip() != "0":
        return MinorVerdict(False, "inner loop not counted from 0 by 1")
    refused = kernel_refusal(prog)
    if refused:
        return MinorVerdict(False, refused)
    a, top = _Minor(prog, ctx, inner, cl), Frame(ctx)
    n = a.value(cl.bound, top)
    outer_written = written_names(ctx.p, outer, depth=4)
    if n is None or any(s.startswith("@") or s.split(":", 1)[-1].split("#")[0] in outer_written for s in n.symbols):
        return MinorVerdict(False, f"column count {ctx.p.text(cl.bound)} not invariant in the outer loop")
    a.visit(inner.child_by_field_name("body"), top, ())
    if a.problems:
        return MinorVerdict(False, a.problems[0])
    carried = _carried(a)
    if carried:
        return MinorVerdict(False, carried)
    written = _gm_minor(a, n)
    if isinstance(written, str):
        return MinorVerdict(False, written)
    rest = _Rest(prog, ctx, inner, cl, skip=inner)
    rest.visit(outer, top, ())
    why = _rest_problem(a, rest, written)
    if why:
        return MinorVerdict(False, why)
    outside = _outside(prog, a, written)
    if outside:
        return MinorVerdict(False, outside)
    return MinorVerdict(True, "", Poly.const(1), (), tuple(sorted(a.asserts | rest.asserts)))


def _multiple_of(b: Poly, n: Poly) -> bool:
    """``b`` is ``q * n`` for an integer polynomial ``q``."""
    if not b.terms:
        return True
    k = n.constant()
    if k is not None:
        return k != 0 and all(c % k == 0 for _, c in b.terms)
    if len(n.terms) == 1 and n.terms[0][1] == 1 and len(n.terms[0][0]) == 1:
        return b.divide_symbol(n.terms[0][0][0]) is not None
    return False


def _gm_minor(a: _Minor, n: Poly) -> set[str] | str:
    """The GM tensors the inner loop writes (with the tensors bound to the same argument), or
    why its accesses do not have the ``X*n + ii`` form (b)."""
    writes = [x for x in a.accesses if x.write]
    if not writes:
        return "no GM write in the loop"
    if any(x.tensor is None or x.tensor.startswith("ptr") for x in a.accesses):
        return "GM accessed through a raw pointer or an unresolved tensor"
    names = {x.tensor for x in writes}
    for x in a.accesses:
        if x.tensor not in names:
            continue
        if x.length[0] != "one":
            return f"{x.tensor.split(':', 1)[1]} copied in a minor-index loop"
        cb = None if x.index is None else x.index.split(I)
        if cb is None or cb[0] != Poly.const(1) or not _multiple_of(cb[1], n):
            return f"{x.tensor.split(':', 1)[1]} accessed off the form X*n + column ({a.p_of(Frame(a.ctx)).text(x.at)[:50]})"
    plain = {t.split(":", 1)[1] for t in names}
    return plain | {m for m, src in a.prog.gm_sources().items() if src in plain}


def _rest_problem(a: _Minor, rest: _Rest, written: set[str]) -> str:
    """(c): the rest of the outer loop runs on every core and must compute the same on each."""
    if rest.problems:
        return rest.problems[0]
    for x in rest.accesses:
        if x.write:
            return "GM written in the outer loop outside the column loop"
        if x.tensor is not None and x.tensor.split(":", 1)[1] in written:
            return f"{x.tensor.split(':', 1)[1]} read in the outer loop outside the column loop"
    inner_w = {k for k, kind, _ in a.events if kind == "w"}
    used = {k for k, _, _ in rest.events} & inner_w
    if used:
        return f"{sorted(used)[0][2:]} written in the column loop and used by the rest of the outer loop"
    return ""

