"""Accesses through raw ``__gm__`` pointers, for :mod:`ascendopt.cxx.parallel`: ``p[e]``,
``*(p + e)`` and ``*p`` with ``p`` a pointer parameter, local or member, followed through
parameter bindings, single-assignment locals, ``+`` offsets and pointer casts
(``reinterpret_cast<__gm__ T*>(x) + off``). A cast of a pointer that already carries an offset
is not followed (the offset's unit would change)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ascendopt.cxx.defuse import assigned_names
from ascendopt.cxx.parse import unparen
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.syntax import call_args, callee_name, template_args

if TYPE_CHECKING:
    from ascendopt.cxx.parallel import Frame, _Loop


def _elem(type_text: str) -> str:
    t = type_text
    for w in ("__gm__", "const", "volatile", "*"):
        t = t.replace(w, " ")
    return " ".join(t.split())


def pointer(a: "_Loop", expr: Node, frame: "Frame") -> tuple[str, str, Poly] | None:
    """(base, element type, element offset) of a pointer expression, else None."""
    from ascendopt.cxx.parallel import pointer_name

    p = frame.ctx.p
    expr = unparen(expr)
    t = expr.type
    if t == "field_expression" and expr.child_by_field_name("argument").type == "this":
        name = p.text(expr.child_by_field_name("field"))
        typ = frame.ctx.fields.get(name, "")
        return None if name in a.written or not typ.endswith("*") else (f"ptr:{name}", _elem(typ), Poly.const(0))
    if t == "identifier":
        name = p.text(expr)
        if name in frame.binds:
            arg, caller = frame.binds[name]
            return pointer(a, arg, caller)
        decl = a.local_decl(frame, name, expr)
        if decl is not None:
            value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
            if value is None or name in assigned_names(p, frame.ctx.fn.child_by_field_name("body")):
                return None
            return pointer(a, value, frame)
        if not pointer_name(frame.ctx, name, expr.start_byte) or name in a.written:
            return None
        from ascendopt.cxx.scope import type_of
        return f"ptr:{name}", _elem(type_of(frame.ctx, name, expr.start_byte) or "?"), Poly.const(0)
    if t == "binary_expression" and p.text(expr.child_by_field_name("operator")) == "+":
        for x, y in ((expr.child_by_field_name("left"), expr.child_by_field_name("right")),
                     (expr.child_by_field_name("right"), expr.child_by_field_name("left"))):
            base = pointer(a, x, frame)
            if base is not None:
                off = a.value(y, frame)
                return None if off is None else (base[0], base[1], base[2] + off)
        return None
    cast_type, inner = None, None
    if t == "cast_expression":
        cast_type, inner = p.text(expr.child_by_field_name("type")), expr.child_by_field_name("value")
    elif t == "call_expression" and callee_name(p, expr) in ("reinterpret_cast", "static_cast") \
            and len(call_args(expr)) == 1 and template_args(p, expr):
        cast_type, inner = template_args(p, expr)[0], call_args(expr)[0]
    if cast_type is None or "*" not in cast_type:
        return None
    base = pointer(a, inner, frame)
    if base is None or base[2] != Poly.const(0) and base[1] != _elem(cast_type):
        return None
    return base[0], _elem(cast_type), base[2]


def deref(a: "_Loop", node: Node, frame: "Frame") -> tuple[str, str, Poly] | None:
    """(base, element type, element index) of ``*(p + e)`` / ``*p`` / ``p[e]``, else None."""
    p = frame.ctx.p
    node = unparen(node)
    if node.type == "pointer_expression" and p.text(node).lstrip().startswith("*"):
        return pointer(a, node.child_by_field_name("argument"), frame)
    if node.type == "subscript_expression":
        base = pointer(a, node.child_by_field_name("argument"), frame)
        idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
        items = [c for c in idx.named_children if c.type != "comment"] if idx is not None else []
        off = a.value(items[0], frame) if base is not None and len(items) == 1 else None
        return None if off is None else (base[0], base[1], base[2] + off)
    return None
