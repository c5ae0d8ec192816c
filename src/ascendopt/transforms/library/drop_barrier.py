"""Keep full-pipe barriers out of the tile loop (optimization ``drop_barrier``, family ``sync_elimination``).

Motif ``pipe_barrier`` (rewind, removes it): Put a full-pipe barrier into the tile loop: ``AscendC::PipeBarrier<PIPE_ALL>();``.

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

Rewrite ``drop_barrier`` (Stage I, applies it): Drop a pipe barrier: a ``PipeBarrier<...>()`` statement removed.

A ``PipeBarrier<PIPE_ALL>`` drains every pipe before any continues; inside a tile loop it
serialises copy-in, compute and copy-out of successive tiles that the queues would otherwise
overlap. Whether a barrier was needed is not decided here: the candidate runs on the backend,
whose race checker reports a missing dependence as a ``race`` runtime error, and only correct
candidates are kept. Sites: every barrier statement, those inside loops first (innermost
first), then the others, each in source order.
"""

from __future__ import annotations

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.parse import of_type
from ascendopt.cxx.scope import reaches
from ascendopt.cxx.sync import sync_info
from ascendopt.cxx.syntax import LOOPS, ancestors, callee_name, statement_call
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    body_start_insert,
    find_node,
    insert_after_statement,
    kernel_parsed,
    remove_statement,
)
from ascendopt.transforms.library._tileloop import TileLoop, is_gm_load, is_vector_op, tile_loops
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_barrier",
    family="sync_elimination",
    title="Keep full-pipe barriers out of the tile loop",
    mechanism="The queues' EnQue/DeQue already order each buffer's copy-in, compute and copy-out; without "
              "a PipeBarrier<PIPE_ALL> in the loop, MTE2, V and MTE3 of successive tiles run concurrently.",
    bottleneck="PipeBarrier<PIPE_ALL> per tile drains every pipe: MTE2, V and MTE3 work in turns, the "
               "double buffers go unused and each iteration pays the barrier latency",
    relieves=("serialized_pipes",),
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
    optimization = OPTIMIZATION

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


@register
class DropBarrier(Rewrite):
    name = "drop_barrier"
    optimization = OPTIMIZATION
    anchors = ('expression_statement',)

    def find(self, op: Operator) -> list[Site]:
        found = []
        for p in kernel_parsed(op):
            for n in of_type(p, "expression_statement"):
                info = sync_info(p, n)
                if info is None or info[0] != "barrier":
                    continue
                depth = sum(1 for a in ancestors(n) if a.type in LOOPS)
                label = f"{p.text(statement_call(n))} {loop_label(p, n)}"
                found.append((-depth, len(found), self.site(p, n, label, detail=info[1])))
        loop_first = sorted(found, key=lambda t: (t[0] == 0, t[0], t[1]))
        return [s for _, _, s in loop_first]

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        return [remove_statement(p, find_node(p, site.start, site.end, "expression_statement"))]
