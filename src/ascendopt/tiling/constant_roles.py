"""What a constant is for, read off its uses: alignment granules (and the constants they are
scaled from), ISA limits, and a kernel constant's role (queue depth, tile size, or an
instruction operand that is no knob). Used by the knob extractor (:mod:`ascendopt.tiling.knobs`).
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, const_int_value, declarator_name, unparen, walk
from ascendopt.cxx.syntax import ancestors, call_args, callee_name, references
from ascendopt.tiling.flow import TilingFlow


def _local_granules(p: Parsed, body: Node) -> set[str]:
    """Granule idioms inside one function body (no helper calls followed)."""
    return alignment_constants(p, body)


def alignment_constants(p: Parsed, root: Node, ceil_div: bool = True) -> set[str]:
    """Identifiers used as an alignment granule: ``x % N``, ``x / N * N``, ``(x + N - 1) / N``.
    Rounding to a granule is a hardware or layout fact, not a tuning choice. Without
    ``ceil_div`` a bare ceiling division (``(x + N - 1) / N``, which also counts pieces of a
    chosen size) does not count."""
    out: set[str] = set()

    def op(n: Node) -> str:
        o = n.child_by_field_name("operator")
        return p.text(o) if o is not None else ""

    def ident(n: Node | None) -> str | None:
        n = unparen(n) if n is not None else None
        return p.text(n) if n is not None and n.type in ("identifier", "qualified_identifier") else None

    # x / C ... * C across statements: a value counted in units of C is converted back
    divided_by: dict[str, set[str]] = {}
    for n in walk(root):
        if n.type in ("init_declarator", "assignment_expression"):
            tgt = (declarator_name(p, n.child_by_field_name("declarator")) if n.type == "init_declarator"
                   else p.text(n.child_by_field_name("left")) if n.child_by_field_name("left") is not None else None)
            v = n.child_by_field_name("value" if n.type == "init_declarator" else "right")
            if tgt and v is not None:
                for b in walk(v):
                    if b.type == "binary_expression" and op(b) == "/" and ident(b.child_by_field_name("right")):
                        divided_by.setdefault(tgt, set()).add(ident(b.child_by_field_name("right")))
    flow = TilingFlow.of(p, root) if divided_by else None
    # helpers of the operator's own that round to a granule (``RoundUp(x, g)`` whose body is
    # ``(x + g - 1) / g * g``): the argument in the granule's position is a granule
    rounding = rounding_helpers(p) if root == p.tree.root_node else {}
    for c in walk(root):
        if c.type == "call_expression" and callee_name(p, c) in rounding:
            args = call_args(c)
            for i in rounding[callee_name(p, c)]:
                if i < len(args) and ident(args[i]):
                    out.add(ident(args[i]))
    for n in walk(root):
        if n.type != "binary_expression":
            continue
        right = ident(n.child_by_field_name("right"))
        left = n.child_by_field_name("left")
        if right is None or left is None:
            continue
        left = unparen(left)
        if op(n) == "*" and flow is not None and any(
                right in divided_by.get(v, ()) for v in flow.closure({p.text(i) for i in walk(left)
                                                                      if i.type == "identifier"})):
            out.add(right)
        if op(n) == "%":
            out.add(right)
        elif op(n) == "*" and left.type == "binary_expression" and op(left) == "/" \
                and ident(left.child_by_field_name("right")) == right:
            out.add(right)
        elif ceil_div and op(n) == "/" and left.type == "binary_expression" and op(left) == "-" \
                and const_int_value(p, unparen(left.child_by_field_name("right"))) == 1 \
                and right in {p.text(i) for i in walk(left) if i.type == "identifier"}:
            out.add(right)
    return out


def rounding_helpers(p: Parsed) -> dict[str, list[int]]:
    """Functions of the file that round an argument to a granule (``AlignUp(x, g)`` whose body
    is ``(x + g - 1) / g * g``): name -> the indices of the granule parameters."""
    rounding: dict[str, list[int]] = {}
    for fn in walk(p.tree.root_node):
        if fn.type != "function_definition" or fn.child_by_field_name("body") is None:
            continue
        decl = fn.child_by_field_name("declarator")
        fdecl = next((d for d in walk(decl) if d.type == "function_declarator"), None) if decl else None
        params = fdecl.child_by_field_name("parameters") if fdecl is not None else None
        name = fdecl.child_by_field_name("declarator") if fdecl is not None else None
        if params is None or name is None:
            continue
        names = [declarator_name(p, q.child_by_field_name("declarator")) for q in params.named_children]
        inner = _local_granules(p, fn.child_by_field_name("body"))
        idx = [i for i, nm in enumerate(names) if nm and nm in inner]
        if idx:
            rounding[p.text(name).split("::")[-1]] = idx
    return rounding


def rounded_to(p: Parsed, body: Node, consts: dict[str, int]) -> dict[str, int]:
    """Identifiers the function rounds to a granule of known value: the value argument of a
    rounding helper (:func:`rounding_helpers`) or ``x / G * G`` / ``(x + G - 1) / G * G``
    with ``G`` a literal or a known constant -> ``G``. A knob's grid steps by its granule."""
    def val(n: Node | None) -> int | None:
        n = unparen(n) if n is not None else None
        if n is None:
            return None
        v = const_int_value(p, n)
        return v if v is not None else consts.get(p.text(n))

    def names(n: Node | None) -> set[str]:
        return {p.text(i) for i in walk(n) if i.type == "identifier"} if n is not None else set()

    helpers = rounding_helpers(p)
    out: dict[str, int] = {}
    for n in walk(body):
        if n.type == "call_expression" and callee_name(p, n) in helpers:
            args = call_args(n)
            idx = helpers[callee_name(p, n)]
            g = next((val(args[i]) for i in idx if i < len(args) and val(args[i])), None)
            if g:
                for i, a in enumerate(args):
                    if i not in idx:
                        out.update({x: g for x in names(a) if x not in out})
        elif n.type == "binary_expression" and p.text(n.child_by_field_name("operator")) == "*":
            left = unparen(n.child_by_field_name("left"))
            g = val(n.child_by_field_name("right"))
            if g and left.type == "binary_expression" and p.text(left.child_by_field_name("operator")) == "/" \
                    and val(left.child_by_field_name("right")) == g:
                out.update({x: g for x in names(left.child_by_field_name("left")) if x not in out})
    return out


