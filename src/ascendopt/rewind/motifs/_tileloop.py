"""Shared structure analysis for the tile-loop motifs (pipe_barrier, serialize_copy_compute,
reread_gm, invariant_into_loop, split_copy).

Everything here reads the tree-sitter syntax tree; nothing looks at operator-specific names.
A *context* is one function together with the class it belongs to (its fields and its
methods), so calls to methods of the same class can be followed and identifiers resolved to
their declared types (locals, parameters, class fields).

A *tile loop* is a ``for`` loop whose body, directly or through methods of the same class it
calls, issues queue operations (``AllocTensor``/``EnQue``/``DeQue``) or a DMA between global
memory and a local buffer (``DataCopy``/``DataCopyPad`` with a ``GlobalTensor`` operand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.rewind.motifs.base import call_args, callee_name, function_name, receiver
from ascendopt.tiling.cparse import Parsed, declarator_name, walk

QUEUE_OPS = frozenset({"AllocTensor", "EnQue", "DeQue"})
COPY_OPS = frozenset({"DataCopy", "DataCopyPad"})
# AscendC vector-unit instructions (element-wise, reductions, conversions, fills).
VECTOR_OPS = frozenset({
    "Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "Adds", "Muls", "Maxs", "Mins", "Duplicate",
    "Exp", "Ln", "Log", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "LeakyRelu", "Not", "Cast", "Axpy",
    "Compare", "CompareScalar", "Select", "Brcb", "ShiftLeft", "ShiftRight", "Tanh", "Sigmoid", "Sin",
    "Cos", "Power", "Floor", "Ceil", "Round", "Trunc", "Sign", "ArithProgression", "CreateVecIndex",
    "WholeReduceSum", "WholeReduceMax", "WholeReduceMin", "BlockReduceSum", "BlockReduceMax",
    "BlockReduceMin", "ReduceSum", "ReduceMax", "ReduceMin", "PairReduceSum", "FusedMulAdd", "MulAddDst",
    "AddRelu", "SubRelu", "Gather", "Erf", "Exp2", "Softmax", "Transpose",
})


@dataclass
class Ctx:
    """One function of a parsed file, with its class's fields and methods."""

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


# ----------------------------------------------------------------------------- functions, classes
def _class_named(p: Parsed, name: str) -> Node | None:
    for n in walk(p.tree.root_node):
        if n.type in ("class_specifier", "struct_specifier"):
            nm = n.child_by_field_name("name")
            if nm is not None and p.text(nm) == name and n.child_by_field_name("body") is not None:
                return n
    return None


def _qualified_scope(p: Parsed, fn: Node) -> str:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    name = None if decl is None else decl.child_by_field_name("declarator")
    if name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        if scope is not None:
            return p.text(scope).split("<")[0]
    return ""


def class_of(p: Parsed, fn: Node) -> Node | None:
    """The class a method belongs to (defined inside it, or ``K::f`` defined outside)."""
    for a in _ancestors(fn):
        if a.type in ("class_specifier", "struct_specifier"):
            return a
    scope = _qualified_scope(p, fn)
    return _class_named(p, scope) if scope else None


def _ancestors(node: Node) -> Iterator[Node]:
    n = node.parent
    while n is not None:
        yield n
        n = n.parent


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
                    nm = decl_name(p, d)
                    if nm and t is not None:
                        fields.setdefault(nm, p.text(t) + ("*" if d.type == "pointer_declarator" else ""))
        if cname:  # out-of-class definitions K::f
            for n in walk(p.tree.root_node):
                if n.type == "function_definition" and _qualified_scope(p, n) == cname:
                    methods.setdefault(function_name(p, n), n)
    return Ctx(p, fn, cls, methods, fields)


def function_defs(p: Parsed) -> Iterator[Node]:
    for n in walk(p.tree.root_node):
        if n.type == "function_definition" and n.child_by_field_name("body") is not None:
            yield n


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


# ----------------------------------------------------------------------------- types of identifiers
def decl_name(p: Parsed, node: Node | None) -> str | None:
    """Like :func:`declarator_name`, also through reference declarators (``T& x``), whose
    identifier is an unnamed child."""
    while node is not None and node.type == "reference_declarator":
        node = next((c for c in node.named_children if c.type != "comment"), None)
    return declarator_name(p, node)


