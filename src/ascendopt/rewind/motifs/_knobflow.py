"""Shared by the host-side motifs (``shrink_tile``, ``fewer_cores``): the Stage II knobs of an
operator and a name-level def-use graph of its tiling function, so a knob's *mechanism* (does
its value reach the block dim? a tiling-data field? the UB size left for tiles?) is read off
the syntax tree, not off identifier names.

The graph is deliberately coarse: every variable depends on every identifier of every value
assigned to it anywhere in the function (declarations, ``=`` and compound assignments), and a
call statement's identifier arguments depend on all of its arguments (out-parameters:
``GetCoreMemSize(UB, ubSize)``, ``Split(n, tile, tileNum, tail)``). Control dependence is
ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.operator import Operator
from ascendopt.rewind.motifs.base import Edit, MotifError, Site, call_args, callee_name, calls
from ascendopt.tiling.cparse import Parsed, declarator_name, parse, walk
from ascendopt.tiling.knobs import Knob
from ascendopt.tiling.space import KnobSpace

UB_SIZE_QUERIES = ("GetCoreMemSize",)   # platform query whose last argument receives the UB size


def identifiers(p: Parsed, node: Node | None) -> set[str]:
    if node is None:
        return set()
    return {p.text(n) for n in walk(node) if n.type == "identifier"}


@dataclass
class TilingFlow:
    """Def-use facts of one operator's tiling function."""

    parsed: Parsed
    body: Node
    deps: dict[str, set[str]]

    @staticmethod
    def of(op: Operator, space: KnobSpace) -> TilingFlow | None:
        tpl = space.template
        if tpl is None:
            return None
        p = parse(tpl.file, op.files[tpl.file])
        fn = next((n for n in walk(p.tree.root_node)
                   if n.type == "function_definition" and n.start_byte == tpl.func_start), None)
        body = None if fn is None else fn.child_by_field_name("body")
        if body is None:
            return None
        deps: dict[str, set[str]] = {}
        for n in walk(body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                if name:
                    deps.setdefault(name, set()).update(identifiers(p, n.child_by_field_name("value")))
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    deps.setdefault(p.text(left), set()).update(identifiers(p, n.child_by_field_name("right")))
            elif n.type == "call_expression" and n.parent is not None and n.parent.type == "expression_statement":
                args = call_args(n)
                every = set().union(*(identifiers(p, a) for a in args)) if args else set()
                for a in args:
                    if a.type == "identifier":
                        deps.setdefault(p.text(a), set()).update(every - {p.text(a)})
        return TilingFlow(p, body, deps)

    def closure(self, roots: Iterable[str]) -> set[str]:
        """Every identifier the values of ``roots`` are computed from (roots included)."""
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            todo.extend(self.deps.get(v, ()))
        return seen

    def call_arg_vars(self, names: Iterable[str], prefix: str = "") -> set[str]:
        """Identifiers in the arguments of calls named ``names`` (or starting with ``prefix``)."""
        wanted = set(names)
        out: set[str] = set()
        for c in calls(self.parsed, None, self.body):
            nm = callee_name(self.parsed, c)
            if nm in wanted or (prefix and nm.startswith(prefix)):
                for a in call_args(c):
                    out |= identifiers(self.parsed, a)
        return out

    def block_dim_sources(self) -> set[str]:
        """Everything the ``SetBlockDim`` argument is computed from."""
        return self.closure(self.call_arg_vars(["SetBlockDim"]))

    def tiling_data_sources(self) -> set[str]:
        """Everything a tiling-data field (``tiling.set_<field>(v)``) is computed from."""
        return self.closure(self.call_arg_vars([], prefix="set_"))

    def ub_size_vars(self) -> set[str]:
        """Variables receiving the UB capacity (last argument of ``GetCoreMemSize``)."""
        out = set()
        for c in calls(self.parsed, UB_SIZE_QUERIES, self.body):
            args = call_args(c)
            if args and args[-1].type == "identifier":
                out.add(self.parsed.text(args[-1]))
        return out

    def subtracted_from_ub(self) -> set[str]:
        """Identifiers that reach the subtrahend of ``a - b`` where ``a`` derives from the UB
        size: what the tiles do *not* get."""
        ub = self.ub_size_vars()
        if not ub:
            return set()
        out: set[str] = set()
        for n in walk(self.body):
            if n.type != "binary_expression":
                continue
            o = n.child_by_field_name("operator")
            if o is None or self.parsed.text(o) != "-":
                continue
            if self.closure(identifiers(self.parsed, n.child_by_field_name("left"))) & ub:
                out |= self.closure(identifiers(self.parsed, n.child_by_field_name("right")))
        return out


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
