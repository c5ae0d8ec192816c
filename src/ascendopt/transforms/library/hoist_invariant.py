"""Hoist loop-invariant vector setup out of the tile loop (optimization ``hoist_invariant``, family ``loop_invariant_hoisting``).

Motif ``invariant_into_loop`` (rewind, removes it): Repeat a loop-invariant vector setup instruction inside the tile loop.

Strong kernels compute what does not change from tile to tile — a constant tensor filled by
``Duplicate``, a parameter row widened by ``Cast``, a scaled copy of a weight — once, before the
tile loop. The rewind direction re-issues that instruction at the top of every iteration (the
original stays where it is, so the first tile sees the same values either way).

Sites: a vector-instruction statement (``Duplicate``, ``Cast``, ``Muls``, ...; see
``VECTOR_OPS``) that runs before a tile loop (see :mod:`._tileloop`) in the same function —
directly in a block enclosing the loop, or inside ``if`` branches there, whose conditions are
then repeated around the copy (``if constexpr (!std::is_same_v<T, float>) { Cast(...); }``) —
such that the copy computes the same value in every iteration:

* its destination is not one of its sources (no in-place update), and the destination tensor
  (or the ``TBuf`` it was taken from with ``Get``) is read in the loop (body or methods of the
  class it calls);
* neither the destination nor anything the statement reads (tensors, with their ``TBuf``, and
  scalars) is written in the loop or between the statement and the loop (assignments, and
  destination operands of calls, method calls included);
* the destination is only read by vector instructions in the loop (no ``DataCopy`` or
  ``GetValue`` of it), so the copy and its readers share the V pipe, which runs in order:
  no event is inserted. The simulator's race checker confirms this on the test operators.

Rewrite ``hoist_invariant`` (Stage I, applies it): Hoist a loop-invariant vector instruction out of its loop.

Sites: a statement ``Op(dst, args...)`` directly in a loop body (not under an ``if`` inside it),
``Op`` an AscendC vector instruction (``Duplicate``, ``Muls``, ``Add``, ``Cast``, ...), that
computes the same thing on every iteration. Dataflow on the tree decides it:

- no name the call uses (``dst``, the sources, scalars, the count) is written anywhere else in
  the loop: not assigned, not incremented, not declared in the loop (which also excludes the
  loop variable and tensors allocated per iteration), not the destination of another vector or
  copy instruction, not ``SetValue``'s receiver, not handed to ``EnQue``/``FreeTensor``, not
  written by a function of the same file called from the loop (its writes to fields and to the
  parameters the argument is passed for, two calls deep), and not passed to an unknown function;
- ``dst`` is not also a source of the call (``Adds(t, t, 1, n)`` accumulates);
- ``dst`` is not used in the loop body before the statement (the first iteration would read
  the hoisted value instead of the one from before the loop).

The statement moves to just before the loop. A loop that may run zero times now writes
``dst`` once anyway (a value nothing in the loop reads before writing it; code after the loop
reading ``dst`` would see it). Pipe ordering is checked by the backend's race detector.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.defuse import assigned_names, destinations, written_names
from ascendopt.cxx.instructions import VECTOR_OPS
from ascendopt.cxx.parse import Parsed, declarator_name, of_type
from ascendopt.cxx.scope import Ctx, reached_methods, statements_before, tensor_kind
from ascendopt.cxx.syntax import (
    LOOPS,
    base_name,
    call_args,
    callee_name,
    identifiers,
    is_method_call,
    own_calls,
    own_nodes,
    receiver,
    root_name,
    statement_call,
)
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    body_start_insert,
    find_node,
    insert_before_statement,
    kernel_parsed,
    remove_statement,
)
from ascendopt.transforms.library._tileloop import TileLoop, is_vector_op, tile_loops
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="hoist_invariant",
    family="loop_invariant_hoisting",
    title="Hoist loop-invariant vector setup out of the tile loop",
    mechanism="A fill, cast or scaling whose inputs do not change between tiles is computed once before the "
              "loop; every tile then spends the vector pipe only on its own data.",
    bottleneck="The invariant instruction is re-issued every tile: extra V-pipe cycles per iteration, "
               "longer compute phases the copies must wait for",
    relieves=("vector_bound",),
)


def buffers(p, roots: list[Node]) -> dict[str, str]:
    """name -> TBuf for tensors declared or assigned as ``buf.Get<T>(...)`` under ``roots``."""
    out: dict[str, str] = {}
    for r in roots:
        for n in own_nodes(r):
            name, value = None, None
            if n.type == "init_declarator":
                name, value = declarator_name(p, n.child_by_field_name("declarator")), n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                name, value = (base_name(p, left) if left is not None else None), n.child_by_field_name("right")
            if (name and value is not None and value.type == "call_expression"
                    and callee_name(p, value) in ("Get", "GetWithOffset") and receiver(p, value)):
                out.setdefault(name, receiver(p, value))
    return out


def _writes(ctx: Ctx, roots: list[Node]) -> set[str]:
    """Assigned names and non-scalar names passed as destination (first) operand of calls."""
    out = destinations(ctx, roots)
    for r in roots:
        out |= assigned_names(ctx.p, r)
    return out


def guards(p, stmt: Node, top: Node) -> list[str] | None:
    """``if`` headers to repeat around a copy of ``stmt`` (nested under statement ``top``), or
    None when a branch cannot be re-created (initialiser in the condition)."""
    out = []
    child = stmt
    for a in _up(stmt, top):
        if a.type == "if_statement":
            cond = a.child_by_field_name("condition")
            if cond is None or any(c.type in ("declaration", "init_statement") for c in cond.named_children):
                return None
            inner = [c for c in cond.named_children if c.type != "comment"]
            if len(inner) != 1:
                return None
            ce = "constexpr " if any(c.type == "constexpr" or p.text(c) == "constexpr" for c in a.children) else ""
            text = p.text(inner[0])
            alt = a.child_by_field_name("alternative")
            if alt is not None and child.id == alt.id:
                out.append(f"if {ce}(!({text}))")
            else:
                out.append(f"if {ce}({text})")
        elif a.type not in ("compound_statement", "else_clause"):
            return None  # loops, switches, ...: not a straight branch
        child = a
    return list(reversed(out))


def _up(node: Node, top: Node):
    """Ancestors of ``node`` up to and including ``top`` (none when ``node`` is ``top``)."""
    if node.id == top.id:
        return
    a = node.parent
    while a is not None:
        yield a
        if a.id == top.id:
            return
        a = a.parent


def _candidates(top: Node):
    """Expression statements of ``top`` reached through blocks and ``if`` branches only."""
    if top.type == "expression_statement":
        yield top
    elif top.type in ("compound_statement", "if_statement", "else_clause"):
        for c in top.named_children:
            if c.type in ("expression_statement", "compound_statement", "if_statement", "else_clause"):
                yield from _candidates(c)


def _declared_in(p, stmt: Node, top: Node) -> set[str]:
    """Names declared in the blocks between ``top`` and ``stmt`` (out of scope at the loop)."""
    out = set()
    for a in _up(stmt, top):
        if a.type == "compound_statement":
            for c in a.named_children:
                if c.type == "declaration":
                    for d in c.children_by_field_name("declarator"):
                        inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                        nm = declarator_name(p, inner)
                        if nm:
                            out.add(nm)
    return out


def invariant_sites(t: TileLoop) -> list[tuple[Node, list[str]]]:
    """(statement, guards) pairs that can be repeated at the top of tile loop ``t``."""
    ctx: Ctx = t.ctx
    p = ctx.p
    fn_body = ctx.fn.child_by_field_name("body")
    loop_roots = [t.body] + [b for m in reached_methods(ctx, t.body) if (b := m.child_by_field_name("body"))]
    loop_ids = set().union(*(identifiers(p, r, nested=False) for r in loop_roots))
    loop_bufs = buffers(p, loop_roots)
    loop_writes = _writes(ctx, loop_roots)
    loop_written_bufs = {loop_bufs[n] for n in loop_writes if n in loop_bufs}
    fn_bufs = buffers(p, [fn_body])
    non_vector_reads = set()
    for r in loop_roots:
        for c in own_calls(r):
            nm = callee_name(p, c)
            if nm in ("DataCopy", "DataCopyPad"):
                non_vector_reads |= {base_name(p, a) for a in call_args(c)}
            elif nm == "GetValue" and receiver(p, c):
                non_vector_reads.add(receiver(p, c))
    non_vector_bufs = {loop_bufs[n] for n in non_vector_reads if n in loop_bufs}
    out = []
    for top in statements_before(t.loop, ctx.fn):
        for s in _candidates(top):
            call = next((c for c in s.named_children if c.type != "comment"), None)
            if call is None or call.type != "call_expression" or not is_vector_op(ctx, call):
                continue
            args = call_args(call)
            if not args or tensor_kind(ctx, args[0]) != "local":
                continue
            dest = base_name(p, args[0])
            used = set().union(*(identifiers(p, a, nested=False) for a in args[1:])) if len(args) > 1 else set()
            if not dest or dest in used:
                continue
            buf = fn_bufs.get(dest)
            if dest not in loop_ids and (buf is None or buf not in loop_ids):
                continue  # not used by the loop
            g = guards(p, s, top)
            if g is None or (used | {dest}) & _declared_in(p, s, top):
                continue
            cond_ids = set().union(*(identifiers(p, n, nested=False) for n in _guard_nodes(s, top)))
            between = [n for n in own_nodes(fn_body)
                       if n.start_byte >= s.end_byte and n.end_byte <= t.loop.start_byte
                       and n.type in ("expression_statement", "declaration")]
            touched = used | cond_ids | {dest}
            tbufs = {fn_bufs[n] for n in touched if n in fn_bufs}
            if touched & (loop_writes | _writes(ctx, between)) or tbufs & loop_written_bufs:
                continue
            if dest in non_vector_reads or (buf is not None and buf in non_vector_bufs):
                continue
            out.append((s, g))
    return out


def _guard_nodes(stmt: Node, top: Node) -> list[Node]:
    return [a.child_by_field_name("condition") for a in _up(stmt, top)
            if a.type == "if_statement" and a.child_by_field_name("condition") is not None]


@register
class InvariantIntoLoop(Motif):
    name = "invariant_into_loop"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for t in tile_loops(p):
                for s, g in invariant_sites(t):
                    call = next(c for c in s.named_children if c.type != "comment")
                    dest = p.text(call_args(call)[0])
                    cond = f" [{' && '.join(x.split('(', 1)[1][:-1] for x in g)}]" if g else ""
                    sites.append(self.site(p, s, f"{t.label()}: repeat {callee_name(p, call)}({dest}, ...) "
                                                 f"from line {p.line(s.start_byte)} every tile{cond}",
                                           detail=f"{t.loop.start_byte}:{t.loop.end_byte}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        ls, le = (int(x) for x in site.detail.split(":"))
        loop = find_node(p, ls, le, "for_statement")
        t = next(t for t in tile_loops(p) if t.loop.id == loop.id)
        g = next((g for s, g in invariant_sites(t) if s.id == stmt.id), None)
        if g is None:
            raise ValueError(f"invariant_into_loop: {site.label} is no longer a site")
        code = p.text(stmt)
        for header in reversed(g):
            code = f"{header} {{ {code} }}"
        return [body_start_insert(p, t.body, [code])]


def invariant(p: Parsed, stmt: Node) -> Node | None:
    """The loop ``stmt`` can be hoisted out of, else None."""
    call = statement_call(stmt)
    if call is None or is_method_call(call) or callee_name(p, call) not in VECTOR_OPS:
        return None
    body = stmt.parent
    loop = body.parent if body is not None and body.type == "compound_statement" else None
    if loop is None or loop.type not in LOOPS or loop.child_by_field_name("body") != body:
        return None
    args = call_args(call)
    if not args:
        return None
    dst = root_name(p, args[0])
    if dst is None or any(dst in identifiers(p, a) for a in args[1:]):
        return None
    used = set().union(*(identifiers(p, a) for a in args))
    written: set[str] = set()
    for part in [c for c in body.named_children if c != stmt] + [loop.child_by_field_name(f) for f in
                                                                  ("initializer", "condition", "update")]:
        if part is not None:
            written |= written_names(p, part)
    if loop.type == "for_range_loop":
        written.add(declarator_name(p, loop.child_by_field_name("declarator")) or "")
    if used & written:
        return None
    for c in body.named_children:
        if c == stmt:
            break
        if dst in identifiers(p, c):
            return None
    return loop


@register
class HoistInvariant(Rewrite):
    name = "hoist_invariant"
    optimization = OPTIMIZATION
    anchors = ('expression_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in of_type(p, "expression_statement"):
                if (loop := invariant(p, n)) is not None:
                    sites.append(self.site(p, n, f"{p.text(statement_call(n))} hoisted ({loop_label(p, loop)})"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        loop = invariant(p, stmt)
        return [insert_before_statement(p, loop, [p.text(stmt)]), remove_statement(p, stmt)]
