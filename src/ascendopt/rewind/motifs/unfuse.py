"""Split a fused vector instruction into its parts.

- ``FusedMulAdd(dst, s0, s1, n)`` (dst = s0 * dst + s1)  ->  ``Mul(dst, s0, dst, n); Add(dst, dst, s1, n);``
- ``MulAddDst(dst, s0, s1, n)``   (dst = s0 * s1 + dst)  ->  ``Mul(sK, s0, s1, n); Add(dst, sK, dst, n);``
- ``Axpy(dst, src, s, n)``        (dst = src * s + dst)  ->  ``Muls(src, src, s, n); Add(dst, src, dst, n);``

The product of MulAddDst and Axpy needs a buffer: the rewrite overwrites a source tensor that is
dead after the call (not used again in its function except by ``FreeTensor``, and, inside a
loop, declared inside that loop), so no buffer is added; sites without such a source are not
offered. Between the two parts a ``PipeBarrier<PIPE_V>`` orders the read-after-write on the
vector unit. For float the parts compute exactly what the fused instruction computes (product
rounded to fp32, then the sum); for half the product is rounded to half once more (one more
rounding step, within the fp16 tolerance for moderate magnitudes; validation decides). Mixed
element types (float dst with half sources) are not sites when the declarations say so.
"""

from __future__ import annotations

from ascendopt.cxx.defuse import dead_after
from ascendopt.cxx.scope import tensor_type
from ascendopt.cxx.syntax import base_name, call_args, callee_name, calls, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, register, replace_statement

FUSED = ("FusedMulAdd", "MulAddDst", "Axpy")
_BARRIER = "AscendC::PipeBarrier<PIPE_V>();"


def _same_types(p, call, args) -> bool:
    """False when the declared element types of the tensors are known and differ."""
    elems = {tensor_type(p, call, a).elem for a in args}
    return len(elems) == 1 or None in elems and len(elems - {None}) <= 1


@register
class Unfuse(Motif):
    name = "unfuse"
    family = "instruction_fusion"
    title = "Use fused vector instructions (FusedMulAdd, MulAddDst, Axpy) instead of their parts"
    mechanism = ("A fused multiply-add is one pass over the tile on the V pipe; its parts are two passes "
                 "with an intermediate written to and read back from UB, plus the V-pipe barrier between "
                 "the dependent instructions.")
    bottleneck = "V pipe: twice the vector instructions and repeats per tile, a barrier between them"
    scope = "kernel"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, FUSED):
                args = call_args(call)
                stmt = statement_of(call)
                if receiver(p, call) or len(args) != 4 or stmt is None:
                    continue
                name = callee_name(p, call)
                tensors = args[:3] if name != "Axpy" else args[:2]
                if not _same_types(p, call, tensors):
                    continue
                detail = ""
                if name == "MulAddDst":
                    dst = base_name(p, args[0])
                    for k in (1, 2):
                        b = base_name(p, args[k])
                        if b and b != dst and dead_after(p, stmt, b):
                            detail = str(k)
                            break
                    if not detail:
                        continue
                elif name == "Axpy":
                    b = base_name(p, args[1])
                    if not (b and b != base_name(p, args[0]) and dead_after(p, stmt, b)):
                        continue
                    detail = "1"
                how = {"FusedMulAdd": "Mul + Add",
                       "MulAddDst": f"Mul into {p.text(args[int(detail or 1)])} + Add",
                       "Axpy": f"Muls into {p.text(args[1])} + Add"}[name]
                sites.append(self.site(p, call, f"{p.text(call)} -> {how} ({p.file}:{p.line(call.start_byte)})",
                                       detail=f"{name}:{detail}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        call = find_node(p, site.start, site.end, "call_expression")
        name = callee_name(p, call)
        d, a, b, n = (p.text(x) for x in call_args(call))
        if name == "FusedMulAdd":
            lines = [f"AscendC::Mul({d}, {a}, {d}, {n});", _BARRIER, f"AscendC::Add({d}, {d}, {b}, {n});"]
        elif name == "MulAddDst":
            tmp = a if site.detail.endswith(":1") else b
            lines = [f"AscendC::Mul({tmp}, {a}, {b}, {n});", _BARRIER, f"AscendC::Add({d}, {tmp}, {d}, {n});"]
        else:  # Axpy(dst, src, scalar, n)
            lines = [f"AscendC::Muls({a}, {a}, {b}, {n});", _BARRIER, f"AscendC::Add({d}, {a}, {d}, {n});"]
        return [replace_statement(p, statement_of(call), lines, comment=f"{name} split into its parts")]
