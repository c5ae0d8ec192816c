"""Node queries over a parsed file: calls and their parts, enclosing constructs, functions,
names an expression designates, the identifiers a subtree uses.

Every function reads the tree of :mod:`ascendopt.cxx.parse`; none knows an operator's names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, of_type, unparen, walk

LOOPS = ("for_statement", "while_statement", "do_statement", "for_range_loop")


# ----------------------------------------------------------------------------- calls
def callee_name(p: Parsed, call: Node) -> str:
    """Last identifier of a call's function (``AscendC::DataCopy<T>`` -> ``DataCopy``,
    ``inQueueX.EnQue`` -> ``EnQue``, ``ctx->SetBlockDim`` -> ``SetBlockDim``,
    ``q.template DeQue<T>`` -> ``DeQue``)."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    while fn.type in ("template_function", "qualified_identifier", "field_expression", "template_method",
                      "dependent_name"):
        nxt = (fn.child_by_field_name("name") or fn.child_by_field_name("field")
               or (fn.named_children[0] if fn.type == "dependent_name" and fn.named_children else None))
        if nxt is None:
            break
        fn = nxt
    return p.text(fn).split("::")[-1].split("<")[0].strip()


def receiver(p: Parsed, call: Node) -> str:
    """Object a method is called on (``inQueueX.EnQue(x)`` -> ``inQueueX``), else ''."""
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "field_expression":
        arg = fn.child_by_field_name("argument")
        return p.text(arg) if arg is not None else ""
    return ""


def is_method_call(call: Node) -> bool:
    fn = call.child_by_field_name("function")
    return fn is not None and fn.type == "field_expression"


def method_receiver(call: Node) -> Node | None:
    """The receiver expression node of ``obj.f(...)`` / ``obj->f(...)``, else None."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None
    return fn.child_by_field_name("argument")


def call_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [] if args is None else [a for a in args.named_children if a.type != "comment"]


def template_args(p: Parsed, node: Node) -> list[str]:
    """Texts of the first template argument list under ``node`` (``DeQue<half>`` -> ``["half"]``)."""
    for n in walk(node):
        if n.type == "template_argument_list":
            return [p.text(c) for c in n.named_children if c.type != "comment"]
    return []


def calls(p: Parsed, names: Iterable[str] | None = None, root: Node | None = None) -> Iterator[Node]:
    """Call expressions under ``root`` (default: the file) whose callee name is in ``names``."""
    wanted = None if names is None else set(names)
    for n in (walk(root) if root is not None else of_type(p, "call_expression")):
        if n.type == "call_expression" and (wanted is None or callee_name(p, n) in wanted):
            yield n


# ----------------------------------------------------------------------------- structure
def ancestors(node: Node) -> Iterator[Node]:
    n = node.parent
    while n is not None:
        yield n
        n = n.parent


def enclosing(node: Node, types: str | tuple[str, ...]) -> Node | None:
    """Nearest ancestor of one of ``types``."""
    types = (types,) if isinstance(types, str) else types
    return next((a for a in ancestors(node) if a.type in types), None)


def own_nodes(root: Node) -> Iterator[Node]:
    """Pre-order nodes under ``root``, not descending into nested function bodies or lambdas."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if n != root and n.type in ("function_definition", "lambda_expression"):
            continue
        stack.extend(reversed(n.children))


def own_calls(root: Node) -> Iterator[Node]:
    return (n for n in own_nodes(root) if n.type == "call_expression")


def statement_of(node: Node) -> Node | None:
    """The statement a call sits in when the call is the whole statement (``f(x);``)."""
    parent = node.parent
    if parent is not None and parent.type == "expression_statement":
        return parent
    return None


def statement_call(stmt: Node | None) -> Node | None:
    """The call of an expression statement ``f(...);``, else None."""
    if stmt is None or stmt.type != "expression_statement":
        return None
    inner = [c for c in stmt.named_children if c.type != "comment"]
    if len(inner) == 1 and inner[0].type == "call_expression":
        return inner[0]
    return None


