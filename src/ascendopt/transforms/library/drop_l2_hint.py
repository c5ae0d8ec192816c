"""Set L2 cache hints on global tensors (optimization ``drop_l2_hint``, family ``l2_cache_policy``).

Motif ``drop_l2_hint`` (rewind, removes it): Drop an L2 cache hint: delete a ``<GlobalTensor>.SetL2CacheHint(...)`` statement.

``SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE)`` on a tensor that is read once streams it
past L2, so it does not evict data that other tiles or cores re-read;
``CACHE_MODE_NORMAL``/persisting hints keep re-read data resident. Without the hint every
global tensor takes the default policy. Sites: every call statement whose callee is
``SetL2CacheHint`` (method on any object, ``.``/``->``, with or without template arguments),
kernel files only. A hint that is the whole body of an ``if``/loop becomes ``;``.
"""

from __future__ import annotations

from ascendopt.cxx.parse import Parsed
from ascendopt.cxx.syntax import calls, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, Motif, Site, find_node, kernel_parsed, line_end, line_start
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_l2_hint",
    family="l2_cache_policy",
    title="Set L2 cache hints on global tensors",
    mechanism="Streaming read-once tensors past L2 (CACHE_MODE_DISABLE) keeps the lines other tiles "
              "and cores re-read resident; without hints both share the default policy and evict each other.",
    bottleneck="more L2 misses on re-read data: MTE2 waits on HBM bandwidth instead of L2",
    relieves=("memory_bound",),
)


HINT_CALLS = ("SetL2CacheHint",)


def delete_statement(p: Parsed, stmt) -> Edit:
    """Deletes ``stmt``: its whole line(s) when nothing else is on them, ``;`` when it is the
    body of a control statement (not a block), else just its bytes."""
    parent = stmt.parent
    if parent is not None and parent.type not in ("compound_statement", "translation_unit",
                                                  "declaration_list", "field_declaration_list"):
        return Edit(p.file, stmt.start_byte, stmt.end_byte, ";")
    a, b = line_start(p, stmt.start_byte), line_end(p, stmt.end_byte - 1)
    before = p.src[a:stmt.start_byte].strip()
    after = p.src[stmt.end_byte:b].strip()
    if not before and (not after or after.startswith(b"//")):
        return Edit(p.file, a, b, "")
    return Edit(p.file, stmt.start_byte, stmt.end_byte, "")


@register
class DropL2Hint(Motif):
    name = "drop_l2_hint"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, HINT_CALLS):
                stmt = statement_of(call)
                if stmt is None:
                    continue  # used as a value: not a plain hint statement
                obj = receiver(p, call) or "?"
                args = call.child_by_field_name("arguments")
                sites.append(self.site(p, stmt, f"{obj}.SetL2CacheHint{p.text(args) if args else '()'} removed"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        stmt = find_node(p, site.start, site.end, "expression_statement")
        return [delete_statement(p, stmt)]
