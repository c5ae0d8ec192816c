"""Move a tile with one contiguous DataCopy, not many small bursts (optimization ``merge_copies``, family ``dma_consolidation``).

Motif ``split_copy`` (rewind, removes it): Split one contiguous GM<->UB ``DataCopy`` into a loop of 256-byte bursts.

A single ``DataCopy(dst, src, count)`` moves a whole tile in one DMA: one instruction, one
start-up latency, long bursts that use the GM bandwidth. The rewind direction issues it as
many small copies — what a kernel does when it moves data "one repeat at a time":

    { const uint32_t _aoCount = <count>;            // evaluated once
      const auto _aoDst = <dst>; const auto _aoSrc = <src>;
      constexpr uint32_t _aoChunk = 256 / sizeof(typename std::decay_t<decltype(<local>)>::PrimType);
      for (uint32_t _aoOff = 0; _aoOff < _aoCount; _aoOff += _aoChunk) {
          DataCopy(_aoDst[_aoOff], _aoSrc[_aoOff], _aoCount - _aoOff < _aoChunk ? _aoCount - _aoOff : _aoChunk);
      } }

Every chunk starts at a multiple of 256 bytes from the original addresses and the last chunk
is ``count`` minus multiples of 256 bytes, so the 32-byte alignment the contiguous
``DataCopy`` requires (of addresses and of ``count * sizeof(T)``) is preserved. The element
type comes from the ``LocalTensor`` operand's ``PrimType``.

Sites: each statement that is exactly a three-argument ``DataCopy`` whose operands are a
``GlobalTensor`` and a ``LocalTensor`` (in either direction; types resolved from the
declarations of locals, parameters and class fields) and whose third argument is an element
count (not a ``DataCopyParams`` / other ``*Params`` object or braced initialiser).

Rewrite ``merge_copies`` (Stage I, applies it): Merge a loop of contiguous chunk copies into one DataCopy.

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
from ascendopt.cxx.parse import Parsed, int_literal, of_type, unparen
from ascendopt.cxx.scope import Ctx, make_ctx, tensor_kind, type_of
from ascendopt.cxx.syntax import (
    base_name,
    call_args,
    callee_name,
    calls,
    function_of,
    identifiers,
    is_zero,
    single_statement,
    statement_call,
    statement_of,
)
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    find_node,
    kernel_parsed,
    line_indent,
    replace_with_lines,
)
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="merge_copies",
    family="dma_consolidation",
    title="Move a tile with one contiguous DataCopy, not many small bursts",
    mechanism="One DMA per tile pays the transfer start-up once and streams long bursts at full GM "
              "bandwidth; the MTE queue holds one instruction instead of count/chunk.",
    bottleneck="The tile moves as 256-byte DataCopy chunks: MTE2/MTE3 time dominated by per-transfer "
               "start-up latency and short bursts, many more MTE instructions issued by the scalar unit",
    relieves=("small_transfers",),
)


def _is_params(ctx: Ctx, arg: Node) -> bool:
    """The argument is a parameter struct rather than an element count."""
    if arg.type in ("initializer_list", "compound_literal_expression"):
        return True
    if arg.type == "call_expression" and "Params" in callee_name(ctx.p, arg):
        return True
    name = base_name(ctx.p, arg)
    if name is not None and arg.type == "identifier":
        t = type_of(ctx, name, arg.start_byte)
        return t is not None and "Params" in t
    return False


def copy_direction(ctx: Ctx, call: Node) -> str | None:
    """``GM->UB`` / ``UB->GM`` for a splittable contiguous DataCopy, else None."""
    if callee_name(ctx.p, call) != "DataCopy":
        return None
    args = call_args(call)
    if len(args) != 3 or _is_params(ctx, args[2]):
        return None
    kinds = (tensor_kind(ctx, args[0]), tensor_kind(ctx, args[1]))
    return {("local", "global"): "GM->UB", ("global", "local"): "UB->GM"}.get(kinds)


@register
class SplitCopy(Motif):
    name = "split_copy"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            ctxs: dict[int, Ctx] = {}
            for call in calls(p, ["DataCopy"]):
                fn, stmt = function_of(call), statement_of(call)
                if fn is None or stmt is None:
                    continue
                ctx = ctxs.setdefault(fn.id, make_ctx(p, fn))
                d = copy_direction(ctx, call)
                if d is None:
                    continue
                a = call_args(call)
                sites.append(self.site(p, stmt, f"{ctx.name}:{p.line(call.start_byte)} DataCopy({p.text(a[0])}, "
                                                f"{p.text(a[1])}, {p.text(a[2])}) {d} -> 256-byte chunks"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        call = next(c for c in stmt.named_children if c.type == "call_expression")
        ctx = make_ctx(p, function_of(call))
        d = copy_direction(ctx, call)
        if d is None:
            raise ValueError(f"split_copy: {site.label} is no longer a site")
        dst, src, count = (p.text(a) for a in call_args(call))
        local = "_aoDst" if d == "GM->UB" else "_aoSrc"
        fn = p.text(call.child_by_field_name("function"))
        ind = line_indent(p, stmt.start_byte)
        lines = [
            "{",
            f"    const uint32_t _aoCount = {count};",
            f"    const auto _aoDst = {dst};",
            f"    const auto _aoSrc = {src};",
            f"    constexpr uint32_t _aoChunk = 256 / sizeof(typename std::decay_t<decltype({local})>::PrimType);",
            "    for (uint32_t _aoOff = 0; _aoOff < _aoCount; _aoOff += _aoChunk) {",
            f"        {fn}(_aoDst[_aoOff], _aoSrc[_aoOff], _aoCount - _aoOff < _aoChunk ? _aoCount - _aoOff : _aoChunk);",
            "    }",
            "}",
        ]
        text = lines[0] + "".join(f"\n{ind}{ln}" for ln in lines[1:])
        return [Edit(p.file, stmt.start_byte, stmt.end_byte, text)]


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


@register
class MergeCopies(Rewrite):
    name = "merge_copies"
    optimization = OPTIMIZATION
    anchors = ('for_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in of_type(p, "for_statement"):
                if (got := merged(p, n)) is not None:
                    sites.append(self.site(p, n, f"DataCopy({got[0]}, {got[1]}, {got[2]}) {loop_label(p, n.parent)}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        dst, src, count = merged(p, loop)
        prefix = p.text(statement_call(single_statement(loop)).child_by_field_name("function"))
        return [replace_with_lines(p, loop, [f"{prefix}({dst}, {src}, {count});"])]
