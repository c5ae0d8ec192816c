"""Basic induction variables of a counted loop (scalar evolution, as a compiler does it).

In ``for (i = start; i < bound; i += s) { ...; v += e; ... }`` the scalar ``v`` is a *basic
induction variable* when its only write in the loop (the body and every method it calls) is
one unconditional ``v += e`` / ``v -= e`` / ``v = v + e`` / ``v = v - e`` / ``++v`` / ``v--``
statement at the top level of the body, ``v`` has an integer type of 32 bits or more, its
address is not taken, and ``e`` is loop-invariant (free of the loop variable and of every value
the loop writes, and declared outside the loop). At the start of iteration ``k = (i - start) / s`` it then holds
``v0 + k*e`` (``v0``: its value on entry to the loop); a use after the update statement in the
same iteration sees ``v0 + (k+1)*e``. Integer wrap-around is the same either way (``+``
and ``*`` modulo ``2^bits``), so the closed form is exact. :class:`Induction` records one such
variable; :func:`candidates` finds the syntactic candidates (the caller checks the write count,
type and invariance with its own evaluator), :func:`closed_form` gives the polynomial at a use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tree_sitter import Node

from ascendopt.cxx.parse import INT_TYPES, Parsed, declarator_name, unparen
from ascendopt.cxx.poly import Poly

if TYPE_CHECKING:
    from ascendopt.cxx.parallel import Frame, _Loop


@dataclass(frozen=True)
class Induction:
    """``lhs sign= step`` once per iteration at statement ``stmt`` (``step`` None: 1)."""

    name: str
    lhs: Node
    sign: int
    step: Node | None
    stmt: Node

    def step_text(self, p: Parsed) -> str:
        return "1" if self.step is None else p.text(self.step)


def _target(p: Parsed, node: Node) -> str | None:
    """``v`` for ``v`` or ``this->v``, else None."""
    node = unparen(node)
    if node.type == "identifier":
        return p.text(node)
    if node.type == "field_expression" and node.child_by_field_name("argument").type == "this":
        return p.text(node.child_by_field_name("field"))
    return None


def _update(p: Parsed, e: Node) -> tuple[Node, int, Node | None] | None:
    """(lhs, sign, step) of ``v += e``, ``v -= e``, ``v = v + e``, ``v = v - e``, ``v++``..."""
    e = unparen(e)
    if e.type == "update_expression":
        arg = e.child_by_field_name("argument")
        if _target(p, arg) is None:
            return None
        return arg, (1 if "++" in p.text(e) else -1), None
    if e.type != "assignment_expression":
        return None
    left, op, right = e.child_by_field_name("left"), p.text(e.child_by_field_name("operator")), e.child_by_field_name("right")
    name = _target(p, left)
    if name is None:
        return None
    if op in ("+=", "-="):
        return left, (1 if op == "+=" else -1), right
    r = unparen(right)
    if op == "=" and r.type == "binary_expression" and p.text(r.child_by_field_name("operator")) in ("+", "-") \
            and _target(p, r.child_by_field_name("left")) == name:
        return left, (1 if p.text(r.child_by_field_name("operator")) == "+" else -1), r.child_by_field_name("right")
    return None


def candidates(p: Parsed, loop: Node, var: str) -> list[Induction]:
    """The update statements at the top level of ``loop``'s body, one per name (a name updated
    twice is no candidate), never the loop variable."""
    body = loop.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return []
    found: dict[str, list[Induction]] = {}
    for st in body.named_children:
        if st.type != "expression_statement" or not st.named_children:
            continue
        got = _update(p, st.named_children[0])
        if got is None:
            continue
        lhs, sign, step = got
        name = _target(p, lhs)
        if name != var:
            found.setdefault(name, []).append(Induction(name, lhs, sign, step, st))
    return [ivs[0] for ivs in found.values() if len(ivs) == 1 and not _address_taken(p, body, ivs[0].name)]


def _address_taken(p: Parsed, body: Node, name: str) -> bool:
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type == "pointer_expression" and p.text(n).lstrip().startswith("&") \
                and _target(p, n.child_by_field_name("argument")) == name:
            return True
        stack.extend(n.children)
    return False


#: Integer types too narrow for an offset: ``v0 + k*e`` would wrap after a few iterations, the
#: polynomial (which does not wrap) would call colliding indices distinct.
_NARROW = frozenset({"int8_t", "int16_t", "uint8_t", "uint16_t", "short", "auto"})


def integer_type(t: str | None) -> bool:
    """``t`` (declared type text) is an integer scalar type of 32 bits or more."""
    if t is None:
        return False
    base = t.replace("const", "").replace("volatile", "").strip()
    if base.endswith("*") or "&" in base or "short" in base or "char" in base:
        return False
    base = base.split("::")[-1].strip()
    return base in INT_TYPES - _NARROW or base.startswith("unsigned ") or base.startswith("long ")


def iterations(i: Poly, start: Poly, loop_step: Poly, step: Poly) -> Poly | None:
    """``k * step`` with ``k = (i - start) / loop_step`` as a polynomial: exact when
    ``step`` is ``q * loop_step`` for an integer ``q``, else None."""
    if loop_step == Poly.const(1):
        return (i - start) * step
    if step == loop_step:
        return i - start
    s, e = loop_step.constant(), step.constant()
    if s and e is not None and e % s == 0:
        return (i - start) * Poly.const(e // s)
    return None


def closed_form(v0: Poly, sign: int, per_iter: Poly, step: Poly, after: bool) -> Poly:
    """``v0 + sign * (k*e [+ e])``: the value before (``after`` False) or after the update."""
    d = per_iter + step if after else per_iter
    return v0 + d if sign > 0 else v0 - d


# ----------------------------------------------------------------------------- with cxx.parallel
I = "@i"


def register(a: "_Loop", top: "Frame") -> None:
    """Record in ``a`` (a :class:`ascendopt.cxx.parallel._Loop`, before its body is visited)
    the candidates that are integer locals declared before the loop or members of the loop's
    class, with an invariant step declared outside the loop whose ``k * step`` is a polynomial."""
    from ascendopt.cxx.scope import type_of
    cl = a.cl
    start = a.value(cl.start, top)
    loop_step = Poly.const(1) if cl.step is None else a.value(cl.step, top)
    if start is None or loop_step is None:
        return
    for ind in candidates(a.p, a.loop, cl.var):
        key = a.key(top, ind.lhs)
        if key is None or not (key.startswith("l:") or key.startswith("m:") and "." not in key):
            continue
        if not integer_type(type_of(a.ctx, ind.name, a.loop.start_byte)):
            continue
        step = Poly.const(1) if ind.step is None else a.value(ind.step, top)
        if step is None or any(s.startswith("@") for s in step.symbols) or _declared_in_loop(a, top, ind.step):
            continue
        per = iterations(Poly.sym(I), start, loop_step, step)
        if per is not None:
            a.inductions[key] = (ind, step, per)


def _declared_in_loop(a: "_Loop", top: "Frame", node: Node | None) -> bool:
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            d = a.local_decl(top, a.p.text(n), n)
            if d is not None and a.in_loop(top, d):
                return True
        stack.extend(n.children)
    return False


def unconfirmed(a: "_Loop") -> list[str]:
    """Registered keys the visited body writes other than exactly once (the update itself)."""
    return [k for k in a.inductions if sum(1 for e, kind, _ in a.events if e == k and kind == "w") != 1]


def induction_value(a: "_Loop", name: str, at: Node, frame: "Frame", member: bool) -> Poly | None:
    """The closed form of an induction variable ``name`` used at ``at`` in ``frame`` (a use in
    a called method is placed at the loop-body call it descends from), or None."""
    from ascendopt.cxx.scope import parameters
    main = frame.ctx.fn.id == a.ctx.fn.id and not frame.inside
    key = None
    if not member and (name in frame.binds or any(declarator_name(frame.ctx.p, prm.child_by_field_name("declarator"))
                                                  == name for prm in parameters(frame.ctx.fn))):
        return None
    decl = None if member else a.local_decl(frame, name, at)
    if decl is not None:
        key = f"l:{name}" if main and not a.in_loop(frame, decl) else None
    elif frame.ctx.cls is not None and a.ctx.cls is not None and frame.ctx.cls.id == a.ctx.cls.id \
            and name in frame.ctx.fields:
        key = f"m:{name}"
    got = a.inductions.get(key) if key is not None else None
    if got is None:
        return None
    ind, step, per = got
    pos = at.start_byte if main else frame.site
    body = a.loop.child_by_field_name("body")
    if pos is None or not body.start_byte <= pos < body.end_byte or ind.stmt.start_byte <= pos < ind.stmt.end_byte:
        return None
    return closed_form(Poly.sym(key), ind.sign, per, step, pos >= ind.stmt.end_byte)
