"""Hoist a loop-invariant vector instruction out of its loop.

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
from ascendopt.cxx.defuse import written_names
from ascendopt.cxx.instructions import VECTOR_OPS
from ascendopt.cxx.parse import Parsed, declarator_name, walk
from ascendopt.cxx.syntax import LOOPS, call_args, callee_name, identifiers, is_method_call, root_name, statement_call
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import (
    Edit,
    Motif,
    Site,
    find_node,
    insert_before_statement,
    kernel_parsed,
    remove_statement,
)


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


@REWRITES.register
class HoistInvariant(Motif):
    name = "hoist_invariant"
    family = "loop_invariant_hoisting"
    title = "Hoist a loop-invariant vector instruction out of the tile loop"
    mechanism = ("An instruction whose operands do not change across iterations produces the same tensor "
                 "every time; computed once before the loop, its V-pipe time and the synchronisation around "
                 "it are paid once instead of once per tile.")
    bottleneck = "V pipe repeating identical setup work (Duplicate of constants, invariant scaling) every tile"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in walk(p.tree.root_node):
                if n.type == "expression_statement" and (loop := invariant(p, n)) is not None:
                    sites.append(self.site(p, n, f"{p.text(statement_call(n))} hoisted ({loop_label(p, loop)})"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        loop = invariant(p, stmt)
        return [insert_before_statement(p, loop, [p.text(stmt)]), remove_statement(p, stmt)]