def granule_sources(p: Parsed, granules: set[str]) -> set[str]:
    """``granules`` plus what they are scaled from: ``g = C`` or ``g = C / typeBytes`` makes
    ``C`` a granule too (bytes per block divided by a type size is elements per block)."""
    out = set(granules)
    todo = list(granules)
    while todo:
        g = todo.pop()
        for n in walk(p.tree.root_node):
            if n.type == "init_declarator":
                if declarator_name(p, n.child_by_field_name("declarator")) != g:
                    continue
                v = n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is None or p.text(left) != g:
                    continue
                v = n.child_by_field_name("right")
            else:
                continue
            v = unparen(v) if v is not None else None
            while v is not None and v.type == "binary_expression" and p.text(v.child_by_field_name("operator")) == "/":
                v = unparen(v.child_by_field_name("left"))
            if v is not None and v.type == "identifier" and p.text(v) not in out:
                out.add(p.text(v))
                todo.append(p.text(v))
    return out


#: ISA limits (Ascend C docs: a vector instruction repeats at most 255 times; a DataCopy moves
#: at most 4095 bursts; block strides are 16-bit): a constant holding one is a fact.
ISA_LIMITS = frozenset({255, 4095, 65535})


def kernel_role(p: Parsed, name: str) -> str | None:
    """A kernel constant's role from its uses in the kernel file: a queue depth (``TQue<pos,
    N>``, ``InitBuffer(q, N, len)``) is buffer_num; a value in size arithmetic or an
    ``InitBuffer`` length is tile; an instruction operand (a mask, a repeat count, a stride
    passed straight to an API call), a flag or an index is no knob."""
    role = None
    if instruction_operand(p, name):
        return None
    for r in references(p, p.tree.root_node, name):
        if any(x.type == "subscript_expression" for x in ancestors(r)):
            continue  # an address offset: layout, not size
        a = r.parent
        while a is not None and a.type in ("parenthesized_expression",):
            a = a.parent
        if a is not None and a.type == "template_argument_list" and a.parent is not None \
                and p.text(a.parent).startswith(("TQue", "AscendC::TQue")):
            return "buffer_num"
        call = next((x for x in ancestors(r) if x.type == "call_expression"), None)
        if call is not None and callee_name(p, call) == "InitBuffer":
            args = call_args(call)
            if len(args) == 3 and args[1].start_byte <= r.start_byte and r.end_byte <= args[1].end_byte:
                return "buffer_num"
            role = "tile"
        elif a is not None and a.type == "binary_expression" and p.text(a.child_by_field_name("operator")) in "*/":
            role = "tile"
    return role


def instruction_operand(p: Parsed, name: str) -> bool:
    """Whether the kernel passes ``name`` straight to an API call other than ``InitBuffer``
    (a mask, a repeat count, a stride, a round mode)."""
    for r in references(p, p.tree.root_node, name):
        call = r.parent.parent if r.parent is not None and r.parent.type == "argument_list" else None
        if call is not None and call.type == "call_expression" and callee_name(p, call) != "InitBuffer":
            return True
    return False
