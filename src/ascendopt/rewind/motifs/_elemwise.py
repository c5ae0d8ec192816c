"""Shared helpers for the element-level motifs (scalar_loop, unfuse, extra_cast, tail_per_element).

Everything reads the tree-sitter syntax tree; nothing looks at operator-specific names:
- :func:`tensor_type`: what a tensor argument is (``LocalTensor``/``GlobalTensor`` and its element
  type text, when the declaration says so) by resolving its base identifier to a local
  declaration before the call, a parameter of the enclosing function, or a field of its class;
- :func:`flag_pair`: a ``SetFlag``/``WaitFlag`` pair between two pipes (event id fetched from the
  pipe, the idiom of AscendC kernels);
- :func:`replace_statement`: an edit replacing one statement by a braced block of lines;
- :func:`dead_after`: whether a variable is not read after a statement (only released).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.rewind.motifs.base import (
    Edit, LOOPS, call_args, callee_name, enclosing, function_of, line_indent, receiver,
)
from ascendopt.tiling.cparse import INT_TYPES, Parsed, declarator_name, walk

FLOAT_NAMES = {"float": "float", "float32_t": "float", "half": "half", "float16_t": "half",
               "bfloat16_t": "bfloat16_t", "bfloat16": "bfloat16_t"}
# Methods that hand out a tensor whose element type is their template argument.
_TENSOR_FACTORIES = {"Get", "DeQue", "AllocTensor", "ReinterpretCast", "GetWithOffset"}


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


def base_name(p: Parsed, expr: Node) -> str | None:
    """Variable an argument designates (``x``, ``x[i]``, ``(x)``, ``this->x``)."""
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


def _decl_name(p: Parsed, d: Node | None) -> str | None:
    """Name a (pointer/reference/init) declarator declares."""
    while d is not None and d.type in ("reference_declarator", "pointer_declarator", "init_declarator"):
        inner = d.child_by_field_name("declarator")
        if inner is None:
            named = [c for c in d.named_children if c.type != "comment"]
            inner = named[-1] if named else None
        d = inner
    return declarator_name(p, d)


def _template_arg(p: Parsed, type_text_node: Node) -> str | None:
    for n in walk(type_text_node):
        if n.type == "template_argument_list":
            args = [c for c in n.named_children if c.type != "comment"]
            return p.text(args[0]) if args else None
    return None


def _type_from(p: Parsed, type_node: Node | None, value: Node | None) -> TensorType | None:
    if type_node is None:
        return None
    t = p.text(type_node)
    for kind in ("LocalTensor", "GlobalTensor"):
        if kind in t.split("<")[0]:
            return TensorType(kind, _template_arg(p, type_node))
    if t.strip() == "auto" and value is not None and value.type == "call_expression" \
            and callee_name(p, value) in _TENSOR_FACTORIES:
        fn = value.child_by_field_name("function")
        return TensorType("LocalTensor", _template_arg(p, fn) if fn is not None else None)
    return TensorType("", None)


def _declared(p: Parsed, decl: Node, name: str) -> TensorType | None:
    for d in decl.children_by_field_name("declarator"):
        if _decl_name(p, d) == name:
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            return _type_from(p, decl.child_by_field_name("type"), value)
    return None


def _class_of(node: Node) -> Node | None:
    return enclosing(node, ("class_specifier", "struct_specifier"))


def tensor_type(p: Parsed, at: Node, expr: Node) -> TensorType:
    """Declared type of the tensor ``expr`` used at node ``at``: the nearest local declaration
    before ``at`` in the enclosing function, else a parameter, else a field of the class."""
    name = base_name(p, expr)
    fn = function_of(at)
    if name is None or fn is None:
        return TensorType("", None)
    best = None
    for n in walk(fn):
        if n.type == "declaration" and n.start_byte < at.start_byte:
            t = _declared(p, n, name)
            if t is not None:
                best = t
        elif n.type in ("parameter_declaration", "optional_parameter_declaration"):
            if _decl_name(p, n.child_by_field_name("declarator")) == name and best is None:
                best = _type_from(p, n.child_by_field_name("type"), None)
    if best is not None:
        return best
    cls = _class_of(fn)
    if cls is not None:
        for n in walk(cls):
            if n.type == "field_declaration":
                t = _declared(p, n, name)
                if t is not None:
                    return t
    return TensorType("", None)


def flag_pair(src: str, dst: str, var: str = "aoEvt") -> list[str]:
    """``src`` pipe -> ``dst`` pipe ordering: set and wait one hardware event (``V``, ``S``, ``MTE2``...)."""
    ev = f"AscendC::HardEvent::{src}_{dst}"
    return [f"{var} = static_cast<int32_t>(AscendC::GetTPipePtr()->FetchEventID({ev}));",
            f"AscendC::SetFlag<{ev}>({var});",
            f"AscendC::WaitFlag<{ev}>({var});"]


def replace_statement(p: Parsed, stmt: Node, lines: list[str], comment: str = "") -> Edit:
    """Replace ``stmt`` by ``{ lines }`` at its indentation (a comment on the opening brace)."""
    ind = line_indent(p, stmt.start_byte)
    head = "{" + (f"  // {comment}" if comment else "")
    body = "".join(f"{ind}    {ln}\n" for ln in lines)
    return Edit(p.file, stmt.start_byte, stmt.end_byte, f"{head}\n{body}{ind}}}")


def dead_after(p: Parsed, stmt: Node, name: str) -> bool:
    """``name`` is not used after ``stmt`` in its function except to be released (``FreeTensor``),
    and, when ``stmt`` is inside a loop, ``name`` is declared inside that loop (a fresh tensor each
    iteration)."""
    fn = function_of(stmt)
    if fn is None:
        return False
    loop = enclosing(stmt, LOOPS)
    if loop is not None and function_of(loop) is fn:
        declared_inside = any(n.type == "declaration" and _declared(p, n, name) is not None
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


def arg_texts(p: Parsed, call: Node) -> list[str]:
    return [p.text(a) for a in call_args(call)]
