"""Enable double buffering: a queue initialised with one buffer -> two.

The inverse of the rewind motif ``double_buffer``: with one buffer per ``TQue``, the copy-in
of the next tile waits for the previous tile's ``FreeTensor``; with two, MTE2, V and MTE3 work
on different tiles at once. Sites: every three-argument ``InitBuffer`` whose count evaluates
to 1 when the count is a literal. A count given by a named constant (``BUFFER_NUM``) is left
alone: such constants are Stage II's knobs (the tiling search owns every numeric value the
tiling and the kernel agree on; Stage I owns code structure), so the two stages never fight
over one value. The tiling may have sized tiles for one buffer; a candidate that no longer
fits the UB fails in the simulator (``ub_overflow``) and is not kept.
"""

from __future__ import annotations

from ascendopt.cxx.parse import const_int_value
from ascendopt.cxx.syntax import call_args, calls
from ascendopt.operator import Operator
from ascendopt.refine.transforms import REWRITES
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed


@REWRITES.register
class EnableDoubleBuffer(Motif):
    name = "double_buffer"
    family = "pipeline_overlap"
    title = "Double-buffer the copy queues"
    mechanism = ("With two buffers per queue, MTE2 copies tile i+1 in while the vector unit computes tile i "
                 "and MTE3 copies tile i-1 out; the pipes overlap instead of taking turns.")
    bottleneck = "MTE2, V and MTE3 serialised per tile: every pipe idles while another works"
    direction = "optimize"

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, ["InitBuffer"]):
                args = call_args(call)
                if len(args) == 3 and const_int_value(p, args[1]) == 1:
                    sites.append(self.site(p, args[1], f"{p.text(args[0])}: 1 buffer -> 2"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        find_node(p, site.start, site.end)
        return [Edit(site.file, site.start, site.end, "2")]
