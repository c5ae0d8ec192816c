"""Merge a loop of contiguous chunk copies into one DataCopy.

Sites: a counted ``for`` loop from 0 whose body is one ``DataCopy(dst[off], src[off], len)``
over consecutive chunks:

- ``for (o = 0; o < N; o += C) DataCopy(d[b1 + o], s[b2 + o], L)`` with ``L`` the chunk or the
  remainder: ``min(C, N - o)`` (any ``min``/``Min`` in either argument order), a conditional
  choosing between ``C`` and ``N - o`` by comparing them (``N - o < C ? N - o : C``,
  ``o + C <= N ? C : N - o``, ...) -> ``DataCopy(d[b1], s[b2], N)``; ``L`` = ``C`` itself ->
  ``DataCopy(d[b1], s[b2], (N + C - 1) / C * C)`` (the same elements the loop moves);
- ``for (k = 0; k < K; ++k) DataCopy(d[b1 + k * C], s[b2 + k * C], C)`` -> ``DataCopy(d[b1],
  s[b2], K * C)``.

The offsets ``b1``/``b2`` are optional and must not use the loop variable. One transfer pays the
DMA setup once; the backend checks the merged copy (alignment, buffer bounds).
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop, loop_label
from ascendopt.cxx.parse import Parsed, int_literal, unparen, walk
from ascendopt.cxx.syntax import call_args, callee_name, identifiers, is_zero, single_statement, statement_call
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, replace_with_lines


def _n(p: Parsed, node: Node) -> str:
    """Normalised text: no blanks or outer parentheses, integer literals by value (``64u`` = ``64``)."""
    node = unparen(node)
    if node.type == "number_literal" and (lit := int_literal(p.text(node))) is not None:
        return str(lit[0])
    return "".join(p.text(node).split())


def _bin(p: Parsed, node: Node) -> tuple[str, Node, Node] | None:
    node = unparen(node)
    if node.type != "binary_expression":
        return None
    return p.text(node.child_by_field_name("operator")), node.child_by_field_name("left"), node.child_by_field_name("right")


def _is_rest(p: Parsed, node: Node, total: str, var: str) -> bool:
    """``node`` is ``total - var``."""
    b = _bin(p, node)
    return b is not None and b[0] == "-" and _n(p, b[1]) == total and _n(p, b[2]) == var


def _is_end(p: Parsed, node: Node, chunk: str, var: str) -> bool:
    """``node`` is ``var + chunk`` or ``chunk + var``."""
    b = _bin(p, node)
    return b is not None and b[0] == "+" and {_n(p, b[1]), _n(p, b[2])} == {var, chunk}


def _is_chunk_or_rest(p: Parsed, node: Node, chunk: str, total: str, var: str) -> bool:
    """``node`` evaluates to ``min(chunk, total - var)``."""
    node = unparen(node)
    if node.type == "call_expression" and callee_name(p, node).lower() == "min" and len(call_args(node)) == 2:
        a, b = call_args(node)
        return (_n(p, a) == chunk and _is_rest(p, b, total, var)) or (_n(p, b) == chunk and _is_rest(p, a, total, var))
    if node.type != "conditional_expression":
        return False
    cond = _bin(p, node.child_by_field_name("condition"))
    cons, alt = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
    if cond is None:
        return False
    op, l, r = cond
    if op in (">", ">="):  # normalise to l < r / l <= r
        op, l, r = ("<" if op == ">" else "<="), r, l
    if op not in ("<", "<="):
        return False
    chunk_first = _n(p, cons) == chunk and _is_rest(p, alt, total, var)
    rest_first = _is_rest(p, cons, total, var) and _n(p, alt) == chunk
    if not (chunk_first or rest_first):
        return False
    # l < r holds when the chunk is the smaller one: (chunk, rest), (end, total)
    small_chunk = (_n(p, l) == chunk and _is_rest(p, r, total, var)) or (_is_end(p, l, chunk, var) and _n(p, r) == total)
    small_rest = (_is_rest(p, l, total, var) and _n(p, r) == chunk) or (_n(p, l) == total and _is_end(p, r, chunk, var))
    return (small_chunk and chunk_first) or (small_rest and rest_first)


def _split_index(p: Parsed, index: Node, term: str) -> tuple[bool, Node | None]:
    """``index`` is ``term`` or ``b + term`` / ``term + b``: (True, b or None)."""
    index = unparen(index)
    if _n(p, index) == term:
        return True, None
    b = _bin(p, index)
    if b is not None and b[0] == "+":
        for x, y in ((b[1], b[2]), (b[2], b[1])):
            if _n(p, x) == term:
                return True, y
    return False, None


def merged(p: Parsed, loop: Node) -> tuple[str, str, str] | None:
    """(dst, src, total count) of the one DataCopy replacing the loop, else None."""
    cl = counted_loop(p, loop)
    if cl is None or not is_zero(p, cl.start):
        return None
    call = statement_call(single_statement(loop))
    if call is None or callee_name(p, call) != "DataCopy" or len(call_args(call)) != 3:
        return None
    d, s, length = call_args(call)
    d, s = unparen(d), unparen(s)
    if d.type != "subscript_expression" or s.type != "subscript_expression":
        return None
    var, total = cl.var, _n(p, cl.bound)
    if cl.step is not None:
        chunk = _n(p, cl.step)
        terms = [var]
        if _n(p, length) == chunk:
            count = f"({p.text(cl.bound)} + {p.text(cl.step)} - 1) / {p.text(cl.step)} * {p.text(cl.step)}"
        elif _is_chunk_or_rest(p, length, chunk, total, var):
            count = p.text(cl.bound)
        else:
            return None
    else:
        chunk = _n(p, length)
        terms = [f"{var}*{chunk}", f"{chunk}*{var}", f"{var}*({chunk})", f"({chunk})*{var}"]
        count = f"{p.text(cl.bound)} * {p.text(length)}" if unparen(length).type in ("identifier", "number_literal") \
            else f"{p.text(cl.bound)} * ({p.text(length)})"
    if var in identifiers(p, length) and cl.step is None:
        return None
    out = []
    for sub in (d, s):
        idx = [c for c in sub.child_by_field_name("indices").named_children if c.type != "comment"]
        arr = sub.child_by_field_name("argument")
        if len(idx) != 1 or var in identifiers(p, arr):
            return None
        for term in terms:
            ok, base = _split_index(p, idx[0], term)
            if ok:
                break
        if not ok or (base is not None and var in identifiers(p, base)):
            return None
        out.append(p.text(arr) + (f"[{p.text(base)}]" if base is not None else ""))
    return out[0], out[1], count


@REWRITES.register
class MergeCopies(Motif):
    name = "merge_copies"
    family = "dma_consolidation"
    title = "Merge a loop of contiguous chunk copies into one DataCopy"
    mechanism = ("Every DataCopy pays a fixed DMA setup and issue cost on the MTE pipe; one burst over the "
                 "whole contiguous range pays it once and streams at full bandwidth.")
    bottleneck = "MTE2/MTE3 time dominated by per-transfer overhead of many small copies"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in walk(p.tree.root_node):
                if n.type == "for_statement" and (got := merged(p, n)) is not None:
                    sites.append(self.site(p, n, f"DataCopy({got[0]}, {got[1]}, {got[2]}) {loop_label(p, n.parent)}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        dst, src, count = merged(p, loop)
        prefix = p.text(statement_call(single_statement(loop)).child_by_field_name("function"))
        return [replace_with_lines(p, loop, [f"{prefix}({dst}, {src}, {count});"])]
