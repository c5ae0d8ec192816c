"""Core counts in a tiling function, read off the def-use flow (:mod:`ascendopt.tiling.flow`):
which variables hold a core count, which names bound one from above (a core cap: ``min``, a
ternary, ``if (c > K) c = K``, a helper's early return) and which divide the work into it (the
work per core). Never off identifier names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, unparen, walk
from ascendopt.cxx.syntax import call_args, callee_name
from ascendopt.tiling.flow import TilingFlow, identifiers

_ORDER = ("<", ">", "<=", ">=")
#: Platform queries answering a core count (``PlatformAscendC``): group 1 tells vector or cube.
CORE_QUERY = re.compile(r"GetCoreNum(Aiv|Aic|Vector|Cube)?\b|GetBlockNum\b|GetAicNum|GetAivNum")


def core_counts(flow: TilingFlow, core_vars: Iterable[str], sources: bool = False) -> set[str]:
    """Variables holding a core count: the core-count queries (``core_vars``), what
    ``SetBlockDim`` reads, variables set to one of them (a copy, or a ``min`` or ternary
    with such an arm) and (``sources``) the sources of their plain copies
    (``dim = cast(cores)``), to a fixpoint. Without ``sources`` a clamp bound copied into
    a core count (``if (c > K) c = K``) is not a core count itflow."""
    p = flow.parsed
    out = set(core_vars) | flow.call_arg_vars(["SetBlockDim"])
    sets: list[tuple[str, Node]] = []
    copies: list[tuple[str, str]] = []
    for name, val in flow.writes():
        if name:
            v = _uncast(p, val)
            if v.type == "identifier":
                copies.append((name, p.text(v)))
            arms = ([v] if v.type == "identifier" else
                    [v.child_by_field_name(k) for k in ("consequence", "alternative")]
                    if v.type == "conditional_expression" else
                    call_args(v) if v.type == "call_expression" and callee_name(p, v) in ("min", "Min", "MIN")
                    else [])
            sets += [(name, a) for a in arms if a is not None]
    changed = True
    while changed:
        changed = False
        for name, a in sets:
            if name not in out and p.text(unparen(a)) in out:
                out.add(name)
                changed = True
        for name, src in copies if sources else ():   # the source of a core count's copy
            if name in out and src not in out:
                out.add(src)
                changed = True
    return out

def core_clamps(flow: TilingFlow, core_vars: Iterable[str]) -> set[str]:
    """Identifiers that bound a core count from above: the operand beside a core-count
    variable ``c`` (:func:`core_counts`) in ``min(c, K)``, in ``c > K ? K : c`` (or any order of the comparison
    and branches), or in ``if (c > K) c = K;`` (other conjuncts of the condition, such as a
    sentinel test ``K != 0 &&``, do not matter), or returned by a helper of the file that
    clamps its argument with early returns (:func:`clamp_helpers`). ``K`` must be a name: a
    computed operand (``total / TILE``) bounds the cores by the work, it is no cap."""
    derived = core_counts(flow, core_vars)
    p = flow.parsed
    out: set[str] = set()

    def plain(n: Node | None) -> str | None:
        return _name(p, n) if n is not None else None

    helpers = clamp_helpers(p)
    for n in walk(flow.body):
        if n.type == "call_expression" and callee_name(p, n) in ("min", "Min", "MIN"):
            args = call_args(n)
            names = [plain(a) for a in args]
            if any(x in derived for x in names) or any(CORE_QUERY.search(p.text(a)) for a in args):
                out |= {x for x in names if x and x not in derived}
        elif n.type == "call_expression" and callee_name(p, n) in helpers:
            i, bounds = helpers[callee_name(p, n)]
            args = call_args(n)
            if i < len(args) and (plain(args[i]) in derived or CORE_QUERY.search(p.text(args[i]))):
                out |= bounds
        elif n.type == "conditional_expression":
            arms = {plain(n.child_by_field_name(k)) for k in ("consequence", "alternative")}
            out |= _compared_bound(flow, n.child_by_field_name("condition"), arms, derived)
        elif n.type == "if_statement":
            cons = n.child_by_field_name("consequence")
            written = {}
            for a in walk(cons) if cons is not None else ():
                if a.type == "assignment_expression" and _op(flow, a) == "=":
                    written[plain(a.child_by_field_name("left"))] = plain(a.child_by_field_name("right"))
            for c, k in written.items():
                if c in derived and k and k not in derived:
                    out |= _compared_bound(flow, n.child_by_field_name("condition"), {c, k}, derived)
    return out

def _compared_bound(flow: TilingFlow, cond: Node | None, pair: set[str | None], derived: set[str]) -> set[str]:
    """The non-core operand of a comparison in ``cond`` whose two operands are ``pair``
    (one core-derived, one not)."""
    p = flow.parsed
    if cond is None or not pair & derived:
        return set()
    for b in walk(cond):
        if b.type == "binary_expression" and _op(flow, b) in _ORDER:
            sides = {_name(p, b.child_by_field_name(k)) for k in ("left", "right")}
            if sides == pair - {None} and len(sides) == 2:
                return sides - derived
    return set()

def core_grains(flow: TilingFlow, core_vars: Iterable[str], direct: bool = False) -> set[str]:
    """Identifiers reaching the divisor of a division assigned to a core count
    (:func:`core_counts`; ``cores = (units + perCore - 1) / perCore``): the work each core
    gets, so raising the value lowers the core count. ``direct``: only a divisor that is
    itself a name (``cores = (n + K - 1) / K``), not what it is computed from."""
    dims = core_counts(flow, core_vars, sources=True)
    p = flow.parsed
    out: set[str] = set()
    for name, val in flow.writes():
        if name not in dims:
            continue
        for b in walk(val):
            if b.type == "binary_expression" and _op(flow, b) == "/":
                right = b.child_by_field_name("right")
                if not direct:
                    out |= flow.closure(identifiers(p, right))
                elif _name(p, right):
                    out.add(_name(p, right))
    return out


def _name(p: Parsed, node: Node) -> str | None:
    """The variable a plain name denotes (``K``, ``cfg::K``, ``Cfg::K``), else None."""
    n = unparen(node)
    if n.type == "qualified_identifier":
        n = n.child_by_field_name("name") or n
    return p.text(n) if n.type == "identifier" else None


def clamp_helpers(p: Parsed) -> dict[str, tuple[int, set[str]]]:
    """Functions of the file that clamp a parameter with an early return:
    ``if (x > K) { return K; }`` (any comparison order) -> name: (the parameter's index, the
    bounds ``K``)."""
    out: dict[str, tuple[int, set[str]]] = {}
    for fn in walk(p.tree.root_node):
        if fn.type != "function_definition" or fn.child_by_field_name("body") is None:
            continue
        fdecl = next((d for d in walk(fn.child_by_field_name("declarator")) if d.type == "function_declarator"), None)
        params = fdecl.child_by_field_name("parameters") if fdecl is not None else None
        if params is None or fdecl.child_by_field_name("declarator") is None:
            continue
        names = [declarator_name(p, q.child_by_field_name("declarator")) for q in params.named_children]
        for n in walk(fn.child_by_field_name("body")):
            if n.type != "if_statement":
                continue
            cons = n.child_by_field_name("consequence")
            ret = next((r for r in walk(cons) if r.type == "return_statement"), None) if cons is not None else None
            k = _name(p, ret.named_children[0]) if ret is not None and ret.named_children else None
            for b in walk(n.child_by_field_name("condition")):
                if k and b.type == "binary_expression" and p.text(b.child_by_field_name("operator")) in _ORDER:
                    sides = [_name(p, b.child_by_field_name(s)) for s in ("left", "right")]
                    if k in sides and any(x in names for x in sides if x != k):
                        i = next(names.index(x) for x in sides if x != k and x in names)
                        name = p.text(fdecl.child_by_field_name("declarator")).split("::")[-1]
                        out.setdefault(name, (i, set()))[1].add(k)
    return out


def _uncast(p: Parsed, node: Node) -> Node:
    """``node`` without parentheses and casts (``static_cast<T>(x)``, ``(T)x``)."""
    n = unparen(node)
    while True:
        if n.type == "call_expression" and callee_name(p, n).endswith("_cast") and len(call_args(n)) == 1:
            n = unparen(call_args(n)[0])
        elif n.type == "cast_expression" and n.child_by_field_name("value") is not None:
            n = unparen(n.child_by_field_name("value"))
        else:
            return n


def _op(flow: TilingFlow, n: Node) -> str:
    o = n.child_by_field_name("operator")
    return flow.parsed.text(o) if o is not None else ""
