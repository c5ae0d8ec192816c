"""What the TPipe queues of a file order: the position of each queue, and whether every GM load
fills a tile of a VECIN queue (every GM store drains a tile of a VECOUT queue).

A VECIN queue's ``EnQue``/``DeQue`` hand-over carries MTE2 -> V for the tile (the vector unit
waits for the copy-in), its ``FreeTensor``/``AllocTensor`` carries V -> MTE2 (the next copy-in
into the buffer waits for the vector reads); a VECOUT queue carries V -> MTE3 and MTE3 -> V the
same way. When every DMA of a direction moves a queue's tile, those hand-overs already order
everything an explicit flag on that pipe pair would.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from ascendopt.cxx.instructions import DMA_OPS
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, walk
from ascendopt.cxx.scope import make_ctx, tensor_kind
from ascendopt.cxx.syntax import call_args, callee_name, calls, function_defs, receiver, root_name

#: Data movement the analysis does not see as a DataCopy of tensors: the Matmul API, the CCE copy
#: intrinsics (``copy_gm_to_ubuf_align_b32``...) and raw addresses taken from tensors.
_RAW = re.compile(rb"\bMatmul\b|REGIST_MATMUL_OBJ|\bcopy_(?:gm|ubuf|cbuf|cc|matrix)\w*|\bGetPhyAddr\b")
_POSITION = re.compile(r"\bTQue\s*<\s*(?:[\w:]*::)?(\w+)\s*[,>]")


def queue_positions(p: Parsed) -> dict[str, str]:
    """Queue variable -> position (``VECIN``, ``VECOUT``, ``A1``...) for every ``TQue`` the file
    declares (fields and locals)."""
    out = {}
    for d in of_type(p, "field_declaration", "declaration"):
        t = d.child_by_field_name("type")
        m = _POSITION.search(p.text(t)) if t is not None else None
        if m is None:
            continue
        for dec in d.children_by_field_name("declarator"):
            name = declarator_name(p, dec)
            if name:
                out[name] = m.group(1)
    return out


def _origin(p: Parsed, fn: Node, name: str) -> tuple[str, str] | None:
    """(method, queue) of ``name``'s declaration ``T name = q.AllocTensor<...>()`` / ``q.DeQue<...>()``
    in ``fn``, else None."""
    for d in walk(fn.child_by_field_name("body")):
        if d.type == "init_declarator" and declarator_name(p, d.child_by_field_name("declarator")) == name:
            v = d.child_by_field_name("value")
            if v is not None and v.type == "call_expression" and receiver(p, v):
                return callee_name(p, v), receiver(p, v)
            return None
    return None


#: Methods that hand out a local tensor (``auto x = q.AllocTensor<T>()`` is local whatever it is declared as).
_LOCAL_FACTORIES = frozenset({"AllocTensor", "DeQue", "Get", "GetWithOffset"})


def _kind(p: Parsed, ctx, fn: Node, expr: Node) -> str | None:
    """``global``/``local`` as :func:`~ascendopt.cxx.scope.tensor_kind` says, and ``local`` for a
    variable initialised from a queue or buffer (``auto x = inQ.DeQue<T>()``)."""
    kind = tensor_kind(ctx, expr)
    if kind is None and (name := root_name(p, expr)) is not None:
        origin = _origin(p, fn, name)
        if origin is not None and origin[0] in _LOCAL_FACTORIES:
            return "local"
    return kind


def _only_uses(p: Parsed, fn: Node, name: str, allowed: set[int]) -> bool:
    """Every occurrence of ``name`` in ``fn``'s body is its declaration, an argument of a call in
    ``allowed`` (ids), or of ``EnQue``/``FreeTensor``."""
    for u in walk(fn.child_by_field_name("body")):
        if u.type != "identifier" or p.text(u) != name:
            continue
        par = u.parent
        if par is not None and par.type == "init_declarator" and par.child_by_field_name("declarator") == u:
            continue
        call = par.parent if par is not None and par.type == "argument_list" else None
        if call is None:
            if par is not None and par.type == "subscript_expression" and par.parent is not None \
                    and par.parent.type == "argument_list" and par.parent.parent.id in allowed:
                continue
            return False
        if call.id in allowed or callee_name(p, call) in ("EnQue", "FreeTensor"):
            continue
        return False
    return True


def dma_through_queues(p: Parsed, direction: str, positions: dict[str, str] | None = None) -> bool:
    """Every GM DMA of ``direction`` (``load``: GM -> local, ``store``: local -> GM) in the file
    moves a tile of a queue at the matching position -- a load fills a tensor allocated from a
    VECIN queue that is only filled by loads and enqueued, a store drains a tensor dequeued from
    a VECOUT queue that is only stored and freed -- and the file moves no data any other way
    (:data:`_RAW`: the ``Matmul`` API, CCE copy intrinsics, raw ``GetPhyAddr`` addresses)."""
    if _RAW.search(p.src):
        return False
    positions = queue_positions(p)
    want = ("AllocTensor", "VECIN") if direction == "load" else ("DeQue", "VECOUT")
    for fn in function_defs(p):
        ctx = None
        dmas: dict[str, list[Node]] = {}
        for c in calls(p, DMA_OPS, fn.child_by_field_name("body")):
            args = call_args(c)
            if len(args) < 3:
                continue
            ctx = ctx or make_ctx(p, fn)
            kinds = tuple(_kind(p, ctx, fn, a) for a in args[:2])
            if kinds == (("local", "global") if direction == "load" else ("global", "local")):
                tile = root_name(p, args[0] if direction == "load" else args[1])
                if tile is None:
                    return False
                dmas.setdefault(tile, []).append(c)
            elif "global" in kinds and None in kinds:
                return False  # a GM copy whose other operand the analysis cannot classify
        for tile, cs in dmas.items():
            origin = _origin(p, fn, tile)
            if origin is None or origin[0] != want[0] or positions.get(origin[1]) != want[1]:
                return False
            if not _only_uses(p, fn, tile, {c.id for c in cs}):
                return False
    return True
