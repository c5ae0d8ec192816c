"""Drop a blocking event wait inside a loop: ``SetFlag<E>(id); WaitFlag<E>(id);`` back to back.

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
from ascendopt.cxx.parse import Parsed, walk
from ascendopt.cxx.sync import sync_info
from ascendopt.cxx.syntax import LOOPS, ancestors
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, remove_statement


def _named(block: Node) -> list[Node]:
    return [c for c in block.named_children if c.type != "comment"]


def _pairs(p: Parsed) -> list[tuple[Node, Node]]:
    """(SetFlag statement, WaitFlag statement) adjacent pairs on the same event and id."""
    out = []
    for block in walk(p.tree.root_node):
        if block.type != "compound_statement":
            continue
        stmts = _named(block)
        for a, b in zip(stmts, stmts[1:]):
            ia, ib = sync_info(p, a), sync_info(p, b)
            if ia and ib and ia[0] == "set" and ib[0] == "wait" and ia[1:] == ib[1:]:
                out.append((a, b))
    return out


def _feeding_decl(p: Parsed, set_stmt: Node, event_id: str) -> Node | None:
    """The declaration just before the pair that defines the event id (``TEventID e = ...``)."""
    prev = set_stmt.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "declaration":
        return None
    names = [p.text(d.child_by_field_name("declarator")) for d in prev.children_by_field_name("declarator")
             if d.type == "init_declarator"]
    return prev if names == [event_id] else None


@REWRITES.register
class DropEventWait(Motif):
    name = "drop_event_wait"
    family = "pipeline_overlap"
    title = "Let the next tile's copy-in overlap the current tile's compute"
    mechanism = ("A SetFlag immediately followed by its WaitFlag stalls the destination pipe until the source "
                 "pipe drains; queues already order the dependent accesses, so without the wait the copies of "
                 "one tile overlap the compute of another.")
    bottleneck = "a pipe waits every tile for another: copy-in, compute and copy-out take turns"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        found = []
        for p in kernel_parsed(op):
            for a, b in _pairs(p):
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
        b = next(y for x, y in _pairs(p) if x.start_byte == a.start_byte)
        info = sync_info(p, a)
        assert info is not None
        decl = _feeding_decl(p, a, info[2])
        block = a.parent
        parts = [n for n in (decl, a, b) if n is not None]
        if block is not None and block.parent is not None and block.parent.type == "compound_statement" \
                and _named(block) == parts:
            return [remove_statement(p, block)]  # a bare block that held only the wait
        return [remove_statement(p, n) for n in parts]
