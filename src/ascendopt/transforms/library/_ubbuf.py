"""Scratch UB buffers for rewrites that stage data through the unified buffer (shared by
``stage_scalar_gm`` and the vector-expression rewrites).

A rewrite that needs UB space in a kernel method asks for it here: :func:`plan_buffers` decides,
from the class the method belongs to, where the buffers can be declared and initialised (or
None: no safe place), and :func:`buffer_edits` returns the edits that

* declare one ``AscendC::TBuf<AscendC::TPosition::VECCALC>`` member per buffer at the end of
  the class body (plus an ``AscendC::TPipe`` member when nothing in the kernel makes a pipe);
* initialise each with ``<pipe>InitBuffer(buf, bytes)`` where the class initialises its other
  buffers: after the top-level statement (of that method's body) holding the class's last
  ``InitBuffer``, through the same pipe expression (``pipe.``, ``pipe->``,
  ``GetTPipePtr()->``); when several methods call ``InitBuffer``, at the end of the class's
  init method (below). A class whose methods ``Reset``/``Destroy`` a pipe gets none (a later
  ``InitBuffer`` would hand out the same bytes again). A class that calls no ``InitBuffer`` gets them at the end of its
  *init method*: the first method the kernel calls on an object of the class (the kernel entry
  declares ``K<...> op;`` and calls ``op.Init(...)`` first), through its ``TPipe`` member or
  pointer, else the current pipe (``GetTPipePtr()``) when the kernel makes one elsewhere, else
  a ``TPipe`` member added for the purpose;
* and, with :func:`constant_edit`, a file-level ``constexpr`` tile length declared before the
  class, so Stage II sees it as a kernel knob (role ``tile``: it sizes an ``InitBuffer``).

Names are fresh (``ao`` prefix, numbered when taken) over every kernel file. Every place is
found from the syntax tree (declared types, calls, the class's methods), never from names.
Buffer sizes are the caller's: ``InitBuffer`` rounds each up to 32 bytes, so every buffer
starts 32-byte aligned, as ``DataCopy``/``DataCopyPad`` need on the UB side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, of_type
from ascendopt.cxx.scope import make_ctx
from ascendopt.cxx.syntax import ancestors, callee_name, calls, function_of, receiver
from ascendopt.transforms.base import Edit, insert_after_statement, line_indent, line_start

TBUF_TYPE = "AscendC::TBuf<AscendC::TPosition::VECCALC>"


@dataclass(frozen=True)
class UbBuffer:
    """One scratch buffer: member ``name`` of ``bytes`` (a C++ expression) bytes."""

    name: str
    bytes: str


@dataclass(frozen=True)
class BufferPlan:
    """Where a class's scratch buffers go.

    Attributes:
        p: The parsed file holding the class.
        cls: The class (or struct) specifier node.
        init_at: The statement after which the ``InitBuffer`` calls are inserted, or None to
            insert them at the end of ``init_fn``'s body.
        init_fn: The method receiving the calls.
        pipe: Prefix of the ``InitBuffer`` call (``pipe.``, ``pipe->``, ``AscendC::GetTPipePtr()->``).
        add_pipe: Name of a ``TPipe`` member to declare ('' when the kernel has a pipe).
    """

    p: Parsed
    cls: Node
    init_at: Node | None
    init_fn: Node
    pipe: str
    add_pipe: str = ""


def fresh_name(files: list[Parsed], base: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``base`` (or ``base2``, ``base3``...) not used as a word in any of ``files`` nor in ``taken``."""
    k = 1
    while True:
        name = base if k == 1 else f"{base}{k}"
        pat = re.compile(rb"\b" + name.encode() + rb"\b")
        if name not in taken and not any(pat.search(q.src) for q in files):
            return name
        k += 1


def _top_statement(stmt: Node, body: Node) -> Node | None:
    """The statement directly in ``body`` that holds ``stmt``."""
    n = stmt
    while n is not None and n.parent != body:
        n = n.parent
    return n


def _pipe_field(ctx_fields: dict[str, str]) -> str | None:
    """``name.`` / ``name->`` of a ``TPipe`` / ``TPipe*`` member."""
    for name, t in ctx_fields.items():
        base = t.replace("const", "").replace("&", "").strip()
        ptr = base.endswith("*")
        if base.rstrip("*").strip().split("::")[-1] == "TPipe":
            return name + ("->" if ptr else ".")
    return None


def _class_name(p: Parsed, cls: Node) -> str:
    nm = cls.child_by_field_name("name")
    return "" if nm is None else p.text(nm).split("<")[0]


def init_method(files: list[Parsed], p: Parsed, cls: Node, methods: dict[str, Node]) -> Node | None:
    """The first method called on an object of class ``cls`` by a function outside the class
    (``K<T> op; op.Init(...); op.Process();`` -> ``Init``), searched in every file."""
    cname = _class_name(p, cls)
    if not cname:
        return None
    for q in files:
        for decl in of_type(q, "declaration"):
            t = decl.child_by_field_name("type")
            fn = function_of(decl)
            if t is None or fn is None or q.text(t).split("<")[0].split("::")[-1].strip() != cname:
                continue
            if q is p and any(a == cls for a in ancestors(decl)):
                continue
            objs = {declarator_name(q, d) for d in decl.children_by_field_name("declarator")}
            for c in calls(q, None, fn):
                if c.start_byte > decl.end_byte and receiver(q, c) in objs:
                    m = methods.get(callee_name(q, c))
                    if m is not None:
                        return m
    return None


