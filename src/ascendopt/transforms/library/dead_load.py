"""Compute a constant-zero result without its operand, and drop the load it no longer needs (optimization ``dead_load``, family ``data_reuse``).

Rewrite ``dead_load`` (Stage I, applies it): a vector instruction whose result does not depend on
its source tile becomes a fill, and the GM->UB copy of a tile nothing else reads goes.

Sites: a statement ``Sub(t, x, x, n)`` (both sources the same tensor expression),
``Muls(t, x, 0, n)`` or ``Mul(t, x, z, n)`` / ``Mul(t, z, x, n)`` where ``z`` holds zeros (the
last statement that may write ``z`` before it is ``Duplicate(z, 0, n)`` with the same count,
:func:`._scalar.reaching_fill`) -> ``Duplicate(t, static_cast<E>(0), n)``.

Legality: only for a destination whose element type is declared as a 16- or 32-bit integer
(``int16_t``, ``uint16_t``, ``int32_t``, ``uint32_t``: the types AscendC's ``Duplicate``, ``Sub``
and ``Mul`` share). There ``x - x`` and ``x * 0`` are 0 for every ``x`` (wrapping arithmetic),
so the fill computes the same tile bit for bit. For floating types the rewrite is *not*
offered: ``x - x`` and ``x * 0`` are NaN when ``x`` is inf or NaN and ``x * 0`` is -0 for
negative ``x``; the cases rarely hold such values, so validation could not tell the difference
and an inexact rewrite would pass it. A template element type (``T``) is no site either (the
kernel may be instantiated for floats).

The load: when the source ``x`` is a local tensor of the function with no other use (its
declaration, the rewritten statement and ``FreeTensor`` aside), the copies that fill it are
dead (def-use through the tile's storage):

- ``x`` taken from a queue (``q.DeQue<E>()``): when ``q`` is dequeued nowhere else in the file
  and every tensor ``q.AllocTensor<E>()`` hands out (in any function of the file) is only the
  destination of GM->UB ``DataCopy``/``DataCopyPad`` statements and handed to ``q.EnQue``,
  those copies are removed, and with them the queue's hand-over, which now carries nothing:
  the ``AllocTensor`` and ``DeQue`` declarations and the ``EnQue``/``FreeTensor`` statements of
  those tiles (when each is a whole statement; the ``InitBuffer`` stays). The hand-over only
  ordered the queue's own tile; another tile's copy that relied on it would be an unordered
  access the race checker reports;
- ``x`` taken from a buffer in the same function (``buf.Get<E>()`` or ``AllocTensor``): the
  GM->UB copies into ``x`` in that function are removed. When the rewritten statement
  overwrites ``x`` itself (``Sub(x, x, x, n)``) and the copies are earlier statements of its
  block, reads of ``x`` after it see the fill, not the copy: they do not keep the copy.

Each removed copy is an MTE2 transfer of the tile; a kernel bound by its copy-in gets faster.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, walk
from ascendopt.cxx.scope import make_ctx, tensor_type
from ascendopt.cxx.sync import api_prefix
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    calls,
    function_defs,
    function_of,
    receiver,
    root_name,
    statement_call,
    statement_of,
)
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, Rewrite, Site, find_node, kernel_parsed, remove_statement, replace_with_lines
from ascendopt.transforms.library._scalar import const_scalar, is_local, other_uses, reaching_fill
from ascendopt.transforms.library._tileloop import is_gm_load
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="dead_load",
    family="data_reuse",
    title="Compute a constant-zero result without its operand and drop the load only it read",
    mechanism="A tile loaded from GM only to compute x - x or x * 0 costs an MTE2 transfer and a UB "
              "buffer per tile; a Duplicate of 0 needs neither, and the V pass reads no source.",
    bottleneck="MTE2: a GM->UB copy per tile whose data no instruction needs",
    relieves=("memory_bound",),
)

#: Element types where ``x - x == 0`` and ``x * 0 == 0`` always and Duplicate/Sub/Mul all exist.
INT_ELEMS = frozenset({"int16_t", "uint16_t", "int32_t", "uint32_t"})


def _norm(p: Parsed, n: Node) -> str:
    return "".join(p.text(n).split())


def zero_result(p: Parsed, stmt: Node) -> tuple[str, str, str, Node] | None:
    """(destination, count, element type, the source tile) when ``stmt`` computes zeros from a tile."""
    c = statement_call(stmt)
    if c is None or receiver(p, c):
        return None
    name, args = callee_name(p, c), call_args(c)
    if len(args) != 4:
        return None
    d, a, b, n = args
    src = None
    if name == "Sub" and _norm(p, a) == _norm(p, b):
        src = a
    elif name == "Muls" and const_scalar(p, b) == 0.0:
        src = a
    elif name == "Mul":
        for x, z in ((a, b), (b, a)):
            fill = reaching_fill(p, stmt, p.text(z)) if z.type == "identifier" else None
            if fill is not None:
                fa = call_args(statement_call(fill))
                if const_scalar(p, fa[1]) == 0.0 and _norm(p, fa[2]) == _norm(p, n):
                    src = x
                    break
    if src is None:
        return None
    elem = tensor_type(p, c, root_name(p, d) or "").base
    if elem not in INT_ELEMS:
        return None
    return p.text(d), p.text(n), elem, src


def _decl_init(p: Parsed, fn: Node, name: str) -> Node | None:
    """The initialiser of ``name``'s declaration in ``fn`` (``inQ.DeQue<T>()``), else None."""
    for d in walk(fn.child_by_field_name("body")):
        if d.type == "init_declarator" and declarator_name(p, d.child_by_field_name("declarator")) == name:
            return d.child_by_field_name("value")
    return None