def single_statement(loop: Node) -> Node | None:
    """The one statement of a loop body (``{ s; }`` or a bare ``s;``), else None."""
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    if body.type == "compound_statement":
        stmts = [c for c in body.named_children if c.type != "comment"]
        return stmts[0] if len(stmts) == 1 else None
    return body


# ----------------------------------------------------------------------------- functions
def function_of(node: Node) -> Node | None:
    return enclosing(node, "function_definition")


def function_declarator(fn: Node) -> Node | None:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def function_name(p: Parsed, fn: Node) -> str:
    decl = function_declarator(fn)
    if decl is None:
        return ""
    name = decl.child_by_field_name("declarator")
    return "" if name is None else p.text(name).split("::")[-1]


def functions(p: Parsed) -> dict[str, Node]:
    """Function (and method) definitions of a file by name (first definition wins); computed
    once per file content (a copy is returned)."""
    got = p.facts.get("functions")
    if got is None:
        got = {}
        for n in of_type(p, "function_definition"):
            got.setdefault(function_name(p, n), n)
        p.facts["functions"] = got
    return dict(got)


def function_defs(p: Parsed) -> Iterator[Node]:
    """Function definitions with a body, in source order."""
    for n in of_type(p, "function_definition"):
        if n.child_by_field_name("body") is not None:
            yield n


# ----------------------------------------------------------------------------- names
def base_name(p: Parsed, expr: Node | None) -> str | None:
    """The variable a tensor or element expression names: ``x`` for ``x``, ``x[i]``, ``(x)``,
    ``this->x``; None for anything else (``a.b``, ``*x``, calls)."""
    while expr is not None:
        if expr.type == "identifier":
            return p.text(expr)
        if expr.type == "subscript_expression":
            expr = expr.child_by_field_name("argument")
        elif expr.type == "parenthesized_expression":
            inner = [c for c in expr.named_children if c.type != "comment"]
            expr = inner[0] if len(inner) == 1 else None
        elif expr.type == "field_expression":
            arg, f = expr.child_by_field_name("argument"), expr.child_by_field_name("field")
            return p.text(f) if arg is not None and arg.type == "this" and f is not None else None
        else:
            return None
    return None


def root_name(p: Parsed, node: Node | None) -> str | None:
    """The variable a write through an lvalue lands in: :func:`base_name`, and also ``x`` for
    ``x.y`` and ``*x`` (a member or the pointee of ``x`` changes ``x``'s value as a whole)."""
    while node is not None:
        node = unparen(node)
        t = node.type
        if t in ("identifier", "field_identifier"):
            return p.text(node)
        if t == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif t == "field_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None and arg.type == "this":
                node = node.child_by_field_name("field")
            else:
                node = arg
        elif t == "pointer_expression":
            node = node.child_by_field_name("argument")
        else:
            return None
    return None


def identifiers(p: Parsed, node: Node | None, *, this_fields: bool = True, nested: bool = True) -> set[str]:
    """Variable names used under ``node``: identifiers and (``this_fields``) ``this->`` fields;
    not types, namespaces or method names. ``nested=False`` skips nested function bodies and
    lambdas."""
    if node is None:
        return set()
    out = set()
    for n in (walk(node) if nested else own_nodes(node)):
        if n.type == "identifier":
            out.add(p.text(n))
        elif this_fields and n.type == "field_identifier" and n.parent is not None \
                and n.parent.type == "field_expression":
            arg = n.parent.child_by_field_name("argument")
            if arg is not None and arg.type == "this":
                out.add(p.text(n))
    return out


def references(p: Parsed, node: Node, name: str) -> list[Node]:
    """The identifier nodes named ``name`` under ``node``."""
    return [n for n in walk(node) if n.type == "identifier" and p.text(n) == name]


def is_zero(p: Parsed, node: Node) -> bool:
    return p.text(unparen(node)).strip().rstrip("uUlL") in ("0", "0x0")


def find_node(p: Parsed, start: int, end: int, type_: str | None = None) -> Node | None:
    """The node spanning exactly ``[start, end)`` (of ``type_`` when given), else None."""
    node = p.tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and not (node.start_byte == start and node.end_byte == end
                                    and (type_ is None or node.type == type_)):
        if node.start_byte < start or node.end_byte > end:
            return None
        node = node.parent
    return node
