"""Shared helpers of the small algebraic rewrites (strength_reduce, dead_load): the constant a
scalar operand spells, the statements between a fill and its reader, whether a local tensor has
readers besides a given set of statements."""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.defuse import aliases, written_names
from ascendopt.cxx.parse import Parsed, declarator_name, walk
from ascendopt.cxx.syntax import LOOPS, call_args, callee_name, function_of, statement_call

_SUFFIX = "fFhHuUlL"


def const_scalar(p: Parsed, node: Node | None) -> float | None:
    """The value of a literal scalar operand through casts and parentheses (``1``, ``1.0f``,
    ``-1``, ``static_cast<T>(1)``, ``(half)0``, ``T(0)``), else None."""
    while node is not None:
        t = node.type
        if t == "number_literal":
            text = p.text(node).replace("'", "")
            if text.lower().startswith("0x"):
                try:
                    return float(int(text.rstrip("uUlL"), 16))
                except ValueError:
                    return None
            try:
                return float(text.rstrip(_SUFFIX))
            except ValueError:
                return None
        if t == "parenthesized_expression" or t == "cast_expression":
            inner = node.child_by_field_name("value") if t == "cast_expression" else None
            if inner is None:
                named = [c for c in node.named_children if c.type != "comment"]
                inner = named[-1] if named else None
            node = inner
        elif t == "unary_expression":
            op = node.child_by_field_name("operator")
            v = const_scalar(p, node.child_by_field_name("argument"))
            if v is None or op is None or p.text(op) not in "+-":
                return None
            return -v if p.text(op) == "-" else v
        elif t == "call_expression":
            args = call_args(node)
            name = callee_name(p, node)
            if len(args) != 1 or not (name == "static_cast" or name in _TYPE_NAMES or _is_type_call(p, node)):
                return None
            node = args[0]
        else:
            return None
    return None


_TYPE_NAMES = frozenset({"half", "float", "int32_t", "int16_t", "int8_t", "uint8_t", "uint16_t", "uint32_t",
                         "int64_t", "uint64_t", "bfloat16_t", "float16_t", "float32_t", "int", "double"})


def _is_type_call(p: Parsed, call: Node) -> bool:
    """``T(1)`` with ``T`` a single upper-case template-parameter-like name: a functional cast."""
    fn = call.child_by_field_name("function")
    return fn is not None and fn.type == "identifier" and any(
        p.text(n).split()[-1] == p.text(fn) for n in _template_params(call))


def _template_params(node: Node) -> list[Node]:
    out = []
    a = node.parent
    while a is not None:
        if a.type == "template_declaration":
            params = a.child_by_field_name("parameters")
            if params is not None:
                out.extend(c for c in params.named_children if c.type == "type_parameter_declaration")
        a = a.parent
    return out


def _writes(p: Parsed, stmt: Node, name: str) -> bool:
    group = aliases(p).get(name, {name})
    return bool(written_names(p, stmt) & (group | {name}))


def reaching_fill(p: Parsed, stmt: Node, name: str, fills: tuple[str, ...] = ("Duplicate",)) -> Node | None:
    """The statement ``Fill(name, value, n)`` whose value ``name`` holds when ``stmt`` runs: the
    last statement before ``stmt`` (earlier siblings, then those of enclosing blocks, up to the
    function body) that may write ``name``, when it is such a fill; None when another statement
    may write it first, or when a loop enclosing ``stmt`` below the fill writes it anywhere
    (the value reaching the next iteration)."""
    fn = function_of(stmt)
    if fn is None:
        return None
    body = fn.child_by_field_name("body")
    child = stmt
    while child is not None and child != body:
        parent = child.parent
        if parent is None:
            return None
        if parent.type in LOOPS and _writes(p, parent, name):
            return None
        if parent.type == "compound_statement":
            prev = child.prev_named_sibling
            while prev is not None:
                if prev.type != "comment" and _writes(p, prev, name):
                    c = statement_call(prev)
                    args = call_args(c) if c is not None else []
                    if c is not None and callee_name(p, c) in fills and len(args) == 3 \
                            and args[0].type == "identifier" and p.text(args[0]) == name:
                        return prev
                    return None
                prev = prev.prev_named_sibling
        child = parent
    return None


def is_local(p: Parsed, fn: Node, name: str) -> bool:
    """``name`` is declared in ``fn``'s body (a local tensor of the function)."""
    body = fn.child_by_field_name("body")
    return any(d.type == "declaration" and any(declarator_name(p, x) == name for x in d.children_by_field_name("declarator"))
               for d in walk(body))


def other_uses(p: Parsed, fn: Node, name: str, skip: list[Node]) -> bool:
    """``name`` (or a view of it) occurs in ``fn``'s body outside its declaration, the
    statements ``skip`` and ``FreeTensor``/``EnQue`` hand-overs."""
    group = aliases(p).get(name, {name}) | {name}
    for u in walk(fn.child_by_field_name("body")):
        if u.type != "identifier" or p.text(u) not in group:
            continue
        if any(s.start_byte <= u.start_byte < s.end_byte for s in skip):
            continue
        par = u.parent
        if par is not None and par.type in ("init_declarator", "declaration") \
                and u in par.children_by_field_name("declarator"):
            continue
        call = par.parent if par is not None and par.type == "argument_list" else None
        if call is not None and callee_name(p, call) in ("FreeTensor",):
            continue
        return True
    return False