def _loads_into(p: Parsed, fn: Node, name: str, also: tuple[Node, ...] = ()) -> list[Node] | None:
    """The GM->UB copy statements in ``fn`` whose destination is ``name``; None when ``name`` has
    another use besides them, its declaration, ``EnQue``/``FreeTensor``."""
    ctx = make_ctx(p, fn)
    loads = [statement_of(c) for c in calls(p, ("DataCopy", "DataCopyPad"), fn)
             if call_args(c) and root_name(p, call_args(c)[0]) == name and is_gm_load(ctx, c)]
    if any(s is None for s in loads):
        return None
    handed = [statement_of(c) or c for c in calls(p, ("EnQue",), fn)
              if any(root_name(p, a) == name for a in call_args(c))]
    if other_uses(p, fn, name, loads + handed + list(also)):
        return None
    return loads


@dataclass(frozen=True)
class _Span:
    """A byte range standing for the statements after the rewritten one (``other_uses`` skips it)."""

    start_byte: int
    end_byte: int


def _after(p: Parsed, stmt: Node, x: str, fn: Node) -> _Span:
    """The rest of ``fn`` after ``stmt`` when ``stmt`` overwrites ``x`` whole (its destination is
    ``x`` itself), else an empty span: reads there see the new value, not the loaded one."""
    d = call_args(statement_call(stmt))[0]
    if d.type == "identifier" and p.text(d) == x:
        return _Span(stmt.end_byte, fn.end_byte)
    return _Span(stmt.end_byte, stmt.end_byte)


def _overwrites(p: Parsed, stmt: Node, x: str, loads: list[Node]) -> bool:
    """``stmt`` overwrites ``x`` and every load is an earlier statement of its block (so every
    path from a load to a later read of ``x`` passes through ``stmt``)."""
    d = call_args(statement_call(stmt))[0]
    return d.type == "identifier" and p.text(d) == x and all(
        ld.parent == stmt.parent and ld.start_byte < stmt.start_byte for ld in loads)


@dataclass(frozen=True)
class DeadCopies:
    """What goes with the rewritten statement: the copies that only filled its source tile, and
    the queue hand-over statements of a queue left carrying nothing."""

    loads: tuple[Node, ...] = ()
    handover: tuple[Node, ...] = ()


