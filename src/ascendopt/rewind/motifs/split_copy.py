"""Split one contiguous GM<->UB ``DataCopy`` into a loop of 256-byte bursts.

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
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.scope import Ctx, make_ctx, tensor_kind, type_of
from ascendopt.cxx.syntax import base_name, call_args, callee_name, calls, function_of, statement_of
from ascendopt.operator import Operator
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, line_indent, register


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
    family = "dma_consolidation"
    title = "Move a tile with one contiguous DataCopy, not many small bursts"
    mechanism = ("One DMA per tile pays the transfer start-up once and streams long bursts at full GM "
                 "bandwidth; the MTE queue holds one instruction instead of count/chunk.")
    bottleneck = ("The tile moves as 256-byte DataCopy chunks: MTE2/MTE3 time dominated by per-transfer "
                  "start-up latency and short bursts, many more MTE instructions issued by the scalar unit")

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
