"""Put a full-pipe barrier into the tile loop: ``AscendC::PipeBarrier<PIPE_ALL>();``.

Strong kernels synchronise the tile loop only through the queues (``EnQue``/``DeQue`` carry
exactly the MTE2->V and V->MTE3 dependences of one buffer), so MTE2, V and MTE3 of different
tiles run at the same time. ``PipeBarrier<PIPE_ALL>`` waits until *every* pipe has drained:
in a loop it turns the pipeline into a sequence of per-tile phases.

Sites: every tile loop — a ``for`` loop whose body, directly or through methods of the same
class it calls, issues queue operations (``AllocTensor``/``EnQue``/``DeQue``) or a GM<->local
``DataCopy``/``DataCopyPad`` — that does not already issue a ``PipeBarrier<PIPE_ALL>``.

Where the barrier goes: right after the copy-in, i.e. after the last top-level statement of
the loop body that issues a GM->local load or an ``EnQue`` and comes before the first
statement that dequeues or runs vector work; at the start of the body when there is no such
statement (e.g. the body is a single per-tile method call). That is where a careless kernel
writes it: the author "makes sure the data has arrived before computing on it" instead of
trusting the queue handshake. It is a full barrier, so the compute of tile i also waits for
the copy-out of tile i-1 and the next copy-in cannot start before the barrier's drain.
"""

from __future__ import annotations

from ascendopt.operator import Operator
from ascendopt.cxx.scope import reaches
from ascendopt.rewind.motifs._tileloop import TileLoop, is_gm_load, is_vector_op, tile_loops
from ascendopt.cxx.syntax import callee_name
from ascendopt.rewind.motifs.base import (
    Edit,
    Motif,
    Site,
    body_start_insert,
    find_node,
    insert_after_statement,
    kernel_parsed,
    register,
)

BARRIER = "AscendC::PipeBarrier<PIPE_ALL>();"


def _is_full_barrier(ctx, call) -> bool:
    if callee_name(ctx.p, call) != "PipeBarrier":
        return False
    fn = call.child_by_field_name("function")
    return "PIPE_ALL" in ctx.p.text(fn) or "<" not in ctx.p.text(fn)


def _is_dequeue_or_vector(ctx, call) -> bool:
    return callee_name(ctx.p, call) == "DeQue" or is_vector_op(ctx, call)


def _is_copy_in(ctx, call) -> bool:
    return is_gm_load(ctx, call) or callee_name(ctx.p, call) == "EnQue"


def copy_in_anchor(t: TileLoop):
    """The statement of the loop body after which the copy-in is complete, or None."""
    stmts = [s for s in t.body.named_children if s.type != "comment"]
    anchor = None
    for s in stmts:
        if reaches(t.ctx, s, _is_dequeue_or_vector):
            break
        if reaches(t.ctx, s, _is_copy_in):
            anchor = s
    return anchor


@register
class PipeBarrierInLoop(Motif):
    name = "pipe_barrier"
    family = "sync_elimination"
    title = "Keep full-pipe barriers out of the tile loop"
    mechanism = ("The queues' EnQue/DeQue already order each buffer's copy-in, compute and copy-out; without "
                 "a PipeBarrier<PIPE_ALL> in the loop, MTE2, V and MTE3 of successive tiles run concurrently.")
    bottleneck = ("PipeBarrier<PIPE_ALL> per tile drains every pipe: MTE2, V and MTE3 work in turns, the "
                  "double buffers go unused and each iteration pays the barrier latency")

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for t in tile_loops(p):
                if reaches(t.ctx, t.body, _is_full_barrier):
                    continue
                anchor = copy_in_anchor(t)
                where = "after copy-in" if anchor is not None else "at loop start"
                sites.append(self.site(p, t.loop, f"{t.label()}: PipeBarrier<PIPE_ALL> {where}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        t = next(t for t in tile_loops(p) if t.loop.id == loop.id)
        anchor = copy_in_anchor(t)
        if anchor is not None:
            return [insert_after_statement(p, anchor, [BARRIER])]
        return [body_start_insert(p, t.body, [BARRIER])]

