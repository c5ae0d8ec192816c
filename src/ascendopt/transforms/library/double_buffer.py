"""Double-buffer the copy queues (optimization ``double_buffer``, family ``pipeline_overlap``).

Motif ``double_buffer`` (rewind, removes it): Remove double buffering: a queue's buffer count N >= 2 -> 1.

``pipe.InitBuffer(queue, N, bytes)`` gives a ``TQue`` N buffers, so the copy-in of tile i+1
(MTE2) can run while tile i is computed (V) and tile i-1 copied out (MTE3). With one buffer,
``AllocTensor`` of the next tile waits until the previous tile's ``FreeTensor``: the pipes run
one after another. Sites: every three-argument ``InitBuffer`` whose count evaluates to 2 or
more (a literal, or a namespace/class ``constexpr`` integer constant of the same file).

Rewrite ``double_buffer`` (Stage I, applies it): Enable double buffering: a queue initialised with one buffer -> two.

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

from ascendopt.cxx.parse import Parsed, const_int_value, declarator_name, walk
from ascendopt.cxx.syntax import call_args, calls
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, Motif, Rewrite, Site, find_node, kernel_parsed
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="double_buffer",
    family="pipeline_overlap",
    title="Double-buffer the copy queues",
    mechanism="With two buffers per queue, MTE2 copies tile i+1 in while the vector unit computes tile i "
              "and MTE3 copies tile i-1 out; the pipes overlap instead of taking turns.",
    bottleneck="MTE2, V and MTE3 serialised per tile: every pipe idles while another works",
    relieves=("serialized_pipes",),
)


def int_constants(p: Parsed) -> dict[str, int]:
    """Integer constants a file defines with literal-only initialisers (``constexpr int32_t
    BUFFER_NUM = 2;``, ``const uint32_t X = 8 * 32;``), by name; the first definition wins."""
    out: dict[str, int] = {}
    for n in walk(p.tree.root_node):
        if n.type != "declaration" or not any(c.type == "type_qualifier" for c in n.children):
            continue
        for d in n.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                continue
            name, value = declarator_name(p, d.child_by_field_name("declarator")), d.child_by_field_name("value")
            v = None if value is None else const_int_value(p, value)
            if name and v is not None:
                out.setdefault(name, v)
    return out


def int_value(p: Parsed, node, constants: dict[str, int]) -> int | None:
    """A literal-only integer expression's value, or a known constant's."""
    v = const_int_value(p, node)
    if v is None and node.type == "identifier":
        v = constants.get(p.text(node))
    return v


@register
class DoubleBuffer(Motif):
    name = "double_buffer"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            consts = int_constants(p)
            for call in calls(p, ["InitBuffer"]):
                args = call_args(call)
                if len(args) != 3:
                    continue  # TBuf.InitBuffer(buf, bytes): no buffer count
                n = int_value(p, args[1], consts)
                if n is not None and n >= 2:
                    sites.append(self.site(p, args[1], f"{p.text(args[0])}: {n} buffers -> 1"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        find_node(p, site.start, site.end)
        return [Edit(site.file, site.start, site.end, "1")]


@register
class EnableDoubleBuffer(Rewrite):
    name = "double_buffer"
    optimization = OPTIMIZATION
    anchors = ('call_expression',)

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
