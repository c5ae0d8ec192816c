"""Shared by the host-side motifs (``shrink_tile``, ``fewer_cores``): the Stage II knobs of an
operator and a name-level def-use graph of its tiling function, so a knob's *mechanism* (does
its value reach the block dim? a tiling-data field? the UB size left for tiles?) is read off
the syntax tree, not off identifier names.

The graph itself is :class:`ascendopt.tiling.flow.TilingFlow`, shared with knob extraction.
"""

from __future__ import annotations

from ascendopt.cxx.parse import parse, walk
from ascendopt.operator import Operator
from ascendopt.tiling.flow import TilingFlow
from ascendopt.tiling.knobs import Knob
from ascendopt.tiling.space import KnobSpace
from ascendopt.transforms.base import Edit, MotifError, Site


def tiling_flow(op: Operator, space: KnobSpace) -> TilingFlow | None:
    """The def-use flow of ``op``'s tiling function (None when it has none)."""
    tpl = space.template
    if tpl is None:
        return None
    p = parse(tpl.file, op.files[tpl.file])
    fn = next((n for n in walk(p.tree.root_node)
               if n.type == "function_definition" and n.start_byte == tpl.func_start), None)
    body = None if fn is None else fn.child_by_field_name("body")
    return None if body is None else TilingFlow.of(p, body)


def knob_site(motif: str, k: Knob, value: int, label: str) -> Site:
    return Site(motif, k.file, k.line, label, k.start, k.end, f"{k.id}={value}")


def knob_edits(op: Operator, site: Site, soc: str) -> list[Edit]:
    """Edits writing the value a knob site names (``detail`` = ``<knob id>=<value>``) into
    every span of the knob (clamp twins, host + kernel copies)."""
    kid, _, v = site.detail.rpartition("=")
    space = KnobSpace.from_operator(op, soc)
    try:
        k = space[kid]
    except KeyError:
        raise MotifError(f"{site.motif}: no knob {kid!r} in {op.name}") from None
    if (k.file, k.start, k.end) != (site.file, site.start, site.end):
        raise MotifError(f"{site.motif}: knob {kid!r} is not at {site.file}:{site.line}")
    return [Edit(s.file, s.start, s.end, k.render_value(int(v))) for s in k.spans]
