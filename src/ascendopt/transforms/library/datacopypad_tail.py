"""Move ragged tails with one padded DMA (DataCopyPad), not element by element (optimization ``datacopypad_tail``, family ``tail_handling``).

Motif ``tail_per_element`` (rewind, removes it): Move a ragged tail element by element instead of with one padded DMA (DataCopyPad).

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

Rewrite ``datacopypad_tail`` (Stage I, applies it): Move a run of elements between GM and UB with one padded DMA instead of element by element.

Sites: a counted ``for`` loop from 0 with step 1 whose body is one statement
``local.SetValue(i, gm.GetValue(i))`` (GM -> UB) or ``gm.SetValue(i, local.GetValue(i))``
(UB -> GM), where one tensor is declared ``GlobalTensor<T>`` and the other ``LocalTensor<T>``
(locals, parameters, class fields, ``auto x = q.AllocTensor<T>()``). Indices ``b + i`` read
from ``x[b]``. The loop becomes

- GM -> UB: ``DataCopyPad(local, gm, DataCopyExtParams{1, n * sizeof(T), 0, 0, 0},
  DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)})``
- UB -> GM: ``DataCopyPad(gm, local, DataCopyExtParams{1, n * sizeof(T), 0, 0, 0})``

with ``T`` the element type of the local tensor (of the global one when the local's is not
declared; no site when both are declared with different types: that loop converts). The
scalar synchronisation directly around the loop (``PipeBarrier<PIPE_ALL>``, scalar-event
SetFlag/WaitFlag pairs) is dropped: the DMA is ordered by the queues like the other copies; a
kernel that relied on the barrier for a non-queue buffer shows a race on the backend.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop, index_base, loop_label
from ascendopt.cxx.parse import Parsed, of_type
from ascendopt.cxx.scope import CONCRETE_TYPES, tensor_type
from ascendopt.cxx.sync import api_prefix, scalar_sync_around
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    calls,
    identifiers,
    is_method_call,
    is_zero,
    method_receiver,
    receiver,
    root_name,
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
    remove_statement,
    replace_statement,
    replace_with_lines,
)
from ascendopt.transforms.library._elemwise import flag_pair
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="datacopypad_tail",
    family="tail_handling",
    title="Move ragged tails with one padded DMA (DataCopyPad), not element by element",
    mechanism="DataCopyPad moves a byte-granular burst in one MTE instruction at DMA bandwidth; a scalar "
              "loop pays one scalar GM access and one UB access per element on the scalar unit, which "
              "also stops issuing the other pipes' work meanwhile.",
    bottleneck="scalar pipe busy with GlobalTensor GetValue/SetValue on the tail; MTE and V pipes wait",
    scope="kernel",
    relieves=("scalar_heavy",),
)


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
    optimization = OPTIMIZATION

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


def _operand(p: Parsed, recv: Node, index: Node, var: str) -> tuple[str, str] | None:
    """(operand text, root variable) of ``recv`` accessed at ``index`` (``var`` or ``b + var``)."""
    ok, base = index_base(p, index, var)
    root = root_name(p, recv)
    if not ok or root is None or var in identifiers(p, recv):
        return None
    return p.text(recv) + (f"[{p.text(base)}]" if base is not None else ""), root


def copy_loop(p: Parsed, loop: Node) -> tuple[str, str, str, str, str] | None:
    """(direction ``GM->UB``|``UB->GM``, destination, source, element type, count) of an
    element copy loop, else None."""
    cl = counted_loop(p, loop)
    if cl is None or cl.step is not None or not is_zero(p, cl.start):
        return None
    call = statement_call(single_statement(loop))
    if call is None or not is_method_call(call) or callee_name(p, call) != "SetValue" or len(call_args(call)) != 2:
        return None
    idx, val = call_args(call)
    if val.type != "call_expression" or not is_method_call(val) or callee_name(p, val) != "GetValue" \
            or len(call_args(val)) != 1:
        return None
    dst = _operand(p, method_receiver(call), idx, cl.var)
    src = _operand(p, method_receiver(val), call_args(val)[0], cl.var)
    if dst is None or src is None:
        return None
    td, ts = tensor_type(p, loop, dst[1]).pair(), tensor_type(p, loop, src[1]).pair()
    kinds = (td[0] if td else None, ts[0] if ts else None)
    if kinds in (("GlobalTensor", "LocalTensor"), ("GlobalTensor", None)):
        direction, local, gm = "UB->GM", ts, td
    elif kinds in (("LocalTensor", "GlobalTensor"), (None, "GlobalTensor")):
        direction, local, gm = "GM->UB", td, ts
    else:
        return None
    if local is not None and local[1] != gm[1] and {local[1], gm[1]} <= CONCRETE_TYPES:
        return None
    elem = (local or gm)[1]
    return direction, dst[0], src[0], elem, p.text(cl.bound)


@register
class DataCopyPadTail(Rewrite):
    name = "datacopypad_tail"
    optimization = OPTIMIZATION
    anchors = ('for_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in of_type(p, "for_statement"):
                got = copy_loop(p, n)
                if got is not None:
                    d, dst, src, elem, count = got
                    sites.append(self.site(p, n, f"{d} {dst} <- {src}: {count} x {elem} {loop_label(p, n.parent)}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        direction, dst, src, elem, count = copy_loop(p, loop)
        pre = api_prefix(p)
        ext = f"{pre}DataCopyExtParams{{1, static_cast<uint32_t>(({count}) * sizeof({elem})), 0, 0, 0}}"
        if direction == "GM->UB":
            line = f"{pre}DataCopyPad({dst}, {src}, {ext}, {pre}DataCopyPadExtParams<{elem}>{{false, 0, 0, static_cast<{elem}>(0)}});"
        else:
            line = f"{pre}DataCopyPad({dst}, {src}, {ext});"
        return [replace_with_lines(p, loop, [line]), *(remove_statement(p, s) for s in scalar_sync_around(p, loop))]
