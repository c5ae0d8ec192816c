"""Load reused inputs into UB once, outside the tile loop (optimization ``reread_gm``, family ``data_reuse``).

Motif ``reread_gm`` (rewind, removes it): Re-load a reused input from GM in every tile instead of once before the tile loop.

Strong kernels load data that every tile needs (a gamma/beta row, a broadcast operand, a
chunk reused across rows) into UB once, before the tile loop, and read it from UB in every
iteration. The rewind direction re-issues that load at the top of the loop body, with the
synchronisation it then needs: the new load must not overwrite the tensor while the vector
work of the previous tile still reads it (V->MTE2 event before the load) and the tile's vector
work must wait for it (MTE2->V event after the load).

Sites: a statement before a tile loop (see :mod:`._tileloop`), in the same function and in a
block enclosing the loop, that is

* a ``DataCopy``/``DataCopyPad`` from a ``GlobalTensor`` into a ``LocalTensor``, or
* a call of a method of the same class whose body directly copies a ``GlobalTensor`` into one
  of its ``LocalTensor`` parameters (``LoadRow(yLocal, yGm[c0], n)``), the destination being the
  argument passed there,

whose destination tensor is read in the loop — named in the loop body, or assigned to a
variable (``gammaFp32 = gammaLocal;``, possibly in an ``if constexpr`` branch) that the loop body
or the methods it calls name — and where re-running the statement in the loop is equivalent:
no variable the statement uses is assigned in the loop (or in the methods it calls) or between
the statement and the loop (except re-binding the destination to a ``DeQue`` of its queue), and
the destination (or its alias) is not the destination operand of any call in the loop or
between the load and the loop.

Not handled (skipped, never rewritten): a load hidden in a method that also allocates the
tensor (``LocalTensor<T> g = LoadParam(gammaGm);`` — the statement is a declaration, re-running it
would allocate queue buffers every tile); loads whose destination the loop reads with scalar
``GetValue`` (that would need an MTE2->S event as well); loads nested in a branch.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.defuse import assigned_names
from ascendopt.cxx.parse import declarator_name
from ascendopt.cxx.scope import Ctx, method_callees, reached_methods, statements_before, tensor_kind
from ascendopt.cxx.syntax import base_name, call_args, callee_name, identifiers, own_calls, own_nodes
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, Motif, Site, body_start_insert, find_node, kernel_parsed
from ascendopt.transforms.library._tileloop import TileLoop, event_sync, is_gm_load, tile_loops
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="reread_gm",
    family="data_reuse",
    title="Load reused inputs into UB once, outside the tile loop",
    mechanism="Data every tile needs is moved from GM to UB once and then read from UB, so each tile pays "
              "only for its own input bytes and no extra MTE2 transfer or synchronisation.",
    bottleneck="The reused tensor is re-fetched from GM every tile: extra MTE2 bytes and a DMA start per "
               "tile, plus a V->MTE2 and an MTE2->V wait that stall both the copy-in and the compute",
    relieves=("memory_bound", "serialized_pipes"),
)


def _param_names(ctx: Ctx, fn: Node) -> list[str]:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    params = None if decl is None else decl.child_by_field_name("parameters")
    out = []
    for prm in ([] if params is None else params.named_children):
        if prm.type in ("parameter_declaration", "optional_parameter_declaration"):
            out.append(declarator_name(ctx.p, prm.child_by_field_name("declarator")) or "")
    return out


def load_destination(ctx: Ctx, stmt: Node) -> str | None:
    """Name of the local tensor a GM-load statement fills, else None."""
    if stmt.type != "expression_statement":
        return None
    call = next((c for c in stmt.named_children if c.type != "comment"), None)
    if call is None or call.type != "call_expression":
        return None
    if is_gm_load(ctx, call):
        return base_name(ctx.p, call_args(call)[0])
    for c, m in method_callees(ctx, stmt):
        if c != call:
            continue
        mctx = ctx.callee_ctx(m)
        params = _param_names(ctx, m)
        args = call_args(call)
        for inner in own_calls(m.child_by_field_name("body")):
            if not is_gm_load(mctx, inner):
                continue
            dst = base_name(ctx.p, call_args(inner)[0])
            if dst in params and params.index(dst) < len(args):
                arg = args[params.index(dst)]
                if tensor_kind(ctx, arg) == "local":
                    return base_name(ctx.p, arg)
    return None


def _call_destinations(ctx: Ctx, roots: list[Node]) -> list[tuple[str, Node]]:
    """(name, call) for names passed as first (destination) argument of a call under ``roots``."""
    out = []
    for r in roots:
        for c in own_calls(r):
            args = call_args(c)
            if args and callee_name(ctx.p, c) not in ("FreeTensor", "EnQue"):
                nm = base_name(ctx.p, args[0])
                if nm:
                    out.append((nm, c))
    return out


def exclusive(a: Node, b: Node) -> bool:
    """``a`` and ``b`` sit in different branches of one ``if`` (never both run)."""
    anc_a = [a]
    n = a.parent
    while n is not None:
        anc_a.append(n)
        n = n.parent
    ids = {x.id: i for i, x in enumerate(anc_a)}
    child_b, n = b, b.parent
    while n is not None and n.id not in ids:
        child_b, n = n, n.parent
    if n is None or n.type != "if_statement":
        return False
    child_a = anc_a[ids[n.id] - 1] if ids[n.id] > 0 else None
    cons = n.child_by_field_name("consequence")
    alt = n.child_by_field_name("alternative")
    branches = {x.id for x in (cons, alt) if x is not None}
    return (child_a is not None and child_a.id != child_b.id
            and child_a.id in branches and child_b.id in branches)


def _writes(ctx: Ctx, roots: list[Node], dest: str) -> set[str]:
    """Assigned names under ``roots``, not counting ``dest = q.DeQue<T>()`` (same buffer)."""
    out = set()
    for r in roots:
        for n in own_nodes(r):
            if n.type == "assignment_expression":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                nm = None if left is None else base_name(ctx.p, left)
                if (nm == dest and right is not None and right.type == "call_expression"
                        and callee_name(ctx.p, right) == "DeQue"):
                    continue
                if nm:
                    out.add(nm)
        out |= assigned_names(ctx.p, r) - {dest}
    return out


def _aliases(ctx: Ctx, roots: list[Node], dest: str) -> dict[str, list[Node]]:
    """Variables assigned the destination tensor itself (``alias = dest;``) -> those assignments."""
    out: dict[str, list[Node]] = {}
    for r in roots:
        for n in own_nodes(r):
            if n.type == "assignment_expression":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if right is not None and base_name(ctx.p, right) == dest and right.type in ("identifier",):
                    nm = base_name(ctx.p, left) if left is not None else None
                    if nm:
                        out.setdefault(nm, []).append(n)
    return out


def reread_sites(t: TileLoop) -> list[tuple[Node, str]]:
    """(load statement, destination) pairs that can be re-issued in tile loop ``t``."""
    ctx = t.ctx
    p = ctx.p
    before = statements_before(t.loop, ctx.fn)
    loop_roots = [t.body] + [m.child_by_field_name("body") for m in reached_methods(ctx, t.body)]
    loop_roots = [r for r in loop_roots if r is not None]
    loop_ids = set().union(*(identifiers(p, r, nested=False) for r in loop_roots))
    out = []
    for i, s in enumerate(before):
        dest = load_destination(ctx, s)
        if not dest:
            continue
        between = before[i + 1:]
        aliases = _aliases(ctx, between, dest)
        names = {dest} | set(aliases)
        if not names & loop_ids:
            continue  # not read in the loop
        used = identifiers(p, s, nested=False)
        if used & (_writes(ctx, loop_roots, dest) | _writes(ctx, between, dest)):
            continue  # re-running would read changed operands
        if dest in assigned_names(p, t.body) or names & {nm for nm, _ in _call_destinations(ctx, loop_roots)}:
            continue  # the loop modifies the tensor: a reload would clobber it
        if any(nm == dest or (nm in aliases and not all(exclusive(c, a) for a in aliases[nm]))
               for nm, c in _call_destinations(ctx, between)):
            continue  # modified between the load and the loop (an alias only when it can alias)
        scalar_reads = {base_name(p, c.child_by_field_name("function").child_by_field_name("argument"))
                        for r in loop_roots for c in own_calls(r)
                        if callee_name(p, c) == "GetValue"
                        and c.child_by_field_name("function").type == "field_expression"}
        if names & scalar_reads:
            continue
        out.append((s, dest))
    return out


@register
class RereadGm(Motif):
    name = "reread_gm"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for t in tile_loops(p):
                for s, dest in reread_sites(t):
                    sites.append(self.site(p, s, f"{t.label()}: reload {dest} from GM each tile "
                                                 f"(loaded at line {p.line(s.start_byte)})",
                                           detail=f"{t.loop.start_byte}:{t.loop.end_byte}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        ls, le = (int(x) for x in site.detail.split(":"))
        loop = find_node(p, ls, le, "for_statement")
        t = next(t for t in tile_loops(p) if t.loop.id == loop.id)
        if not any(s.id == stmt.id for s, _ in reread_sites(t)):
            raise ValueError(f"reread_gm: {site.label} is no longer a site")
        lines = (event_sync(t.ctx, loop.start_byte, "V_MTE2", "_aoEvVM") + [p.text(stmt)]
                 + event_sync(t.ctx, loop.start_byte, "MTE2_V", "_aoEvMV"))
        return [body_start_insert(p, t.body, lines)]
