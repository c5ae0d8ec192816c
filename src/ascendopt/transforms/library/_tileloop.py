"""Tile loops, the structure the tile-loop motifs (pipe_barrier, serialize_copy_compute,
reread_gm, invariant_into_loop) work on, read through the C++ analysis layer
(:mod:`ascendopt.cxx`: method following in :mod:`~ascendopt.cxx.scope`).

A *tile loop* is a ``for`` loop whose body, directly or through methods of the same class it
calls, issues queue operations (``AllocTensor``/``EnQue``/``DeQue``) or a DMA between global
memory and a local buffer (``DataCopy``/``DataCopyPad`` with a ``GlobalTensor`` operand).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.instructions import DMA_OPS, QUEUE_OPS, VECTOR_OPS
from ascendopt.cxx.parse import Parsed, declarator_name
from ascendopt.cxx.scope import Ctx, declared_type, make_ctx, parameters, reaches, tensor_kind
from ascendopt.cxx.syntax import call_args, callee_name, function_defs, own_nodes, receiver


def is_queue_op(ctx: Ctx, call: Node) -> bool:
    return callee_name(ctx.p, call) in QUEUE_OPS and bool(receiver(ctx.p, call))


def is_gm_copy(ctx: Ctx, call: Node) -> bool:
    if callee_name(ctx.p, call) not in DMA_OPS:
        return False
    args = call_args(call)
    return len(args) >= 3 and "global" in (tensor_kind(ctx, args[0]), tensor_kind(ctx, args[1]))


def is_gm_load(ctx: Ctx, call: Node) -> bool:
    """GM -> local DMA (``DataCopy(local, global, ...)``, ``DataCopyPad(local, global, ...)``)."""
    if callee_name(ctx.p, call) not in DMA_OPS:
        return False
    args = call_args(call)
    return len(args) >= 3 and tensor_kind(ctx, args[0]) == "local" and tensor_kind(ctx, args[1]) == "global"


def is_vector_op(ctx: Ctx, call: Node) -> bool:
    fn = call.child_by_field_name("function")
    return (callee_name(ctx.p, call) in VECTOR_OPS and fn is not None and fn.type != "field_expression")


def is_tile_work(ctx: Ctx, call: Node) -> bool:
    return is_queue_op(ctx, call) or is_gm_copy(ctx, call)


@dataclass(frozen=True)
class TileLoop:
    ctx: Ctx
    loop: Node

    @property
    def body(self) -> Node:
        return self.loop.child_by_field_name("body")

    def label(self) -> str:
        p = self.ctx.p
        cond = self.loop.child_by_field_name("condition")
        c = "" if cond is None else " ".join(p.text(cond).split())
        return f"{self.ctx.name}:{p.line(self.loop.start_byte)} for ({c})"


def tile_loops(p: Parsed) -> list[TileLoop]:
    """Every ``for`` loop with a braced body that issues queue operations or GM DMAs (directly or
    through methods of the same class), in source order."""
    out = []
    for fn in function_defs(p):
        ctx = None
        for n in own_nodes(fn.child_by_field_name("body")):
            if n.type != "for_statement":
                continue
            body = n.child_by_field_name("body")
            if body is None or body.type != "compound_statement":
                continue
            ctx = ctx or make_ctx(p, fn)
            if reaches(ctx, body, is_tile_work):
                out.append(TileLoop(ctx, n))
    return sorted(out, key=lambda t: t.loop.start_byte)


def pipe_prefix(ctx: Ctx, before: int) -> str:
    """Expression prefix to call a TPipe method: a class field or a local/parameter of type
    ``TPipe`` (``pipe.``) or ``TPipe*`` (``pipe->``), else ``AscendC::GetTPipePtr()->``."""
    p, fn = ctx.p, ctx.fn

    def is_pipe(t: str | None) -> str | None:
        if t is None:
            return None
        base = t.replace("const", "").replace("&", "").strip()
        ptr = base.endswith("*")
        base = base.rstrip("*").strip().split("::")[-1]
        if base != "TPipe":
            return None
        return "->" if ptr else "."

    for name, t in ctx.fields.items():
        s = is_pipe(t)
        if s:
            return name + s
    for n in own_nodes(fn.child_by_field_name("body")):
        if n.type == "declaration" and n.start_byte < before:
            for d in n.children_by_field_name("declarator"):
                inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                nm = declarator_name(p, inner)
                s = is_pipe(declared_type(p, n, nm) if nm else None)
                if s:
                    return nm + s
    for prm in parameters(fn):
        if prm.type == "parameter_declaration":
            t = prm.child_by_field_name("type")
            d = prm.child_by_field_name("declarator")
            nm = declarator_name(p, d)
            s = is_pipe(None if t is None else p.text(t) + ("*" if d is not None and d.type == "pointer_declarator" else ""))
            if s and nm:
                return nm + s
    return "AscendC::GetTPipePtr()->"


def event_sync(ctx: Ctx, before: int, event: str, var: str) -> list[str]:
    """Lines of a SetFlag/WaitFlag pair on ``HardEvent::<event>`` with an id fetched from the pipe,
    wrapped in a block so the id variable does not leak."""
    pre = pipe_prefix(ctx, before)
    e = f"AscendC::HardEvent::{event}"
    return [f"{{ AscendC::TEventID {var} = {pre}FetchEventID({e});",
            f"  AscendC::SetFlag<{e}>({var});",
            f"  AscendC::WaitFlag<{e}>({var}); }}"]
