"""Add a precision conversion the dtypes do not need: round-trip a widened tensor through its
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
"""

from __future__ import annotations

from ascendopt.cxx.scope import tensor_type
from ascendopt.cxx.syntax import call_args, calls, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, insert_after_statement, kernel_parsed, register

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
    family = "cast_elimination"
    title = "Convert precision only where the dtypes need it"
    mechanism = ("Each Cast is a full vector pass over the tile (VecCast class) that reads one buffer and "
                 "writes another; conversions that do not change any value cost V-pipe time and UB "
                 "bandwidth for nothing.")
    bottleneck = "V pipe busy with redundant VecCast instructions (more vector repeats per tile)"
    scope = "kernel"

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
