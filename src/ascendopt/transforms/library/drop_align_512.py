"""Align GM transfers to 512 bytes (optimization ``drop_align_512``, family ``gm_alignment``).

Motif ``drop_align_512`` (rewind, removes it): Drop a 512-byte GM alignment: a rounding to 512 -> the same rounding to 32 bytes.

The GM side of a DMA moves whole 512-byte lines (L2 line / HBM transaction); a burst that
starts mid-line spans one line more than its length needs and pays one extra transaction.
Tilings therefore round per-core shares and tile offsets to 512 bytes. Rounding to 32 bytes
instead keeps every DMA legal (32-byte UB granule) but lets bursts straddle lines.

Sites (host and kernel files), found structurally, with ``K`` an expression evaluating to 512
(a literal or a file-level integer constant) and ``x`` anything:

* ``(x + K-1) / K * K`` (round up) and ``x / K * K`` (round down) -> ``(x + 31) / 32 * 32`` and
  ``x / 32 * 32``;
* ``(x + K-1) & ~(K-1)`` and ``x & ~(K-1)`` -> ``(x + 31) & ~31`` and ``x & ~31``;
* a call of a rounding helper of the operator's own sources (a function whose body rounds a
  parameter as above: :func:`ascendopt.tiling.constant_roles.rounding_helpers`) with ``K`` in
  that parameter's position -> that argument ``32``. Helpers are recognised by their bodies,
  never by their names.

The unit is assumed to be bytes; a rounding of an element count to 512 elements matches too
(the rewrite then rounds to 32 elements), and rewind's correctness check decides.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, const_int_value, parse, unparen, walk
from ascendopt.cxx.syntax import call_args, callee_name, calls
from ascendopt.operator import Operator
from ascendopt.tiling.constant_roles import rounding_helpers
from ascendopt.transforms.base import Edit, Motif, Site, find_node
from ascendopt.transforms.library.double_buffer import int_constants
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_align_512",
    family="gm_alignment",
    title="Align GM transfers to 512 bytes",
    mechanism="GM is moved in whole 512-byte lines; a burst whose start is 512-byte aligned touches "
              "ceil(len/512) lines, one that starts mid-line touches one more and pays an extra transaction.",
    bottleneck="extra GM transactions per burst: MTE2/MTE3 move more lines (HBM bytes) than the data needs",
    relieves=("memory_bound",),
)


ALIGN = 512
TO = 32


def value(p: Parsed, node: Node | None, consts: dict[str, int]) -> int | None:
    """Integer value of a literal/constant-only expression (``512``, ``LINE - 1``, ``~511``)."""
    if node is None:
        return None
    node = unparen(node)
    v = const_int_value(p, node)
    if v is not None:
        return v
    if node.type == "identifier":
        return consts.get(p.text(node))
    if node.type == "unary_expression":
        o, a = node.child_by_field_name("operator"), value(p, node.child_by_field_name("argument"), consts)
        if o is None or a is None:
            return None
        return {"~": ~a, "-": -a, "+": a}.get(p.text(o))
    if node.type == "binary_expression":
        a = value(p, node.child_by_field_name("left"), consts)
        b = value(p, node.child_by_field_name("right"), consts)
        o = node.child_by_field_name("operator")
        if a is None or b is None or o is None:
            return None
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
               "/": lambda: a // b if b else None, "<<": lambda: a << b, ">>": lambda: a >> b}
        f = ops.get(p.text(o))
        return None if f is None else f()
    return None


def _binop(p: Parsed, node: Node, op: str) -> tuple[Node, Node] | None:
    node = unparen(node)
    if node.type != "binary_expression":
        return None
    o = node.child_by_field_name("operator")
    if o is None or p.text(o) != op:
        return None
    return node.child_by_field_name("left"), node.child_by_field_name("right")


def _rounded_up_operand(p: Parsed, node: Node, consts: dict[str, int]) -> Node | None:
    """``x`` when ``node`` is ``(x + 511)`` / ``(511 + x)``, else None."""
    lr = _binop(p, node, "+")
    if lr is None:
        return None
    left, right = lr
    if value(p, right, consts) == ALIGN - 1:
        return left
    if value(p, left, consts) == ALIGN - 1:
        return right
    return None


def _offset_by_constant(p: Parsed, node: Node, consts: dict[str, int]) -> bool:
    """True for ``x + c`` / ``x - c`` with a constant ``c``."""
    for op in ("+", "-"):
        lr = _binop(p, node, op)
        if lr is not None and (value(p, lr[1], consts) is not None or value(p, lr[0], consts) is not None):
            return True
    return False


def match_rounding(p: Parsed, node: Node, consts: dict[str, int]) -> tuple[str, str] | None:
    """(``up``|``down``, replacement text) when ``node`` rounds to 512, else None."""
    if node.type != "binary_expression":
        return None
    o = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if o is None or left is None or right is None:
        return None
    if p.text(o) == "*" and value(p, right, consts) == ALIGN:
        div = _binop(p, left, "/")
        if div is None or value(p, div[1], consts) != ALIGN:
            return None
        x = _rounded_up_operand(p, div[0], consts)
        if x is not None:
            return "up", f"({p.text(x)} + {TO - 1}) / {TO} * {TO}"
        if _offset_by_constant(p, div[0], consts):
            return None  # (x + c) / 512 * 512 with c != 511: not a plain rounding
        return "down", f"{p.text(div[0])} / {TO} * {TO}"
    if p.text(o) == "&" and value(p, right, consts) == ~(ALIGN - 1):
        x = _rounded_up_operand(p, left, consts)
        if x is not None:
            return "up", f"({p.text(x)} + {TO - 1}) & ~{TO - 1}"
        if _offset_by_constant(p, left, consts):
            return None
        return "down", f"{p.text(left)} & ~{TO - 1}"
    return None


@register
class DropAlign512(Motif):
    name = "drop_align_512"
    optimization = OPTIMIZATION

    def _parsed(self, op: Operator) -> list[Parsed]:
        rels = list(op.host_files()) + [k for k in op.kernel_files()]
        return [parse(r, op.files[r]) for r in rels if r.endswith((".cpp", ".h", ".hpp", ".cc"))]

    def find(self, op: Operator) -> list[Site]:
        sites = []
        parsed = self._parsed(op)
        helpers: dict[str, list[int]] = {}
        for p in parsed:
            helpers.update(rounding_helpers(p))
        for p in parsed:
            consts = int_constants(p)
            for n in walk(p.tree.root_node):
                m = match_rounding(p, n, consts)
                if m is not None:
                    sites.append(self.site(p, n, f"{p.text(n)}: round {m[0]} to {ALIGN} B -> {TO} B", m[1]))
            for c in calls(p, helpers):
                args = call_args(c)
                for a in (args[i] for i in helpers[callee_name(p, c)] if i < len(args)):
                    if value(p, a, consts) == ALIGN:
                        sites.append(self.site(p, a, f"{p.text(c)}: align to {ALIGN} B -> {TO} B", str(TO)))
        return sorted(sites, key=lambda s: (s.file, s.start))

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in self._parsed(op) if q.file == site.file)
        find_node(p, site.start, site.end)
        return [Edit(site.file, site.start, site.end, site.detail)]
