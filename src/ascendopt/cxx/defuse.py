"""Def-use of locals and members: which names a subtree declares, assigns or may write, and
whether a name is still read after a statement.

Two questions with two answers, kept apart on purpose:

* :func:`assigned_names` -- the variables a subtree assigns (``x = ``, ``x += ``, ``++x``,
  ``x[i] = ``): the scalar state a loop carries;
* :func:`written_names` -- everything a subtree may write, tensors included: assignments, the
  destination of vector and copy instructions (:mod:`ascendopt.cxx.instructions`),
  ``SetValue`` receivers, tensors handed to ``EnQue``/``FreeTensor``, declarations, and --
  following calls of functions of the same file -- their writes to members and to the
  arguments passed for the parameters they write; a write to a view
  (``x.ReinterpretCast<T>()``, ``x[off]``) writes the tensor it views and its other views.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.instructions import COPY_OPS, HANDOVER_METHODS, SYNC_CALLS, VECTOR_OPS
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, unparen, walk
from ascendopt.cxx.scope import Ctx, is_scalar
from ascendopt.cxx.syntax import (LOOPS, base_name, call_args, callee_name, enclosing, function_of, functions,
                                  is_method_call, method_receiver, own_calls, own_nodes, receiver, root_name)


def declared_in(p: Parsed, root: Node) -> set[str]:
    """Names declared (locals, loop variables, parameters) under ``root``."""
    out = set()
    for d in walk(root):
        if d.type in ("declaration", "parameter_declaration"):
            for dec in d.children_by_field_name("declarator"):
                name = declarator_name(p, dec)
                if name:
                    out.add(name)
    return out


def assigned_names(p: Parsed, root: Node) -> set[str]:
    """Variables assigned (``x = ``, ``x += ``, ``++x``, ``x[i] = ``, ``this->x = ``) under
    ``root``, not looking into nested functions or lambdas."""
    out = set()
    for n in own_nodes(root):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is not None:
            nm = base_name(p, target)
            if nm:
                out.add(nm)
    return out


#: Methods whose result is a view of the receiver's storage.
VIEW_METHODS = frozenset({"ReinterpretCast"})


def aliases(p: Parsed) -> dict[str, set[str]]:
    """Tensors that share storage, by name, over the whole file: a variable declared or assigned
    as a view of another (``auto y = x.ReinterpretCast<T>()``, ``LocalTensor<T> y = x[off]``)
    is in one class with it. Computed once per file content. Names are not scoped (a name
    reused in two functions joins both classes): the answer errs on the side of more writes."""
    got = p.facts.get("aliases")
    if got is not None:
        return got
    edges: list[tuple[str, str]] = []
    for n in of_type(p, "init_declarator", "assignment_expression"):
        if n.type == "init_declarator":
            name, value = declarator_name(p, n.child_by_field_name("declarator")), n.child_by_field_name("value")
        else:
            name, value = root_name(p, n.child_by_field_name("left")), n.child_by_field_name("right")
        base = _viewed(p, value)
        if name and base and base != name:
            edges.append((name, base))
    classes: dict[str, set[str]] = {}
    for a, b in edges:
        merged = classes.get(a, {a}) | classes.get(b, {b})
        for x in merged:
            classes[x] = merged
    p.facts["aliases"] = classes
    return classes


def _viewed(p: Parsed, value: Node | None) -> str | None:
    """The tensor ``value`` is a view of (``x.ReinterpretCast<T>()``, ``x[off]``), else None."""
    if value is None:
        return None
    value = unparen(value)
    # ``x.template ReinterpretCast<T>()`` (a dependent name) reads as ``template ReinterpretCast``
    if value.type == "call_expression" and is_method_call(value) \
            and callee_name(p, value).removeprefix("template ").strip() in VIEW_METHODS:
        return base_name(p, method_receiver(value))
    if value.type == "subscript_expression":
        return base_name(p, value)
    return None


def written_names(p: Parsed, root: Node, depth: int = 2) -> set[str]:
    """Names a subtree may write (see the module docstring) and the names sharing storage with
    them (:func:`aliases`); calls of functions defined in the same file are followed ``depth``
    levels. An argument of a call to anything else unknown counts as written."""
    out = _written(p, root, depth)
    views = aliases(p)
    return out.union(*(views[n] for n in out if n in views))


def _written(p: Parsed, root: Node, depth: int) -> set[str]:
    fns = functions(p)
    out: set[str] = set()
    for n in walk(root):
        t = n.type
        if t == "assignment_expression":
            name = root_name(p, n.child_by_field_name("left"))
            if name:
                out.add(name)
        elif t == "update_expression":
            name = root_name(p, n.child_by_field_name("argument"))
            if name:
                out.add(name)
        elif t == "call_expression":
            out |= _call_writes(p, n, fns, depth)
    return out | declared_in(p, root)


def _call_writes(p: Parsed, call: Node, fns: dict[str, Node], depth: int) -> set[str]:
    name = callee_name(p, call)
    args = call_args(call)
    if is_method_call(call):
        recv = root_name(p, method_receiver(call))
        if name in ("SetValue",) and recv:
            return {recv}
        if name in HANDOVER_METHODS:
            return {r for a in args if (r := root_name(p, a))}
        if name in fns and depth > 0 and method_receiver(call).type == "this":
            return _function_writes(p, fns[name], args, fns, depth)
        return set()
    if name in VECTOR_OPS or name in COPY_OPS:
        r = root_name(p, args[0]) if args else None
        return {r} if r else set()
    if name in SYNC_CALLS or name in ("GetBlockIdx", "GetBlockNum", "static_cast", "sizeof", "min", "max"):
        return set()
    if name in fns and depth > 0:
        return _function_writes(p, fns[name], args, fns, depth)
    # unknown callee: whatever it is given may be written
    return {r for a in args if (r := root_name(p, a))}


def _function_writes(p: Parsed, fn: Node, args: list[Node], fns: dict[str, Node], depth: int) -> set[str]:
    body = fn.child_by_field_name("body")
    if body is None:
        return {r for a in args if (r := root_name(p, a))}
    inner = _written(p, body, depth - 1)
    params = [declarator_name(p, d.child_by_field_name("declarator"))
              for d in walk(fn.child_by_field_name("declarator")) if d.type in ("parameter_declaration",
                                                                                 "optional_parameter_declaration")]
    local = declared_in(p, body) | set(params)
    out = {w for w in inner if w not in local}  # fields
    for prm, a in zip(params, args):
        if prm in inner and (r := root_name(p, a)):
            out.add(r)
    return out


def destinations(ctx: Ctx, roots: list[Node]) -> set[str]:
    """Names passed as first operand of a call under ``roots`` (the destination of AscendC vector
    and copy instructions, possibly written by a method), not counting scalar arguments and
    ``EnQue``/``FreeTensor``. ``roots`` are ``ctx.fn``'s body or bodies of its class's methods."""
    out = set()
    for r in roots:
        fn = r.parent if r.parent is not None and r.parent.type == "function_definition" else ctx.fn
        c2 = ctx.callee_ctx(fn)
        for c in own_calls(r):
            args = call_args(c)
            if not args or callee_name(ctx.p, c) in ("FreeTensor", "EnQue"):
                continue
            nm = base_name(ctx.p, args[0])
            if nm and not is_scalar(c2, nm, c.start_byte):
                out.add(nm)
    return out


def dead_after(p: Parsed, stmt: Node, name: str) -> bool:
    """``name`` is not used after ``stmt`` in its function except to be released (``FreeTensor``),
    and, when ``stmt`` is inside a loop, ``name`` is declared inside that loop (a fresh tensor each
    iteration)."""
    fn = function_of(stmt)
    if fn is None:
        return False
    loop = enclosing(stmt, LOOPS)
    if loop is not None and function_of(loop) == fn:
        declared_inside = any(n.type == "declaration" and name in _declarator_names(p, n)
                              for n in walk(loop) if n.start_byte < stmt.start_byte)
        if not declared_inside:
            return False
    for n in walk(fn):
        if n.start_byte < stmt.end_byte or n.type != "identifier" or p.text(n) != name:
            continue
        call = enclosing(n, "call_expression")
        if call is not None and callee_name(p, call) == "FreeTensor" and receiver(p, call) \
                and any(a.start_byte == n.start_byte for a in call_args(call)):
            continue
        return False
    return True


def _declarator_names(p: Parsed, decl: Node) -> set[str]:
    return {nm for d in decl.children_by_field_name("declarator") if (nm := declarator_name(p, d))}
