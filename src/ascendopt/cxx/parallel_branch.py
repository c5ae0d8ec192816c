"""Branches of a kernel entry that never run in the same launch as the loop being split.

Kernels often hold several variants chosen in the entry by tiling data (``if
(TILING_KEY_IS(1)) { ... } else { ... }``, ``if (tilingData.firstTiling == 0) { KernelA op; ...
} else { KernelB op; ... }``). When the loop ``spread_cores`` splits is reached only through one
branch of such an ``if``, the other branch never runs in a launch that runs the loop: its
condition is the same on every core (it reads only tiling data, which every core receives
alike, and literals), so all cores take the same branch. The other branch was written for the
host's single-core launch; wrapped in ``if (AscendC::GetBlockIdx() == 0)`` it runs on core 0
exactly as before while the other cores skip it, whatever the new launch. So the code under such
a *guarded* branch need not meet the "code outside the loop" conditions of
:func:`ascendopt.cxx.parallel_check._outside` (it never runs beside the split loop).

:func:`guarded_branches` gives them: for every ``if`` statement of an entry with an
``else``, when exactly one of its two branches reaches the loop's function (through the calls
:class:`~ascendopt.cxx.kpath.Program` resolves) and the condition is tiling-only, the other
branch. An ``else if`` chain is handled link by link.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.kpath import Program
from ascendopt.cxx.macros import function_macros
from ascendopt.cxx.parse import Parsed, int_literal, unparen, walk
from ascendopt.cxx.scope import Ctx
from ascendopt.cxx.syntax import call_args, callee_name, function_of, own_calls, own_nodes

#: AscendC's tiling macros: ``GET_TILING_DATA*(name, tiling)`` declares ``name`` from the tiling
#: argument, ``TILING_KEY_IS(k)`` tests the launch's tiling key (both the same on every core).
_TILING_DECL = ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_MEMBER")
_TILING_TEST = "TILING_KEY_IS"


@dataclass(frozen=True)
class Guard:
    """A branch statement of an entry to run on core 0 only."""

    p: Parsed
    stmt: Node


def guarded_branches(prog: Program, loop: Ctx) -> list[Guard]:
    """The entries' branches that are exclusive with the branch reaching ``loop``'s function."""
    out = []
    for e in prog.entries():
        body = e.fn.child_by_field_name("body")
        tiling = _tiling_names(e)
        for n in own_nodes(body):
            if n.type != "if_statement" or function_of(n) != e.fn:
                continue
            cons, alt = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
            if alt is None or not _tiling_only(e.p, n.child_by_field_name("condition"), tiling):
                continue
            alt_stmt = next((c for c in alt.named_children if c.type != "comment"), None)
            if alt_stmt is None:
                continue
            a, b = _reaches(prog, e, cons, loop), _reaches(prog, e, alt_stmt, loop)
            if a and not b:
                out.append(Guard(e.p, alt_stmt))
            elif b and not a:
                out.append(Guard(e.p, cons))
    return out


def in_guard(guards: list[Guard], p: Parsed, node: Node) -> bool:
    return any(g.p.file == p.file and g.stmt.start_byte <= node.start_byte < g.stmt.end_byte for g in guards)


def guard_text(p: Parsed, stmt: Node) -> str:
    """``stmt`` run on core 0 only."""
    return f"{{ if (AscendC::GetBlockIdx() == 0) {{ {p.text(stmt)} }} }}"


def _reaches(prog: Program, e: Ctx, root: Node, target: Ctx) -> bool:
    """``root`` may run ``target``: through the calls the program resolves, or (to be safe) a
    call named like ``target`` that resolves to nothing, or a use of a macro whose body names it."""
    starts = []
    macros = function_macros(e.p)
    for c in own_calls(root):
        name = callee_name(e.p, c).removeprefix("template ").strip()
        got = prog.resolve(e, c)
        if not got and name == target.name or name in macros and re.search(rf"\b{re.escape(target.name)}\b",
                                                                            macros[name].body):
            return True
        starts += got
    return any(c.fn.id == target.fn.id for c in prog.reach(starts))


def _tiling_names(e: Ctx) -> set[str]:
    """Names the entry declares with a ``GET_TILING_DATA*`` macro."""
    out = set()
    for c in own_calls(e.fn.child_by_field_name("body")):
        args = call_args(c)
        if callee_name(e.p, c) in _TILING_DECL and args and unparen(args[0]).type == "identifier":
            out.add(e.p.text(unparen(args[0])))
    return out


def _tiling_only(p: Parsed, cond: Node | None, tiling: set[str]) -> bool:
    """The condition reads only tiling data and literals: ``TILING_KEY_IS(<literal>)``,
    ``<tiling>.field`` compared and combined with literals."""
    if cond is None:
        return False
    for n in walk(cond):
        if n.type == "call_expression":
            args = call_args(n)
            if callee_name(p, n) != _TILING_TEST or len(args) != 1 or int_literal(p.text(args[0]).strip()) is None:
                return False
        elif n.type in ("pointer_expression", "subscript_expression", "assignment_expression", "update_expression"):
            return False
        elif n.type == "identifier" and n.parent is not None and not (
                n.parent.type == "call_expression" and n.parent.child_by_field_name("function") == n):
            if p.text(n) not in tiling or not (n.parent.type == "field_expression"
                                               and n.parent.child_by_field_name("argument") == n):
                return False
    return True
