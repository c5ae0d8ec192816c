"""Replace a vector instruction (or a pair) by a cheaper exact equivalent (optimization ``strength_reduce``, family ``instruction_fusion``).

Rewrite ``strength_reduce`` (Stage I, applies it). Three exact forms, each a site:

- **reciprocal**: ``Div(y, t, x, n)`` where ``t`` holds a constant 1 (the last statement that
  may write ``t`` before the ``Div`` -- earlier siblings, then enclosing blocks' -- is
  ``Duplicate(t, 1, n)`` with the same count, and no loop enclosing the ``Div`` below that fill
  writes ``t``) -> ``Reciprocal(y, x, n)``. The ``Duplicate`` goes too when ``t`` is a local
  tensor of the function with no other use (or the ``Div`` overwrites ``t`` -- ``Div(t, t, x,
  n)`` -- and nothing between the fill and the ``Div`` mentions ``t``). Exact in the emulation: ``Div`` computes
  ``ToF32(1) / ToF32(x)`` rounded to the element type, ``Reciprocal`` ``1.0f / ToF32(x)``
  rounded the same way (``vector_ops.h``: ``BinCompute<Div>``, ``UnF32<Reciprocal>``);
  ``ToF32(1)`` is exactly 1 for half and float, the only types either accepts, so the results
  are bitwise equal (NaN, inf and signed zeros included). On the chip the AscendC
  ``Reciprocal`` is documented for half/float with the vector unit's own accuracy: the
  candidate is validated on the cases like every rewrite.
- **identity**: ``Muls(x, x, 1, n)`` (in place) is removed: ``x * 1`` is ``x`` for every element
  type (float: NaN, inf, -0 kept; integers: exact). ``Adds(x, x, 0, n)`` (in place) is removed:
  exact for integers; for floats ``-0 + 0`` is ``+0``, the only difference, and ``-0 == +0`` in
  every comparison the cases make (documented, accepted). Not in place (``Muls(y, x, 1, n)``,
  ``y`` not ``x``), the instruction is a copy; every replacement (``Copy``, ``DataCopy``,
  ``Adds 0``) costs the same pass or is inexact, so it is no site.
- **negate-add**: ``Muls(y, x, -1, n); Add(z, w, y, n)`` (the Add's operands in either order;
  ``PipeBarrier<PIPE_V>`` statements between are allowed and handled as in ``fuse_mul_add``)
  -> ``Sub(z, w, x, n)``, when ``y`` is a local tensor whose value after the Add is never read
  (or the Add overwrites it: ``z`` is ``y``); ``y`` in place (``y`` is ``x``) included: the Sub
  reads ``x`` unnegated, which nothing reads afterwards.
  Exact: for floats ``w + (-x)`` is by IEEE 754 definition ``w - x`` (the negation ``x * -1``
  is exact, also for half, NaN and inf); for integers both are ``w - x`` modulo 2^bits.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.parse import Parsed, of_type
from ascendopt.cxx.sync import api_prefix
from ascendopt.cxx.syntax import call_args, callee_name, function_of, identifiers, receiver, statement_call
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Rewrite,
    Site,
    find_node,
    kernel_parsed,
    remove_statement,
    replace_with_lines,
)
from ascendopt.transforms.library._scalar import const_scalar, is_local, other_uses, reaching_fill
from ascendopt.transforms.library.fuse_mul_add import barrier_still_needed, barriers_between, value_dead_after
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="strength_reduce",
    family="instruction_fusion",
    title="Replace vector instructions by cheaper exact equivalents (Reciprocal for 1/x, Sub for "
          "w + (-x), no multiply by one)",
    mechanism="Each vector instruction is a pass over the tile on the V pipe: a constant tile filled "
              "only to divide by, a negation only to add, or a multiply by one are passes (and UB "
              "traffic) that an equivalent single instruction, or nothing, replaces.",
    bottleneck="V pipe: extra element-wise passes per tile (a Duplicate of ones, a Muls by -1 or 1)",
    relieves=("vector_bound",),
)


def _norm(p: Parsed, n: Node) -> str:
    return "".join(p.text(n).split())


def _call(p: Parsed, stmt: Node, names: tuple[str, ...], nargs: int = 4) -> Node | None:
    c = statement_call(stmt)
    if c is None or receiver(p, c) or callee_name(p, c) not in names or len(call_args(c)) != nargs:
        return None
    return c


def reciprocal(p: Parsed, stmt: Node) -> tuple[Node, bool] | None:
    """(the Duplicate of ones, whether it goes too) when ``stmt`` is ``Div(y, ones, x, n)``."""
    c = _call(p, stmt, ("Div",))
    if c is None:
        return None
    y, t, x, n = call_args(c)
    if t.type != "identifier" or _norm(p, t) == _norm(p, x):
        return None
    fill = reaching_fill(p, stmt, p.text(t))
    if fill is None:
        return None
    fa = call_args(statement_call(fill))
    if const_scalar(p, fa[1]) != 1.0 or _norm(p, fa[2]) != _norm(p, n):
        return None
    if _norm(p, t) == _norm(p, y):  # Div(t, t, x): the ones are overwritten by the result
        between = _between(fill, stmt)
        return fill, between is not None and not any(p.text(t) in identifiers(p, b) for b in between)
    fn = function_of(stmt)
    drop = is_local(p, fn, p.text(t)) and not other_uses(p, fn, p.text(t), [fill, stmt])
    return fill, drop


def _between(a: Node, b: Node) -> list[Node] | None:
    """The statements strictly between siblings ``a`` and ``b``, None when not siblings."""
    if a.parent != b.parent:
        return None
    out, n = [], a.next_named_sibling
    while n is not None and n != b:
        out.append(n)
        n = n.next_named_sibling
    return out if n == b else None


def identity(p: Parsed, stmt: Node) -> bool:
    """``stmt`` is ``Muls(x, x, 1, n)`` or ``Adds(x, x, 0, n)``."""
    c = _call(p, stmt, ("Muls", "Adds"))
    if c is None:
        return False
    d, x, s, _ = call_args(c)
    unit = 1.0 if callee_name(p, c) == "Muls" else 0.0
    return _norm(p, d) == _norm(p, x) and const_scalar(p, s) == unit


def negate_add(p: Parsed, stmt: Node) -> tuple[list[str], Node] | None:
    """(the Sub's arguments, the Add statement) when ``stmt`` starts ``Muls(y, x, -1, n); Add(z, w, y, n)``."""
    c1 = _call(p, stmt, ("Muls",))
    if c1 is None:
        return None
    y, x, s, n = call_args(c1)
    if const_scalar(p, s) != -1.0 or y.type != "identifier":
        return None
    _, s2 = barriers_between(p, stmt)
    c2 = _call(p, s2, ("Add",)) if s2 is not None else None
    if c2 is None:
        return None
    z, a, b, n2 = call_args(c2)
    if _norm(p, n) != _norm(p, n2):
        return None
    yy = _norm(p, y)
    ops = [_norm(p, a), _norm(p, b)]
    if ops.count(yy) != 1:
        return None
    w = b if ops[0] == yy else a
    if _norm(p, z) != yy and not value_dead_after(p, stmt, s2, p.text(y), p.text(n)):
        return None
    return [p.text(z), p.text(w), p.text(x), p.text(n)], s2


@register
class StrengthReduce(Rewrite):
    name = "strength_reduce"
    optimization = OPTIMIZATION
    anchors = ("expression_statement",)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for s in of_type(p, "expression_statement"):
                where = loop_label(p, s)
                text = p.text(statement_call(s)) if statement_call(s) is not None else ""
                if (r := reciprocal(p, s)) is not None:
                    y, _, x, n = call_args(statement_call(s))
                    gone = ", fill dropped" if r[1] else ""
                    sites.append(self.site(p, s, f"{text} -> Reciprocal({p.text(y)}, {p.text(x)}, {p.text(n)})"
                                                 f"{gone} {where}", detail="reciprocal"))
                elif identity(p, s):
                    sites.append(self.site(p, s, f"{text} dropped (identity) {where}", detail="identity"))
                elif (g := negate_add(p, s)) is not None:
                    sites.append(self.site(p, s, f"{text}; {p.text(statement_call(g[1]))} -> "
                                                 f"Sub({', '.join(g[0])}) {where}", detail="sub"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        s = find_node(p, site.start, site.end, "expression_statement")
        pre = api_prefix(p)
        if site.detail == "identity":
            return [remove_statement(p, s)]
        if site.detail == "reciprocal":
            fill, drop = reciprocal(p, s)
            y, _, x, n = (p.text(a) for a in call_args(statement_call(s)))
            out = [replace_with_lines(p, s, [f"{pre}Reciprocal({y}, {x}, {n});"])]
            return out + ([remove_statement(p, fill)] if drop else [])
        args, s2 = negate_add(p, s)
        barriers, _ = barriers_between(p, s)
        keep = bool(barriers) and barrier_still_needed(p, s)
        head = [p.text(barriers[0])] if keep else []
        return [replace_with_lines(p, s, head + [f"{pre}Sub({', '.join(args)});"]), remove_statement(p, s2),
                *(remove_statement(p, b) for b in barriers)]