def plan_buffers(files: list[Parsed], p: Parsed, fn: Node) -> BufferPlan | None:
    """Where scratch buffers for method ``fn`` of file ``p`` go (None: ``fn`` is not a method,
    the class resets its pipe (a later ``InitBuffer`` could reuse the buffers' bytes), its
    ``InitBuffer`` calls go through different pipes, or no place is found)."""
    ctx = make_ctx(p, fn)
    if ctx.cls is None or ctx.cls.child_by_field_name("body") is None:
        return None
    inits: list[tuple[Node, Node]] = []  # (call, method)
    for m in {m.id: m for m in ctx.methods.values()}.values():
        body = m.child_by_field_name("body")
        if body is not None:
            if any(receiver(p, c) for c in calls(p, ("Reset", "Destroy"), body)):
                return None
            inits += [(c, m) for c in calls(p, ("InitBuffer",), body)]
    pipes = {_pipe_prefix(p, c) for c, _ in inits}
    if "" in pipes or len(pipes) > 1:
        return None
    if inits and len({m.id for _, m in inits}) == 1:
        call, m = max(inits, key=lambda cm: cm[0].start_byte)
        top = _top_statement(call, m.child_by_field_name("body"))
        return None if top is None else BufferPlan(p, ctx.cls, top, m, pipes.pop())
    m = init_method(files, p, ctx.cls, ctx.methods)
    if m is None or m == fn or m.child_by_field_name("body") is None:
        return None
    if inits:  # buffers initialised in several methods: after the init method's own work
        return BufferPlan(p, ctx.cls, None, m, pipes.pop())
    pipe = _pipe_field(ctx.fields)
    if pipe is not None:
        return BufferPlan(p, ctx.cls, None, m, pipe)
    if any(_declares_pipe(q) for q in files):
        return BufferPlan(p, ctx.cls, None, m, "AscendC::GetTPipePtr()->")
    name = fresh_name(files, "aoPipe")
    return BufferPlan(p, ctx.cls, None, m, name + ".", add_pipe=name)


def _pipe_prefix(p: Parsed, call: Node) -> str:
    """``pipe.`` / ``pipe->`` / ``GetTPipePtr()->`` of an ``InitBuffer`` call ('' for a plain call)."""
    f = call.child_by_field_name("function")
    return p.text(f)[: -len("InitBuffer")] if f is not None and f.type == "field_expression" else ""


def _declares_pipe(q: Parsed) -> bool:
    for n in of_type(q, "declaration", "field_declaration"):
        t = n.child_by_field_name("type")
        if t is not None and q.text(t).split("::")[-1].strip() == "TPipe":
            return True
    return False


def buffer_edits(plan: BufferPlan, bufs: list[UbBuffer]) -> list[Edit]:
    """Declare and initialise ``bufs`` as :func:`plan_buffers` planned."""
    p = plan.p
    members = ([f"AscendC::TPipe {plan.add_pipe};"] if plan.add_pipe else []) + \
              [f"{TBUF_TYPE} {b.name};" for b in bufs]
    inits = [f"{plan.pipe}InitBuffer({b.name}, {b.bytes});" for b in bufs]
    out = [_member_edit(p, plan.cls, members)]
    if plan.init_at is not None:
        out.append(insert_after_statement(p, plan.init_at, inits))
    else:
        body = plan.init_fn.child_by_field_name("body")
        close = body.end_byte - 1
        ind = line_indent(p, body.start_byte) + "    "
        at = line_start(p, close) if not p.src[line_start(p, close):close].strip() else close
        out.append(Edit(p.file, at, at, "".join(f"{ind}{c}\n" for c in inits)))
    return out


def _member_edit(p: Parsed, cls: Node, lines: list[str]) -> Edit:
    """Insert member declarations at the end of the class body (after its last member)."""
    body = cls.child_by_field_name("body")
    close = body.end_byte - 1
    fields = [c for c in body.named_children if c.type in ("field_declaration", "function_definition",
                                                             "declaration", "template_declaration")]
    ind = line_indent(p, fields[-1].start_byte) if fields else line_indent(p, body.start_byte) + "    "
    if not p.src[line_start(p, close):close].strip():
        at = line_start(p, close)
        return Edit(p.file, at, at, "".join(f"{ind}{c}\n" for c in lines))
    return Edit(p.file, close, close, " " + " ".join(lines) + " ")


def constant_edit(p: Parsed, cls: Node, name: str, value: int, ctype: str = "uint32_t") -> Edit:
    """A file-level ``constexpr <ctype> name = value;`` before the class (before its
    ``template <...>`` head), where the knob extractor finds kernel constants."""
    head = cls.parent if cls.parent is not None and cls.parent.type == "template_declaration" else cls
    at = line_start(p, head.start_byte)
    ind = line_indent(p, head.start_byte)
    return Edit(p.file, at, at, f"{ind}constexpr {ctype} {name} = {value};\n")

