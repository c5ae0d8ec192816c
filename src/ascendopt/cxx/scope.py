"""Method following and declared types: a function seen with its class.

A *context* (:class:`Ctx`) is one function together with the class it belongs to (its fields
and its methods, those defined inside the class and ``K::f`` definitions outside it), so calls
to methods of the same class can be followed (``Process`` -> ``CopyIn``/``Compute``/``CopyOut``
and their helpers) and identifiers resolved to their declarations: a local declared before the
use, else a parameter, else a field of the class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.parse import INT_TYPES, Parsed, declarator_name, walk
from ascendopt.cxx.syntax import (ancestors, base_name, callee_name, function_declarator, function_name,
                                  function_of, own_calls, own_nodes)

#: Element types a tensor declaration may name, canonical float name for the floating ones.
FLOAT_NAMES = {"float": "float", "float32_t": "float", "half": "half", "float16_t": "half",
               "bfloat16_t": "bfloat16_t", "bfloat16": "bfloat16_t"}
#: Element types that are not a template parameter (the dtype is known from the declaration).
CONCRETE_TYPES = frozenset({"half", "float", "float16_t", "float32_t", "bfloat16_t", "int8_t", "uint8_t", "int16_t",
                            "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "double", "bool", "int"})
#: Scalar types besides the integer ones.
SCALAR_TYPES = frozenset({"float", "double", "half", "bool", "bfloat16_t", "char"})
#: Methods that hand out a local tensor whose element type is their template argument.
TENSOR_FACTORIES = frozenset({"Get", "DeQue", "AllocTensor", "ReinterpretCast", "GetWithOffset"})


@dataclass
class Ctx:
    """One function of a parsed file, with its class's fields (name -> type text, ``*`` appended
    for pointer declarators) and methods (name -> definition)."""

    p: Parsed
    fn: Node
    cls: Node | None = None
    methods: dict[str, Node] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return function_name(self.p, self.fn)

    def callee_ctx(self, fn: Node) -> Ctx:
        return Ctx(self.p, fn, self.cls, self.methods, self.fields)


# ----------------------------------------------------------------------------- classes
def _class_named(p: Parsed, name: str) -> Node | None:
    for n in walk(p.tree.root_node):
        if n.type in ("class_specifier", "struct_specifier"):
            nm = n.child_by_field_name("name")
            if nm is not None and p.text(nm) == name and n.child_by_field_name("body") is not None:
                return n
    return None


def qualified_scope(p: Parsed, fn: Node) -> str:
    """``K`` for a definition ``... K::f(...) {...}`` (template arguments dropped), else ''."""
    decl = function_declarator(fn)
    name = None if decl is None else decl.child_by_field_name("declarator")
    if name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        if scope is not None:
            return p.text(scope).split("<")[0]
    return ""


def class_of(p: Parsed, fn: Node) -> Node | None:
    """The class a method belongs to (defined inside it, or ``K::f`` defined outside)."""
    for a in ancestors(fn):
        if a.type in ("class_specifier", "struct_specifier"):
            return a
    scope = qualified_scope(p, fn)
    return _class_named(p, scope) if scope else None


def make_ctx(p: Parsed, fn: Node) -> Ctx:
    cls = class_of(p, fn)
    methods: dict[str, Node] = {}
    fields: dict[str, str] = {}
    if cls is not None:
        body = cls.child_by_field_name("body")
        cname = p.text(cls.child_by_field_name("name")) if cls.child_by_field_name("name") else ""
        for n in walk(body):
            if n.type == "function_definition":
                methods.setdefault(function_name(p, n), n)
            elif n.type == "field_declaration" and n.parent == body:
                t = n.child_by_field_name("type")
                for d in n.children_by_field_name("declarator"):
                    nm = declarator_name(p, d)
                    if nm and t is not None:
                        fields.setdefault(nm, p.text(t) + ("*" if d.type == "pointer_declarator" else ""))
        if cname:  # out-of-class definitions K::f
            for n in walk(p.tree.root_node):
                if n.type == "function_definition" and qualified_scope(p, n) == cname:
                    methods.setdefault(function_name(p, n), n)
    return Ctx(p, fn, cls, methods, fields)


def ctx_at(p: Parsed, node: Node) -> Ctx | None:
    """The context of the function enclosing ``node``, or None at file scope."""
    fn = function_of(node)
    return None if fn is None else make_ctx(p, fn)


# ----------------------------------------------------------------------------- declarations
def declared_type(p: Parsed, decl: Node, name: str) -> str | None:
    """Type text of ``name`` if declaration ``decl`` declares it (``*`` appended for a pointer)."""
    t = decl.child_by_field_name("type")
    if t is None:
        return None
    for d in decl.children_by_field_name("declarator"):
        inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        if declarator_name(p, inner) == name:
            return p.text(t) + ("*" if inner is not None and inner.type == "pointer_declarator" else "")
    return None


def parameters(fn: Node) -> list[Node]:
    """Parameter declaration nodes of a function definition."""
    decl = function_declarator(fn)
    params = None if decl is None else decl.child_by_field_name("parameters")
    return [] if params is None else [c for c in params.named_children
                                      if c.type in ("parameter_declaration", "optional_parameter_declaration")]


def type_of(ctx: Ctx, name: str, before: int | None = None) -> str | None:
    """Declared type text of ``name`` at byte ``before`` of ``ctx.fn`` (local declared before it,
    else parameter, else class field)."""
    p, fn = ctx.p, ctx.fn
    best = None
    for n in own_nodes(fn.child_by_field_name("body")):
        if n.type == "declaration" and (before is None or n.start_byte < before):
            t = declared_type(p, n, name)
            if t is not None:
                best = t
    if best is not None:
        return best
    for prm in parameters(fn):
        if declarator_name(p, prm.child_by_field_name("declarator")) == name:
            t = prm.child_by_field_name("type")
            return None if t is None else p.text(t)
    return ctx.fields.get(name)


def is_scalar(ctx: Ctx, name: str, at: int | None = None) -> bool:
    """``name`` is declared with an arithmetic scalar type (not a tensor or object)."""
    t = type_of(ctx, name, at)
    if t is None:
        return False
    base = t.replace("const", "").replace("&", "").replace("volatile", "").strip()
    if base.endswith("*"):
        return False
    base = base.split("::")[-1].strip()
    return base in INT_TYPES or base in SCALAR_TYPES or base.startswith("unsigned ") or base.startswith("long ")


def tensor_kind(ctx: Ctx, expr: Node) -> str | None:
    """``global`` / ``local`` for an expression naming a GlobalTensor / LocalTensor (or an element
    offset of one), else None."""
    name = base_name(ctx.p, expr)
    if name is None:
        return None
    t = type_of(ctx, name, expr.start_byte)
    if t is None:
        return None
    if "GlobalTensor" in t:
        return "global"
    if "LocalTensor" in t:
        return "local"
    return None


# ----------------------------------------------------------------------------- tensor element types
@dataclass(frozen=True)
class TensorType:
    kind: str          # "LocalTensor", "GlobalTensor" or "" (not a tensor / unknown)
    elem: str | None   # element type text (``float``, ``T``), None when unknown

    @property
    def concrete(self) -> str | None:
        """Canonical name of a floating element type (float, half, bfloat16_t), else None."""
        return FLOAT_NAMES.get(self.base)

    @property
    def base(self) -> str:
        return (self.elem or "").split("::")[-1].strip()

    @property
    def known(self) -> bool:
        """The element type is a named arithmetic type (not a template parameter)."""
        return self.base in FLOAT_NAMES or self.base in INT_TYPES or self.base in ("bool", "char")

    def pair(self) -> tuple[str, str] | None:
        """(kind, element type text) of a tensor whose element type is written, else None."""
        return (self.kind, self.elem) if self.kind and self.elem else None


UNKNOWN = TensorType("", None)


def _template_arg(p: Parsed, node: Node) -> str | None:
    for n in walk(node):
        if n.type == "template_argument_list":
            args = [c for c in n.named_children if c.type != "comment"]
            return p.text(args[0]) if args else None
    return None


def _type_from(p: Parsed, type_node: Node | None, value: Node | None) -> TensorType:
    if type_node is None:
        return UNKNOWN
    t = p.text(type_node)
    for kind in ("LocalTensor", "GlobalTensor"):
        if kind in t.split("<")[0]:
            return TensorType(kind, _template_arg(p, type_node))
    if t.strip() == "auto" and value is not None and value.type == "call_expression" \
            and callee_name(p, value) in TENSOR_FACTORIES:
        fn = value.child_by_field_name("function")
        return TensorType("LocalTensor", _template_arg(p, fn) if fn is not None else None)
    return UNKNOWN


def _declared(p: Parsed, decl: Node, name: str) -> TensorType | None:
    for d in decl.children_by_field_name("declarator"):
        if declarator_name(p, d) == name:
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            return _type_from(p, decl.child_by_field_name("type"), value)
    return None


def tensor_type(p: Parsed, at: Node, expr: Node | str) -> TensorType:
    """Declared type of the tensor ``expr`` (an expression, or a variable name) used at node
    ``at``: the nearest local declaration before ``at`` in the enclosing function, else a
    parameter, else a field of the class of the function enclosing ``at`` (:func:`class_of`).
    :data:`UNKNOWN` when nothing declares it as a tensor."""
    name = expr if isinstance(expr, str) else base_name(p, expr)
    fn = function_of(at)
    if not name or fn is None:
        return UNKNOWN
    best = None
    for n in walk(fn):
        if n.type == "declaration" and n.start_byte < at.start_byte:
            t = _declared(p, n, name)
            if t is not None:
                best = t
        elif n.type in ("parameter_declaration", "optional_parameter_declaration"):
            if declarator_name(p, n.child_by_field_name("declarator")) == name and best is None:
                best = _type_from(p, n.child_by_field_name("type"), None)
    if best is not None:
        return best
    cls = class_of(p, fn)
    if cls is not None:
        for n in walk(cls):
            if n.type == "field_declaration":
                t = _declared(p, n, name)
                if t is not None:
                    return t
    return UNKNOWN


# ----------------------------------------------------------------------------- call graph
def method_callees(ctx: Ctx, root: Node) -> Iterator[tuple[Node, Node]]:
    """(call, method definition) for calls under ``root`` to methods of the same class."""
    for c in own_calls(root):
        fn = c.child_by_field_name("function")
        if fn is None:
            continue
        if fn.type == "field_expression":
            arg = fn.child_by_field_name("argument")
            if arg is None or arg.type != "this":
                continue
        elif fn.type not in ("identifier", "template_function"):
            continue
        m = ctx.methods.get(callee_name(ctx.p, c))
        if m is not None and m != ctx.fn:
            yield c, m


def reaches(ctx: Ctx, root: Node, pred: Callable[[Ctx, Node], bool], _seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``pred(ctx, call)`` holds for a call under ``root`` or, transitively, in the body of a
    method of the same class called there."""
    if any(pred(ctx, c) for c in own_calls(root)):
        return True
    for _, m in method_callees(ctx, root):
        if m.id in _seen:
            continue
        body = m.child_by_field_name("body")
        if body is not None and reaches(ctx.callee_ctx(m), body, pred, _seen | {m.id}):
            return True
    return False


def reached_methods(ctx: Ctx, root: Node) -> list[Node]:
    """Method definitions of the class reached from calls under ``root`` (transitively)."""
    seen: dict[int, Node] = {}
    todo = [root]
    while todo:
        r = todo.pop()
        for _, m in method_callees(ctx.callee_ctx(ctx.fn), r):
            if m.id not in seen:
                seen[m.id] = m
                b = m.child_by_field_name("body")
                if b is not None:
                    todo.append(b)
    return list(seen.values())


def statements_before(loop: Node, fn: Node) -> list[Node]:
    """Statements in scope at ``loop`` that run before it: the earlier siblings of ``loop`` and of
    each enclosing block statement, up to the function body, in source order."""
    out: list[Node] = []
    child = loop
    body = fn.child_by_field_name("body")
    for a in ancestors(loop):
        if a.type == "compound_statement":
            for s in a.named_children:
                if s.start_byte >= child.start_byte:
                    break
                if s.type != "comment":
                    out.append(s)
        if a == body or a.type in ("function_definition", "lambda_expression"):
            break
        child = a
    return sorted(out, key=lambda s: s.start_byte)