def _whole_decl(init_call: Node) -> Node | None:
    """The declaration statement ``T a = q.AllocTensor<T>();`` holding ``init_call`` as its only
    declarator's value, else None."""
    d = init_call.parent
    decl = d.parent if d is not None and d.type == "init_declarator" else None
    if decl is None or decl.type != "declaration" or len(decl.children_by_field_name("declarator")) != 1:
        return None
    return decl


def _handed(p: Parsed, fn: Node, que: str, methods: tuple[str, ...], name: str) -> list[Node] | None:
    """The statements ``que.M(name)`` (M in ``methods``) of ``fn``; None when one is not a whole statement."""
    out = []
    for c in calls(p, methods, fn):
        if receiver(p, c) == que and any(root_name(p, a) == name for a in call_args(c)):
            st = statement_of(c)
            if st is None:
                return None
            out.append(st)
    return out


def dead_loads(p: Parsed, stmt: Node, src: Node) -> DeadCopies:
    """The copy statements that only fill the tile ``src`` and, for a queue tile, the hand-over
    of the queue (see the module docstring)."""
    fn = function_of(stmt)
    x = root_name(p, src)
    if fn is None or x is None or src.type != "identifier" or not is_local(p, fn, x):
        return DeadCopies()
    init = _decl_init(p, fn, x)
    if init is None or init.type != "call_expression":
        return DeadCopies()
    how, que = callee_name(p, init), receiver(p, init)
    if how in ("Get", "AllocTensor"):
        plain = _loads_into(p, fn, x, (stmt,))
        if plain:
            return DeadCopies(tuple(plain))
        loads = _loads_into(p, fn, x, (stmt, _after(p, stmt, x, fn)))
        return DeadCopies(tuple(loads)) if loads and _overwrites(p, stmt, x, loads) else DeadCopies()
    if how != "DeQue" or not que or other_uses(p, fn, x, [stmt]):
        return DeadCopies()
    if sum(1 for c in calls(p, ("DeQue",)) if receiver(p, c) == que) != 1:
        return DeadCopies()
    loads: list[Node] = []
    handover: list[Node] | None = []
    for g in function_defs(p):
        for c in calls(p, ("AllocTensor",), g):
            if receiver(p, c) != que:
                continue
            decl = c.parent
            if decl is None or decl.type != "init_declarator":
                return DeadCopies()
            a = declarator_name(p, decl.child_by_field_name("declarator")) or ""
            got = _loads_into(p, g, a)
            if got is None:
                return DeadCopies()
            loads += got
            enq, whole = _handed(p, g, que, ("EnQue",), a), _whole_decl(c)
            handover = None if handover is None or enq is None or whole is None else handover + [whole, *enq]
    freed, whole = _handed(p, fn, que, ("FreeTensor",), x), _whole_decl(init)
    if handover is None or freed is None or whole is None or root_name(p, call_args(statement_call(stmt))[0]) == x:
        return DeadCopies(tuple(loads))
    return DeadCopies(tuple(loads), tuple(handover + [whole, *freed]))


@register
class DeadLoad(Rewrite):
    name = "dead_load"
    optimization = OPTIMIZATION
    anchors = ("expression_statement",)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for s in of_type(p, "expression_statement"):
                got = zero_result(p, s)
                if got is None:
                    continue
                d, n, _, src = got
                dead = dead_loads(p, s, src)
                tail = f"; {len(dead.loads)} load(s) of {p.text(src)} dropped" if dead.loads else ""
                tail += " with its queue hand-over" if dead.handover else ""
                sites.append(self.site(p, s, f"{p.text(statement_call(s))} -> Duplicate({d}, 0, {n}){tail} "
                                             f"{loop_label(p, s)}", detail=str(len(dead.loads))))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        s = find_node(p, site.start, site.end, "expression_statement")
        d, n, elem, src = zero_result(p, s)
        fill = f"{api_prefix(p)}Duplicate({d}, static_cast<{elem}>(0), {n});"
        dead = dead_loads(p, s, src)
        return [replace_with_lines(p, s, [fill]), *(remove_statement(p, x) for x in dead.loads + dead.handover)]
