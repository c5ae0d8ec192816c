"""Convert precision only where the dtypes need it (optimization ``drop_cast_roundtrip``, family ``cast_elimination``).

Motif ``extra_cast`` (rewind, removes it): Add a precision conversion the dtypes do not need: round-trip a widened tensor through its
narrow type once more.

After a widening ``Cast(dstF, srcH, mode, n)`` (half or bfloat16 -> float) the rewrite inserts

    Cast(srcH, dstF, CAST_RINT, n);   // float -> narrow: exact, dstF holds narrow values
    Cast(dstF, srcH, mode, n);        // narrow -> float again: exact

Both conversions are exact (every value of dstF is representable in the narrow type), so the
results are bit-identical; srcH is overwritten with the value it already held. The cost is two
more VecCast passes on the V pipe per tile.

The inserted casts are guarded by ``if constexpr`` on the tensors' element types (``PrimType``), so
in templated kernels they only exist in the instantiations where the cast really widens. Sites:
every four-argument ``Cast`` statement whose operand types (resolved from their declarations) are
float <- half/bfloat16, or, when a type is a template parameter, whose round mode is ``CAST_NONE``
(the mode of widening casts).

Rewrite ``drop_cast_roundtrip`` (Stage I, applies it): Drop a cast round trip: ``Cast(y, x, ...); Cast(x, y, ...);`` back to back.

Converting a tensor to another type and straight back costs two vector passes over it and,
for a narrowing first step, may round the values. When the first cast's result is not read
afterwards, the pair is at best a no-op. Sites: adjacent pairs of ``Cast`` statements whose
destination and source are swapped (also when the pair is the whole body of an ``if``, which
then goes too). Whether the result is unchanged is decided by running the candidate on every
case.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, of_type
from ascendopt.cxx.scope import tensor_type
from ascendopt.cxx.syntax import call_args, callee_name, calls, receiver, root_name, statement_call, statement_of
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    find_node,
    insert_after_statement,
    kernel_parsed,
    remove_statement,
)
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_cast_roundtrip",
    family="cast_elimination",
    title="Convert precision only where the dtypes need it",
    mechanism="Each Cast is a full vector pass over the tile (VecCast class) that reads one buffer and "
              "writes another; conversions that do not change any value cost V-pipe time and UB "
              "bandwidth for nothing.",
    bottleneck="V pipe busy with redundant VecCast instructions (more vector repeats per tile)",
    scope="kernel",
    relieves=("vector_bound",),
)


_NARROW = {"half", "bfloat16_t"}


def round_trip_lines(dst: str, src: str, mode: str, n: str) -> list[str]:
    types = (f"std::is_same_v<typename std::decay_t<decltype({dst})>::PrimType, float> && "
             f"(std::is_same_v<typename std::decay_t<decltype({src})>::PrimType, half> || "
             f"std::is_same_v<typename std::decay_t<decltype({src})>::PrimType, bfloat16_t>)")
    return [f"if constexpr ({types}) {{  // extra round trip through the narrow type",
            f"    AscendC::Cast({src}, {dst}, AscendC::RoundMode::CAST_RINT, {n});",
            f"    AscendC::Cast({dst}, {src}, {mode}, {n});",
            "}"]


@register
class ExtraCast(Motif):
    name = "extra_cast"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, ["Cast"]):
                args = call_args(call)
                if receiver(p, call) or len(args) != 4 or statement_of(call) is None:
                    continue
                td, ts = tensor_type(p, call, args[0]), tensor_type(p, call, args[1])
                if td.kind == "GlobalTensor" or ts.kind == "GlobalTensor":
                    continue
                if td.known and ts.known:
                    ok = td.concrete == "float" and ts.concrete in _NARROW
                else:
                    ok = p.text(args[2]).split("::")[-1].strip() == "CAST_NONE"
                if ok:
                    sites.append(self.site(p, call, f"{p.text(call)}: round trip {p.text(args[0])} through "
                                                    f"{p.text(args[1])} ({p.file}:{p.line(call.start_byte)})"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        call = find_node(p, site.start, site.end, "call_expression")
        dst, src, mode, n = (p.text(a) for a in call_args(call))
        return [insert_after_statement(p, statement_of(call), round_trip_lines(dst, src, mode, n))]


def _cast_operands(p: Parsed, stmt: Node) -> tuple[str, str] | None:
    call = statement_call(stmt)
    if call is None or callee_name(p, call) != "Cast":
        return None
    args = call_args(call)
    if len(args) < 2:
        return None
    dst, src = root_name(p, args[0]), root_name(p, args[1])
    return (dst, src) if dst and src and dst != src else None


def _pairs(p: Parsed) -> list[tuple[Node, Node]]:
    out = []
    for block in of_type(p, "compound_statement"):
        stmts = [c for c in block.named_children if c.type != "comment"]
        for a, b in zip(stmts, stmts[1:]):
            oa, ob = _cast_operands(p, a), _cast_operands(p, b)
            if oa and ob and oa == (ob[1], ob[0]):
                out.append((a, b))
    return out


@register
class DropCastRoundTrip(Rewrite):
    name = "drop_cast_roundtrip"
    optimization = OPTIMIZATION
    anchors = ('compound_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for a, b in _pairs(p):
                oa = _cast_operands(p, a)
                assert oa is not None
                sites.append(self.site(p, a, f"Cast {oa[1]} -> {oa[0]} -> {oa[1]} (line {p.line(a.start_byte)})",
                                       detail=str(b.start_byte)))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        a = find_node(p, site.start, site.end, "expression_statement")
        b = next(y for x, y in _pairs(p) if x.start_byte == a.start_byte)
        block = a.parent
        owner = block.parent if block is not None else None
        if owner is not None and owner.type == "if_statement" and owner.child_by_field_name("alternative") is None \
                and [c for c in block.named_children if c.type != "comment"] == [a, b]:
            return [remove_statement(p, owner)]
        return [remove_statement(p, a), remove_statement(p, b)]