def _decl_type(p: Parsed, decl: Node, name: str) -> str | None:
    t = decl.child_by_field_name("type")
    if t is None:
        return None
    for d in decl.children_by_field_name("declarator"):
        inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        if decl_name(p, inner) == name:
            return p.text(t) + ("*" if inner is not None and inner.type == "pointer_declarator" else "")
    return None


def type_of(ctx: Ctx, name: str, before: int | None = None) -> str | None:
    """Declared type text of ``name`` at byte ``before`` of ``ctx.fn`` (local declared before it,
    else parameter, else class field)."""
    p, fn = ctx.p, ctx.fn
    best = None
    body = fn.child_by_field_name("body")
    for n in own_nodes(body):
        if n.type in ("declaration", "condition_clause") and (before is None or n.start_byte < before):
            if n.type == "declaration":
                t = _decl_type(p, n, name)
                if t is not None:
                    best = t
    if best is not None:
        return best
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    params = None if decl is None else decl.child_by_field_name("parameters")
    if params is not None:
        for prm in params.named_children:
            if prm.type in ("parameter_declaration", "optional_parameter_declaration"):
                d = prm.child_by_field_name("declarator")
                if decl_name(p, d) == name:
                    t = prm.child_by_field_name("type")
                    return None if t is None else p.text(t)
    return ctx.fields.get(name)


def base_name(p: Parsed, expr: Node) -> str | None:
    """Variable an lvalue-ish expression designates (``x``, ``x[i]``, ``this->x``, ``(x)``)."""
    while True:
        if expr.type == "identifier":
            return p.text(expr)
        if expr.type == "subscript_expression":
            expr = expr.child_by_field_name("argument")
        elif expr.type == "parenthesized_expression":
            inner = [c for c in expr.named_children if c.type != "comment"]
            if len(inner) != 1:
                return None
            expr = inner[0]
        elif expr.type == "field_expression":
            arg = expr.child_by_field_name("argument")
            f = expr.child_by_field_name("field")
            if arg is not None and arg.type == "this" and f is not None:
                return p.text(f)
            return None
        else:
            return None
        if expr is None:
            return None


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
        name = callee_name(ctx.p, c)
        m = ctx.methods.get(name)
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


def is_queue_op(ctx: Ctx, call: Node) -> bool:
    return callee_name(ctx.p, call) in QUEUE_OPS and bool(receiver(ctx.p, call))


def is_gm_copy(ctx: Ctx, call: Node) -> bool:
    if callee_name(ctx.p, call) not in COPY_OPS:
        return False
    args = call_args(call)
    return len(args) >= 3 and "global" in (tensor_kind(ctx, args[0]), tensor_kind(ctx, args[1]))


def is_gm_load(ctx: Ctx, call: Node) -> bool:
    """GM -> local DMA (``DataCopy(local, global, ...)``, ``DataCopyPad(local, global, ...)``)."""
    if callee_name(ctx.p, call) not in COPY_OPS:
        return False
    args = call_args(call)
    return len(args) >= 3 and tensor_kind(ctx, args[0]) == "local" and tensor_kind(ctx, args[1]) == "global"


def is_vector_op(ctx: Ctx, call: Node) -> bool:
    fn = call.child_by_field_name("function")
    return (callee_name(ctx.p, call) in VECTOR_OPS and fn is not None and fn.type != "field_expression")


def is_tile_work(ctx: Ctx, call: Node) -> bool:
    return is_queue_op(ctx, call) or is_gm_copy(ctx, call)


# ----------------------------------------------------------------------------- tile loops
@dataclass(frozen=True)
class TileLoop:
    ctx: Ctx
    loop: Node

    @property
    def body(self) -> Node:
        return self.loop.child_by_field_name("body")

    def label(self) -> str:
        p = self.ctx.p
        cond = self.loop.child_by_field_name("condition")
        c = "" if cond is None else " ".join(p.text(cond).split())
        return f"{self.ctx.name}:{p.line(self.loop.start_byte)} for ({c})"


