"""Drop a cast round trip: ``Cast(y, x, ...); Cast(x, y, ...);`` back to back.

Converting a tensor to another type and straight back costs two vector passes over it and,
for a narrowing first step, may round the values. When the first cast's result is not read
afterwards, the pair is at best a no-op. Sites: adjacent pairs of ``Cast`` statements whose
destination and source are swapped (also when the pair is the whole body of an ``if``, which
then goes too). Whether the result is unchanged is decided by running the candidate on every
case.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, walk
from ascendopt.cxx.syntax import call_args, callee_name, root_name, statement_call
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, remove_statement


def _cast_operands(p: Parsed, stmt: Node) -> tuple[str, str] | None:
    call = statement_call(stmt)
    if call is None or callee_name(p, call) != "Cast":
        return None
    args = call_args(call)
    if len(args) < 2:
        return None
    dst, src = root_name(p, args[0]), root_name(p, args[1])
    return (dst, src) if dst and src and dst != src else None


def _pairs(p: Parsed) -> list[tuple[Node, Node]]:
    out = []
    for block in walk(p.tree.root_node):
        if block.type != "compound_statement":
            continue
        stmts = [c for c in block.named_children if c.type != "comment"]
        for a, b in zip(stmts, stmts[1:]):
            oa, ob = _cast_operands(p, a), _cast_operands(p, b)
            if oa and ob and oa == (ob[1], ob[0]):
                out.append((a, b))
    return out


@REWRITES.register
class DropCastRoundTrip(Motif):
    name = "drop_cast_roundtrip"
    family = "cast_elimination"
    title = "Drop conversions the dtypes do not need"
    mechanism = ("Every Cast is a full vector pass over the tile; a conversion to another type and straight "
                 "back recomputes values that are already there.")
    bottleneck = "extra Cast instructions on the vector pipe"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for a, b in _pairs(p):
                oa = _cast_operands(p, a)
                assert oa is not None
                sites.append(self.site(p, a, f"Cast {oa[1]} -> {oa[0]} -> {oa[1]} (line {p.line(a.start_byte)})",
                                       detail=str(b.start_byte)))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        a = find_node(p, site.start, site.end, "expression_statement")
        b = next(y for x, y in _pairs(p) if x.start_byte == a.start_byte)
        block = a.parent
        owner = block.parent if block is not None else None
        if owner is not None and owner.type == "if_statement" and owner.child_by_field_name("alternative") is None \
                and [c for c in block.named_children if c.type != "comment"] == [a, b]:
            return [remove_statement(p, owner)]
        return [remove_statement(p, a), remove_statement(p, b)]
