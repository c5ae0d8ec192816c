"""Move a ragged tail element by element instead of with one padded DMA (DataCopyPad).

``DataCopyPad`` moves a byte-granular burst between GM and UB in one MTE2/MTE3 instruction. The
rewrite replaces one such call by a scalar loop: ``local.SetValue(k, gm.GetValue(j))`` (GM -> UB)
or ``gm.SetValue(j, local.GetValue(k))`` (UB -> GM), one scalar GM access (the dearest scalar
access) plus one UB access per element. The element count and layout come from the copy
parameters at run time: ``blockCount`` bursts of ``blockLen`` bytes, GM gap ``srcStride`` /
``dstStride`` bytes, UB rows padded to 32 bytes plus the UB gap in 32-byte blocks, after
``leftPadding`` elements (GM -> UB). With ``isPad`` the left/right pad elements get
``paddingValue`` (converted to the element type: right for ``DataCopyPadExtParams<T>``, not for the
raw-bits ``DataCopyPadParams``); the 32-byte alignment filler beyond them is left unwritten.

Synchronisation kept correct: GM -> UB is bracketed by ``MTE2 -> S`` before (the buffer's last
readers are ordered before MTE2 by the queue) and ``S -> MTE2`` after (the queue orders MTE2
before the consumer); UB -> GM by ``MTE3 -> S`` / ``S -> MTE3``.

Sites: ``DataCopyPad`` statements whose operands resolve (from their declarations) to one
``GlobalTensor`` and one ``LocalTensor``; UB -> GM only in files that set no atomic mode (scalar
stores do not accumulate).
"""

from __future__ import annotations

from ascendopt.cxx.scope import tensor_type
from ascendopt.cxx.syntax import call_args, calls, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.rewind.motifs._elemwise import flag_pair
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, register, replace_statement

_ATOMIC = ("SetAtomicAdd", "SetAtomicMax", "SetAtomicMin", "SetAtomicType")


def gm_to_ub_lines(local: str, gm: str, params: str, pad: str) -> list[str]:
    return ["int32_t aoEvt = 0;",
            f"const auto& aoP = {params};",
            f"const auto& aoPad = {pad};",
            f"const uint32_t aoE = static_cast<uint32_t>(sizeof({local}.GetValue(0)));",
            "const uint32_t aoLen = static_cast<uint32_t>(aoP.blockLen) / aoE;",
            "const uint32_t aoLeft = static_cast<uint32_t>(aoPad.leftPadding);",
            "const uint32_t aoRow = (aoLeft * aoE + static_cast<uint32_t>(aoP.blockLen) + "
            "static_cast<uint32_t>(aoPad.rightPadding) * aoE + 31u) / 32u * 32u;",
            "const uint32_t aoPitch = (aoRow + static_cast<uint32_t>(aoP.dstStride) * 32u) / aoE;",
            "const uint32_t aoGmRow = aoLen + static_cast<uint32_t>(aoP.srcStride) / aoE;",
            *flag_pair("MTE2", "S"),
            "for (uint32_t aoB = 0; aoB < static_cast<uint32_t>(aoP.blockCount); ++aoB) {",
            "    for (uint32_t aoI = 0; aoI < aoLen; ++aoI) {",
            f"        {local}.SetValue(aoB * aoPitch + aoLeft + aoI, {gm}.GetValue(aoB * aoGmRow + aoI));",
            "    }",
            "    if (aoPad.isPad) {",
            "        for (uint32_t aoI = 0; aoI < aoLeft; ++aoI) {",
            f"            {local}.SetValue(aoB * aoPitch + aoI, aoPad.paddingValue);",
            "        }",
            "        for (uint32_t aoI = 0; aoI < static_cast<uint32_t>(aoPad.rightPadding); ++aoI) {",
            f"            {local}.SetValue(aoB * aoPitch + aoLeft + aoLen + aoI, aoPad.paddingValue);",
            "        }",
            "    }",
            "}",
            *flag_pair("S", "MTE2")]


def ub_to_gm_lines(gm: str, local: str, params: str) -> list[str]:
    return ["int32_t aoEvt = 0;",
            f"const auto& aoP = {params};",
            f"const uint32_t aoE = static_cast<uint32_t>(sizeof({local}.GetValue(0)));",
            "const uint32_t aoLen = static_cast<uint32_t>(aoP.blockLen) / aoE;",
            "const uint32_t aoPitch = ((static_cast<uint32_t>(aoP.blockLen) + 31u) / 32u * 32u + "
            "static_cast<uint32_t>(aoP.srcStride) * 32u) / aoE;",
            "const uint32_t aoGmRow = aoLen + static_cast<uint32_t>(aoP.dstStride) / aoE;",
            *flag_pair("MTE3", "S"),
            "for (uint32_t aoB = 0; aoB < static_cast<uint32_t>(aoP.blockCount); ++aoB) {",
            "    for (uint32_t aoI = 0; aoI < aoLen; ++aoI) {",
            f"        {gm}.SetValue(aoB * aoGmRow + aoI, {local}.GetValue(aoB * aoPitch + aoI));",
            "    }",
            "}",
            *flag_pair("S", "MTE3")]


@register
class TailPerElement(Motif):
    name = "tail_per_element"
    family = "tail_handling"
    title = "Move ragged tails with one padded DMA (DataCopyPad), not element by element"
    mechanism = ("DataCopyPad moves a byte-granular burst in one MTE instruction at DMA bandwidth; a scalar "
                 "loop pays one scalar GM access and one UB access per element on the scalar unit, which "
                 "also stops issuing the other pipes' work meanwhile.")
    bottleneck = "scalar pipe busy with GlobalTensor GetValue/SetValue on the tail; MTE and V pipes wait"
    scope = "kernel"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            atomic = any(True for _ in calls(p, _ATOMIC))
            for call in calls(p, ["DataCopyPad"]):
                args = call_args(call)
                if receiver(p, call) or statement_of(call) is None or len(args) not in (3, 4):
                    continue
                if args[-1].type == "initializer_list" or args[2].type == "initializer_list":
                    continue
                kd, ks = tensor_type(p, call, args[0]).kind, tensor_type(p, call, args[1]).kind
                if len(args) == 4 and (kd, ks) == ("LocalTensor", "GlobalTensor"):
                    direction = "GM->UB"
                elif len(args) == 3 and (kd, ks) == ("GlobalTensor", "LocalTensor") and not atomic:
                    direction = "UB->GM"
                else:
                    continue
                sites.append(self.site(p, call, f"{p.text(call)}: {direction} per element "
                                                f"({p.file}:{p.line(call.start_byte)})", detail=direction))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        call = find_node(p, site.start, site.end, "call_expression")
        args = [p.text(a) for a in call_args(call)]
        if site.detail == "GM->UB":
            lines = gm_to_ub_lines(args[0], args[1], args[2], args[3])
        else:
            lines = ub_to_gm_lines(args[0], args[1], args[2])
        return [replace_statement(p, statement_of(call), lines, comment=f"per-element {site.detail} copy")]
