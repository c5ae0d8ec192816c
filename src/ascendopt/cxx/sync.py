"""AscendC synchronisation idioms: what a ``PipeBarrier``/``SetFlag``/``WaitFlag`` statement
orders, the runs of them around a statement that only order the scalar pipe, and whether a
file spells AscendC calls with their namespace.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.instructions import SCALAR_EVENTS, SYNC_CALLS
from ascendopt.cxx.parse import Parsed, of_type, walk
from ascendopt.cxx.syntax import call_args, callee_name, enclosing, root_name, statement_call


def sync_info(p: Parsed, stmt: Node) -> tuple[str, str, str] | None:
    """(``barrier``, pipe, '') or (``set``|``wait``, event, event id) for a synchronisation
    statement, else None."""
    call = statement_call(stmt)
    if call is None:
        return None
    name = callee_name(p, call)
    if name not in SYNC_CALLS:
        return None
    fn = call.child_by_field_name("function")
    targs = ""
    for n in walk(fn):
        if n.type == "template_argument_list":
            targs = p.text(n)[1:-1].strip()
            break
    args = call_args(call)
    if name in ("PipeBarrier", "pipe_barrier"):
        pipe = targs or (p.text(args[0]) if args else "PIPE_ALL")
        return "barrier", pipe.split("::")[-1], ""
    return ("set" if name == "SetFlag" else "wait"), targs.split("::")[-1], (p.text(args[0]) if args else "")


def _named(block: Node) -> list[Node]:
    return [c for c in block.named_children if c.type != "comment"]


def flag_pairs(p: Parsed) -> list[tuple[Node, Node]]:
    """(SetFlag statement, WaitFlag statement) adjacent in one block on the same event and id."""
    out = []
    for block in of_type(p, "compound_statement"):
        stmts = _named(block)
        for a, b in zip(stmts, stmts[1:]):
            ia, ib = sync_info(p, a), sync_info(p, b)
            if ia and ib and ia[0] == "set" and ib[0] == "wait" and ia[1:] == ib[1:]:
                out.append((a, b))
    return out


def feeding_decl(p: Parsed, set_stmt: Node, event_id: str) -> Node | None:
    """The declaration just before a SetFlag that defines its event id (``TEventID e = ...``)."""
    prev = set_stmt.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "declaration":
        return None
    names = [p.text(d.child_by_field_name("declarator")) for d in prev.children_by_field_name("declarator")
             if d.type == "init_declarator"]
    return prev if names == [event_id] else None


def pair_statements(p: Parsed, set_stmt: Node) -> tuple[list[Node], Node | None]:
    """What removing the pair that ``set_stmt`` opens removes: (the statements -- the id's feeding
    declaration, SetFlag, WaitFlag --, the bare block that held only them or None)."""
    b = next(y for x, y in flag_pairs(p) if x.start_byte == set_stmt.start_byte)
    info = sync_info(p, set_stmt)
    decl = feeding_decl(p, set_stmt, info[2]) if info else None
    parts = [n for n in (decl, set_stmt, b) if n is not None]
    block = set_stmt.parent
    if block is not None and block.parent is not None and block.parent.type == "compound_statement" \
            and _named(block) == parts:
        return parts, block
    return parts, None


def _run(stmt: Node, forward: bool) -> list[Node]:
    out = []
    n = stmt.next_named_sibling if forward else stmt.prev_named_sibling
    while n is not None:
        if n.type != "comment":
            out.append(n)
        n = n.next_named_sibling if forward else n.prev_named_sibling
    return out


def scalar_sync_around(p: Parsed, stmt: Node) -> list[Node]:
    """The synchronisation statements directly before and after ``stmt`` (contiguous runs,
    comments skipped) that only order the scalar pipe: ``PipeBarrier<PIPE_ALL>`` and
    SetFlag/WaitFlag pairs (same event and id, both in the run) on an event to or from S."""
    out = []
    for forward in (False, True):
        run, fetches = [], []
        for n in _run(stmt, forward):
            info = sync_info(p, n)
            if info is not None:
                run.append((n, info))
            elif _transparent(p, n):
                if n.type == "expression_statement" and _fetched_event(p, n):
                    fetches.append(n)
            else:
                break
        pairs = {(e, i) for _, (k, e, i) in run if k == "set"} & {(e, i) for _, (k, e, i) in run if k == "wait"}
        for n, (k, e, i) in run:
            if (k == "barrier" and e == "PIPE_ALL") or (k in ("set", "wait") and e in SCALAR_EVENTS and (e, i) in pairs):
                out.append(n)
        # ``ev = GetTPipePtr()->FetchEventID(E)`` feeding only a removed pair goes too
        removed = {(e, i) for _, (k, e, i) in run if e in SCALAR_EVENTS and (e, i) in pairs}
        for n in fetches:
            ev, var = _fetched_event(p, n)
            if (ev, var) in removed:
                out.append(n)
    return sorted(out, key=lambda n: n.start_byte)


_TRANSPARENT_CALLS = frozenset({"FetchEventID", "GetTPipePtr", "static_cast"})


def _transparent(p: Parsed, stmt: Node) -> bool:
    """A declaration or assignment whose only calls fetch an event id or cast (``decltype``
    operands are not evaluated): it may sit between a loop and its synchronisation."""
    if stmt.type == "declaration":
        pass
    elif stmt.type == "expression_statement":
        inner = [c for c in stmt.named_children if c.type != "comment"]
        if len(inner) != 1 or inner[0].type != "assignment_expression":
            return False
    else:
        return False
    for n in walk(stmt):
        if n.type == "call_expression" and callee_name(p, n) not in _TRANSPARENT_CALLS \
                and enclosing(n, "decltype") is None:
            return False
    return True


def _fetched_event(p: Parsed, stmt: Node) -> tuple[str, str] | None:
    """(event, variable) of ``var = ...FetchEventID(E)...;``, else None."""
    inner = [c for c in stmt.named_children if c.type != "comment"]
    if len(inner) != 1 or inner[0].type != "assignment_expression":
        return None
    for n in walk(inner[0].child_by_field_name("right")):
        if n.type == "call_expression" and callee_name(p, n) == "FetchEventID":
            args = call_args(n)
            var = root_name(p, inner[0].child_by_field_name("left"))
            if args and var:
                return p.text(args[0]).split("::")[-1], var
    return None


def api_prefix(p: Parsed) -> str:
    """``AscendC::`` when the file qualifies AscendC calls, else ''."""
    for n in walk(p.tree.root_node):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "qualified_identifier":
                scope = fn.child_by_field_name("scope")
                if scope is not None and p.text(scope) == "AscendC":
                    return "AscendC::"
    return ""
