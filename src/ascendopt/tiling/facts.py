"""Per-function facts of a tiling function and a knob's role read off them (where its value
goes: :mod:`ascendopt.tiling.flow`, :mod:`ascendopt.tiling.cores`), never off identifier names.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, unparen, walk
from ascendopt.tiling.constant_roles import rounded_to
from ascendopt.tiling.cores import CORE_QUERY, core_clamps, core_grains
from ascendopt.tiling.flow import TilingFlow

if TYPE_CHECKING:
    from ascendopt.tiling.knobs import Knob

_MINMAX = {"min", "max", "std::min", "std::max", "Min", "Max", "MIN", "MAX"}
_COMPOUND = {"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "|=", "&=", "^="}


class FunctionFacts:
    """Per-function facts: core-count variables, out-parameters, accumulators, the def-use
    flow (where values go) and the variables holding a dtype's byte size."""

    def __init__(self, p: Parsed, body: Node, consts: dict[str, int] | None = None,
                 depth_fields: set[str] = frozenset()):
        self.core_vars: dict[str, str] = {}
        self.unstable: set[str] = set()
        self.flow: TilingFlow | None = TilingFlow.of(p, body, consts)
        self.type_sizes: set[str] = self.flow.type_size_vars()
        self.enums: set[str] = self.flow.enumerations()
        fields = self.flow.setter_args()
        self.direct_fields: set[str] = set().union(*fields.values()) if fields else set()
        self.depth_vars: set[str] = set().union(*(v for f, v in fields.items() if f in depth_fields)) \
            if fields else set()
        for n in walk(body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
                if name and val is not None:
                    m = CORE_QUERY.search(p.text(val))
                    if m:
                        self.core_vars[name] = "aic" if m.group(1) in ("Aic", "Cube") else "aiv"
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                op = n.child_by_field_name("operator")
                if left is not None and left.type == "identifier" and op is not None and p.text(op) in _COMPOUND:
                    self.unstable.add(p.text(left))
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    self.unstable.add(p.text(arg))
            elif n.type == "call_expression" and n.parent is not None and n.parent.type == "expression_statement":
                fn = n.child_by_field_name("function")
                fname = p.text(fn).split("::")[-1].split(".")[-1].split("->")[-1] if fn is not None else ""
                if p.text(fn) in _MINMAX or fname.lower().startswith("set"):
                    continue  # setters read their argument; only other calls fill out-parameters
                args = n.child_by_field_name("arguments")
                for a in (args.named_children if args is not None else []):
                    a = unparen(a)
                    if a.type == "pointer_expression":
                        a = a.named_children[-1] if a.named_children else a
                    if a.type == "identifier":
                        self.unstable.add(p.text(a))
            elif n.type == "for_statement":
                init = n.child_by_field_name("initializer")
                if init is not None:
                    for d in walk(init):
                        if d.type == "init_declarator":
                            nm = declarator_name(p, d.child_by_field_name("declarator"))
                            if nm:
                                self.unstable.add(nm)
        flow = self.flow
        self.core_clamps: set[str] = core_clamps(flow, self.core_vars)
        self.core_grains: set[str] = core_grains(flow, self.core_vars)
        self.core_divisors: set[str] = core_grains(flow, self.core_vars, direct=True)
        self.byte_counts: set[str] = flow.byte_counts(self.type_sizes)
        self.granules: dict[str, int] = rounded_to(p, body, flow.consts)

    def uses(self, knob: Knob) -> Knob:
        """``knob`` with its role, byte-ness and granule read off the flow."""
        return replace(knob, role=use_role(self, knob.name), bytes=knob.name in self.byte_counts,
                       granule=self.granules.get(knob.name, 0))


def use_role(facts: FunctionFacts | None, name: str) -> str:
    """A knob's role from where its value goes in the tiling function, first match:

    * ``block_dim``: straight into ``SetBlockDim``;
    * ``core_cap``: computed from a core-count query, or bounding a core count from above
      (``min(cores, K)``, a ternary, ``if (cores > K) cores = K``: :meth:`TilingFlow.core_clamps`);
    * ``buffer_num``: the tiling field the kernel uses as a queue depth;
    * ``tile``: straight into a tiling-data field;
    * ``ub_parts``: divides the UB capacity;
    * ``ub_reserve``: subtracted from the UB capacity (UB the tiles do not get);
    * ``core_grain``: divides the work into the core count (work per core);
    * ``tile``: reaches a tiling-data field or the block dim otherwise; else ``other``.
    """
    flow = facts.flow if facts is not None else None
    if flow is None:
        return "other"
    if name in flow.call_arg_vars(["SetBlockDim"]):
        return "block_dim"
    if flow.closure([name]) & set(facts.core_vars) or name in facts.core_clamps:
        return "core_cap"
    if name in facts.depth_vars:
        return "buffer_num"   # the tiling field the kernel uses as a queue depth
    if name in facts.direct_fields:
        return "tile"
    if name in flow.ub_divisors():
        return "ub_parts"
    if name in flow.subtracted_from_ub():
        return "ub_reserve"
    if name in facts.core_grains:
        return "core_grain"
    if name in flow.tiling_data_sources() or name in flow.block_dim_sources():
        return "tile"
    return "other"
