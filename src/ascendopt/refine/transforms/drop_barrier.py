"""Drop a pipe barrier: a ``PipeBarrier<...>()`` statement removed.

A ``PipeBarrier<PIPE_ALL>`` drains every pipe before any continues; inside a tile loop it
serialises copy-in, compute and copy-out of successive tiles that the queues would otherwise
overlap. Whether a barrier was needed is not decided here: the candidate runs on the backend,
whose race checker reports a missing dependence as a ``race`` runtime error, and only correct
candidates are kept. Sites: every barrier statement, those inside loops first (innermost
first), then the others, each in source order.
"""

from __future__ import annotations

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.parse import walk
from ascendopt.cxx.sync import sync_info
from ascendopt.cxx.syntax import LOOPS, ancestors, statement_call
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, remove_statement


@REWRITES.register
class DropBarrier(Motif):
    name = "drop_barrier"
    family = "sync_elimination"
    title = "Drop a pipe barrier the data dependences do not need"
    mechanism = ("A PipeBarrier stalls every later instruction until the named pipes drain; without it, "
                 "queue and flag synchronisation still order the dependent accesses while independent "
                 "copies and compute of different tiles overlap.")
    bottleneck = "pipes idle at each barrier: MTE2, V and MTE3 take turns instead of overlapping"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        found = []
        for p in kernel_parsed(op):
            for n in walk(p.tree.root_node):
                info = sync_info(p, n) if n.type == "expression_statement" else None
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
