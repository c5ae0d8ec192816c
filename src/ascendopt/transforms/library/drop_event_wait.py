"""Let the next tile's copy-in overlap the current tile's compute (optimization ``drop_event_wait``, family ``pipeline_overlap``).

Motif ``serialize_copy_compute`` (rewind, removes it): Make the copy-in of tile i+1 wait for the vector work of tile i (an explicit V->MTE2 event).

With a multi-buffer input queue, ``AllocTensor`` for tile i+1 only waits for the buffer that
tile i-1 freed, so MTE2 fetches tile i+1 while V still computes tile i. A careless kernel that
"protects" the copy-in with ``SetFlag/WaitFlag<HardEvent::V_MTE2>`` at the top of the loop
body throws that overlap away: MTE2 now idles until every vector instruction issued so far has
finished. Unlike ``pipe_barrier`` this orders only V before MTE2 — MTE3 (the copy-out) still
runs concurrently with both.

Sites: every tile loop (see :mod:`._tileloop`) that, directly or through methods of its class,
both loads from GM into a local tensor and issues vector instructions, in a file where some
queue is given two or more buffers (``pipe.InitBuffer(que, N, bytes)`` with N >= 2, a literal
or a ``constexpr`` of the file) and which does not already wait on a V->MTE2 event. The event
id is fetched from the class's ``TPipe`` member, found among the class's fields (or a local /
parameter ``TPipe``, else ``GetTPipePtr()``).

Rewrite ``drop_event_wait`` (Stage I, applies it): Drop a blocking event wait inside a loop: ``SetFlag<E>(id); WaitFlag<E>(id);`` back to back.

A ``SetFlag`` immediately followed by the matching ``WaitFlag`` on the same event and id makes
the destination pipe of ``E`` wait, right there, for everything the source pipe has issued:
inside the tile loop that stalls, every tile, the work the queues would overlap (for
``V_MTE2``: the copy-in of the next tile waits for the vector work of the current one). The
pair is removed together with the ``FetchEventID`` declaration that only feeds it, and with
the braces of a block it leaves empty. Whether the wait was needed is decided by running the
candidate: the race checker reports a dependence left unordered as a ``race`` error.
Sites: every such pair inside a loop, innermost loops first.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.parse import Parsed, of_type
from ascendopt.cxx.scope import reaches
from ascendopt.cxx.sync import flag_pairs, pair_statements, sync_info
from ascendopt.cxx.syntax import LOOPS, ancestors, call_args, callee_name, calls
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    body_start_insert,
    find_node,
    kernel_parsed,
    remove_statement,
)
from ascendopt.transforms.library._tileloop import event_sync, is_gm_load, is_vector_op, tile_loops
from ascendopt.transforms.library.double_buffer import int_constants, int_value
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_event_wait",
    family="pipeline_overlap",
    title="Let the next tile's copy-in overlap the current tile's compute",
    mechanism="With two or more input buffers the queue only makes MTE2 wait for the buffer it overwrites, "
              "so the copy-in of tile i+1 runs while the vector unit computes tile i.",
    bottleneck="An explicit V->MTE2 wait per tile keeps MTE2 idle during every compute phase: copy-in and "
               "compute alternate, MTE2 and V utilisation each drop, the double buffer is unused",
    relieves=("serialized_pipes",),
)


def multi_buffered(p: Parsed) -> bool:
    """Some queue of the file gets two or more buffers."""
    consts = int_constants(p)
    for call in calls(p, ["InitBuffer"]):
        args = call_args(call)
        if len(args) == 3:
            n = int_value(p, args[1], consts)
            if n is not None and n >= 2:
                return True
    return False


def _waits_v_mte2(ctx, call) -> bool:
    return callee_name(ctx.p, call) == "WaitFlag" and "V_MTE2" in ctx.p.text(call.child_by_field_name("function"))


@register
class SerializeCopyCompute(Motif):
    name = "serialize_copy_compute"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            if not multi_buffered(p):
                continue
            for t in tile_loops(p):
                if (reaches(t.ctx, t.body, is_gm_load) and reaches(t.ctx, t.body, is_vector_op)
                        and not reaches(t.ctx, t.body, _waits_v_mte2)):
                    sites.append(self.site(p, t.loop, f"{t.label()}: copy-in waits V (V->MTE2 event) each tile"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        t = next(t for t in tile_loops(p) if t.loop.id == loop.id)
        return [body_start_insert(p, t.body, event_sync(t.ctx, loop.start_byte, "V_MTE2", "_aoEvVM"))]


@register
class DropEventWait(Rewrite):
    name = "drop_event_wait"
    optimization = OPTIMIZATION
    anchors = ('compound_statement',)

    def find(self, op: Operator) -> list[Site]:
        found = []
        for p in kernel_parsed(op):
            for a, b in flag_pairs(p):
                depth = sum(1 for x in ancestors(a) if x.type in LOOPS)
                if depth == 0:
                    continue
                ev = sync_info(p, a)
                assert ev is not None
                label = f"SetFlag/WaitFlag<{ev[1]}>({ev[2]}) {loop_label(p, a)}"
                found.append((-depth, len(found), self.site(p, a, label, detail=str(b.start_byte))))
        return [s for _, _, s in sorted(found, key=lambda t: (t[0], t[1]))]

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        a = find_node(p, site.start, site.end, "expression_statement")
        return remove_pair(p, a)


def remove_pair(p: Parsed, set_stmt: Node) -> list[Edit]:
    """Edits removing the flag pair ``set_stmt`` opens, with the id declaration that only feeds
    it and the braces of a bare block it leaves empty."""
    parts, block = pair_statements(p, set_stmt)
    if block is not None:
        return [remove_statement(p, block)]  # a bare block that held only the wait
    return [remove_statement(p, n) for n in parts]
