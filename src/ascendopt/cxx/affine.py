"""Counted loops and index expressions affine in their variable.

A counted loop is ``for (<T> var = start; var < bound; <step>)``; an index into a tensor or an
element access is *affine* in ``var`` when it is ``c * var + base`` with ``c`` and ``base`` free
of ``var`` (``var``, ``base + var``, ``var * 2 + off``, ``(var + 1) * n`` is not).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, unparen
from ascendopt.cxx.syntax import LOOPS, enclosing, function_name, function_of, identifiers, root_name


@dataclass(frozen=True)
class CountedLoop:
    """``for (<T> var = start; var < bound; <step>)``; ``step`` is None for ``++var``/``var++``.
    For a counted ``while`` loop, ``init`` is the statement before it that sets ``var = start``
    and ``update`` the body's last statement (the step)."""

    node: Node
    var: str
    start: Node
    bound: Node
    step: Node | None
    init: Node | None = None
    update: Node | None = None


def counted_loop(p: Parsed, loop: Node, allow_while: bool = False) -> CountedLoop | None:
    """The header of a counted ``for`` loop, or None when it has another shape. With
    ``allow_while``, also ``T var = start; while (var < bound) { ...; var += s; }``: the
    statement just before the loop sets ``var``, the body's last statement (unconditional) is
    its only update and the body has no ``continue`` of this loop (it would skip the update)."""
    if loop.type == "while_statement" and allow_while:
        return _counted_while(p, loop)
    if loop.type != "for_statement":
        return None
    init, cond, upd = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    if init is None or cond is None or upd is None:
        return None
    got = _header(p, init, cond, upd)
    return None if got is None else CountedLoop(loop, *got)


def _counted_while(p: Parsed, loop: Node) -> CountedLoop | None:
    from ascendopt.cxx.defuse import assigned_names
    body, cond, prev = loop.child_by_field_name("body"), loop.child_by_field_name("condition"), loop.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if body is None or body.type != "compound_statement" or cond is None or prev is None:
        return None
    stmts = [c for c in body.named_children if c.type != "comment"]
    if not stmts or stmts[-1].type != "expression_statement" or not stmts[-1].named_children:
        return None
    upd = stmts[-1].named_children[0]
    init = prev.named_children[0] if prev.type == "expression_statement" and prev.named_children else prev
    if init.type == "declaration" and len([d for d in init.named_children if d.type == "init_declarator"]) != 1:
        return None
    got = _header(p, init, cond.child_by_field_name("value") or cond, upd)
    if got is None or any(got[0] in assigned_names(p, s) for s in stmts[:-1]) or _continues(loop):
        return None
    return CountedLoop(loop, *got, init=prev, update=stmts[-1])


def _continues(loop: Node) -> bool:
    """A ``continue`` of ``loop`` (not of a loop nested in it)."""
    stack = list(loop.child_by_field_name("body").children)
    while stack:
        n = stack.pop()
        if n.type == "continue_statement":
            return True
        if n.type not in LOOPS and n.type not in ("lambda_expression", "function_definition"):
            stack.extend(n.children)
    return False


def _header(p: Parsed, init: Node, cond: Node, upd: Node) -> tuple[str, Node, Node, Node | None] | None:
    """(var, start, bound, step) of an initializer, condition and update."""
    var = start = None
    if init.type == "declaration":
        decls = [d for d in init.named_children if d.type == "init_declarator"]
        if len(decls) == 1:
            var, start = declarator_name(p, decls[0].child_by_field_name("declarator")), decls[0].child_by_field_name("value")
    elif init.type == "assignment_expression" and p.text(init.child_by_field_name("operator")) == "=":
        left = init.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            var, start = p.text(left), init.child_by_field_name("right")
    if var is None or start is None:
        return None
    cond = unparen(cond)
    if cond.type != "binary_expression":
        return None
    op = p.text(cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op == "<" and unparen(left).type == "identifier" and p.text(unparen(left)) == var:
        bound = right
    elif op == ">" and unparen(right).type == "identifier" and p.text(unparen(right)) == var:
        bound = left
    else:
        return None
    step: Node | None
    if upd.type == "update_expression" and p.text(upd).replace(var, "").strip() == "++":
        step = None
    elif upd.type == "assignment_expression" and root_name(p, upd.child_by_field_name("left")) == var:
        o = p.text(upd.child_by_field_name("operator"))
        right = unparen(upd.child_by_field_name("right"))
        if o == "+=":
            step = right
        elif o == "=" and right.type == "binary_expression" and p.text(right.child_by_field_name("operator")) == "+" \
                and p.text(unparen(right.child_by_field_name("left"))) == var:
            step = right.child_by_field_name("right")
        else:
            return None
    else:
        return None
    if step is not None and p.text(step).strip() == "1":
        step = None
    return var, start, bound, step


def index_base(p: Parsed, index: Node, var: str) -> tuple[bool, Node | None]:
    """Splits an index ``var``, ``base + var`` or ``var + base`` (``base`` free of ``var``):
    (True, base or None); (False, None) for any other index."""
    index = unparen(index)
    if index.type == "identifier" and p.text(index) == var:
        return True, None
    if index.type == "binary_expression" and p.text(index.child_by_field_name("operator")) == "+":
        left, right = index.child_by_field_name("left"), index.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if unparen(a).type == "identifier" and p.text(unparen(a)) == var and var not in identifiers(p, b):
                return True, b
    return False, None


def loop_label(p: Parsed, node: Node) -> str:
    """``in Compute, loop for (i < n)`` for people."""
    fn = function_of(node)
    where = ""
    if fn is not None:
        where = f"in {function_name(p, fn) or '?'}"
    loop = enclosing(node, LOOPS) if node.type not in LOOPS else node
    if loop is not None:
        cl = counted_loop(p, loop)
        head = f"for ({cl.var} < {p.text(cl.bound)})" if cl else p.text(loop).split("{")[0].strip()[:40]
        where += f", loop {head}" if where else f"loop {head}"
    return where or "at file scope"


def affine(p: Parsed, expr: Node, var: str) -> tuple[str, Node | None] | None:
    """``expr`` as ``coef * var + base``: (text of ``coef``, ``base`` node or None), with
    ``coef`` and ``base`` free of ``var``: ``var`` -> ("1", None), ``var + b`` / ``b + var`` ->
    ("1", b), ``var * c`` / ``c * var`` -> (c, None), ``var * c + b`` / ``b + c * var`` -> (c, b).
    None when ``expr`` is not of that form (or does not use ``var``)."""
    expr = unparen(expr)
    ok, base = index_base(p, expr, var)
    if ok:
        return "1", base
    scaled = _scaled(p, expr, var)
    if scaled is not None:
        return scaled, None
    if expr.type == "binary_expression" and p.text(expr.child_by_field_name("operator")) == "+":
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            c = _scaled(p, unparen(a), var)
            if c is not None and var not in identifiers(p, b):
                return c, b
    return None


def _scaled(p: Parsed, expr: Node, var: str) -> str | None:
    """``c`` of ``var * c`` / ``c * var`` (``c`` free of ``var``), else None."""
    if expr.type != "binary_expression" or p.text(expr.child_by_field_name("operator")) != "*":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    for a, b in ((left, right), (right, left)):
        if unparen(a).type == "identifier" and p.text(unparen(a)) == var and var not in identifiers(p, b):
            return p.text(b)
    return None