def tile_loops(p: Parsed) -> list[TileLoop]:
    """Every ``for`` loop with a braced body that issues queue operations or GM DMAs (directly or
    through methods of the same class), in source order."""
    out = []
    for fn in function_defs(p):
        ctx = None
        for n in own_nodes(fn.child_by_field_name("body")):
            if n.type != "for_statement":
                continue
            body = n.child_by_field_name("body")
            if body is None or body.type != "compound_statement":
                continue
            ctx = ctx or make_ctx(p, fn)
            if reaches(ctx, body, is_tile_work):
                out.append(TileLoop(ctx, n))
    return sorted(out, key=lambda t: t.loop.start_byte)


def statements_before(loop: Node, fn: Node) -> list[Node]:
    """Statements in scope at ``loop`` that run before it: the earlier siblings of ``loop`` and of
    each enclosing block statement, up to the function body, in source order."""
    out: list[Node] = []
    child = loop
    body = fn.child_by_field_name("body")
    for a in _ancestors(loop):
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


def written_names(p: Parsed, root: Node) -> set[str]:
    """Variables assigned (``x = ``, ``x += ``, ``++x``, ``x[i] = ``) under ``root``."""
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


def identifiers(p: Parsed, root: Node) -> set[str]:
    """Names of the identifiers (and ``this->`` fields) used under ``root``."""
    out = set()
    for n in own_nodes(root):
        if n.type == "identifier":
            out.add(p.text(n))
        elif n.type == "field_expression":
            arg = n.child_by_field_name("argument")
            f = n.child_by_field_name("field")
            if arg is not None and arg.type == "this" and f is not None:
                out.add(p.text(f))
    return out


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


def pipe_prefix(ctx: Ctx, before: int) -> str:
    """Expression prefix to call a TPipe method: a class field or a local/parameter of type
    ``TPipe`` (``pipe.``) or ``TPipe*`` (``pipe->``), else ``AscendC::GetTPipePtr()->``."""
    p, fn = ctx.p, ctx.fn

    def is_pipe(t: str | None) -> str | None:
        if t is None:
            return None
        base = t.replace("const", "").replace("&", "").strip()
        ptr = base.endswith("*")
        base = base.rstrip("*").strip().split("::")[-1]
        if base != "TPipe":
            return None
        return "->" if ptr else "."

    for name, t in ctx.fields.items():
        s = is_pipe(t)
        if s:
            return name + s
    for n in own_nodes(fn.child_by_field_name("body")):
        if n.type == "declaration" and n.start_byte < before:
            for d in n.children_by_field_name("declarator"):
                inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                nm = decl_name(p, inner)
                s = is_pipe(_decl_type(p, n, nm) if nm else None)
                if s:
                    return nm + s
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    params = None if decl is None else decl.child_by_field_name("parameters")
    for prm in ([] if params is None else params.named_children):
        if prm.type == "parameter_declaration":
            t = prm.child_by_field_name("type")
            d = prm.child_by_field_name("declarator")
            nm = decl_name(p, d)
            s = is_pipe(None if t is None else p.text(t) + ("*" if d is not None and d.type == "pointer_declarator" else ""))
            if s and nm:
                return nm + s
    return "AscendC::GetTPipePtr()->"


def event_sync(ctx: Ctx, before: int, event: str, var: str) -> list[str]:
    """Lines of a SetFlag/WaitFlag pair on ``HardEvent::<event>`` with an id fetched from the pipe,
    wrapped in a block so the id variable does not leak."""
    pre = pipe_prefix(ctx, before)
    e = f"AscendC::HardEvent::{event}"
    return [f"{{ AscendC::TEventID {var} = {pre}FetchEventID({e});",
            f"  AscendC::SetFlag<{e}>({var});",
            f"  AscendC::WaitFlag<{e}>({var}); }}"]


SCALAR_TYPES = frozenset({"float", "double", "half", "bool", "bfloat16_t", "char"})


def is_scalar(ctx: Ctx, name: str, at: int | None = None) -> bool:
    """``name`` is declared with an arithmetic scalar type (not a tensor or object)."""
    t = type_of(ctx, name, at)
    if t is None:
        return False
    base = t.replace("const", "").replace("&", "").replace("volatile", "").strip()
    if base.endswith("*"):
        return False
    base = base.split("::")[-1].strip()
    from ascendopt.tiling.cparse import INT_TYPES
    return base in INT_TYPES or base in SCALAR_TYPES or base.startswith("unsigned ") or base.startswith("long ")


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
