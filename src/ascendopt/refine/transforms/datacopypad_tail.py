"""Move a run of elements between GM and UB with one padded DMA instead of element by element.

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
from ascendopt.cxx.parse import Parsed, walk
from ascendopt.cxx.scope import CONCRETE_TYPES, tensor_type
from ascendopt.cxx.sync import api_prefix, scalar_sync_around
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    identifiers,
    is_method_call,
    is_zero,
    method_receiver,
    root_name,
    single_statement,
    statement_call,
)
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import (
    Edit,
    Motif,
    Site,
    find_node,
    kernel_parsed,
    remove_statement,
    replace_with_lines,
)



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


@REWRITES.register
class DataCopyPadTail(Motif):
    name = "datacopypad_tail"
    family = "tail_handling"
    title = "Copy a ragged run of elements with one DataCopyPad instead of an element loop"
    mechanism = ("DataCopyPad moves any byte length in one DMA burst on MTE2/MTE3 (padding the UB side to "
                 "32 bytes); the element loop issues one scalar GM access per element, each paying GM "
                 "latency on the scalar unit, which also stops issuing the other pipes' instructions.")
    bottleneck = "scalar pipe busy with per-element GM reads/writes; MTE2/MTE3 idle during the tail"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in walk(p.tree.root_node):
                if n.type != "for_statement":
                    continue
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
