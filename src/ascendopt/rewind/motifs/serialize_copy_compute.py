"""Make the copy-in of tile i+1 wait for the vector work of tile i (an explicit V->MTE2 event).

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
"""

from __future__ import annotations

from ascendopt.cxx.parse import Parsed
from ascendopt.cxx.scope import reaches
from ascendopt.cxx.syntax import call_args, callee_name, calls
from ascendopt.operator import Operator
from ascendopt.rewind.motifs._tileloop import event_sync, is_gm_load, is_vector_op, tile_loops
from ascendopt.rewind.motifs.base import Edit, Motif, Site, body_start_insert, find_node, kernel_parsed, register
from ascendopt.rewind.motifs.double_buffer import int_constants, int_value


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
    family = "pipeline_overlap"
    title = "Let the next tile's copy-in overlap the current tile's compute"
    mechanism = ("With two or more input buffers the queue only makes MTE2 wait for the buffer it overwrites, "
                 "so the copy-in of tile i+1 runs while the vector unit computes tile i.")
    bottleneck = ("An explicit V->MTE2 wait per tile keeps MTE2 idle during every compute phase: copy-in and "
                  "compute alternate, MTE2 and V utilisation each drop, the double buffer is unused")

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
