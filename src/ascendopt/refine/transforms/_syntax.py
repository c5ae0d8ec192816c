"""Syntax-tree helpers shared by Stage I's rewrites (not a rewrite: the leading underscore keeps
the registry from importing it as one).

Everything here reads the tree-sitter tree of :mod:`ascendopt.tiling.cparse`: counted-loop
headers, the single statement of a loop body, identifiers and the names a subtree writes
(assignments, ``++``/``--``, the destination of AscendC vector and copy calls, and what the
functions of the same file write when called with an argument), tensor element types from
declarations, the scalar synchronisation statements around a statement, and whole-line
statement removal.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.rewind.motifs.base import (Edit, LOOPS, call_args, callee_name, enclosing, function_of, functions,
                                          line_end, line_start)
from ascendopt.tiling.cparse import Parsed, declarator_name, walk

#: AscendC vector instructions whose first argument is the destination tensor.
VECTOR_OPS = frozenset({
    "Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu",
    "ShiftLeft", "ShiftRight", "Abs", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Not", "Tanh",
    "Sigmoid", "Sin", "Cos", "Floor", "Ceil", "Round", "Trunc", "Erf", "Log", "Log2", "Log10", "Sign", "Frac",
    "Duplicate", "Axpy", "FusedMulAdd", "MulAddDst", "Cast", "Compare", "Compares", "Select", "Power",
    "ReduceSum", "ReduceMax", "ReduceMin", "WholeReduceSum", "WholeReduceMax", "WholeReduceMin",
    "BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum", "Gather", "Brcb", "CreateVecIndex",
})
#: Copies whose first argument is the destination.
COPY_OPS = frozenset({"DataCopy", "DataCopyPad", "Copy"})
#: Queue hand-overs: the tensor changes owner (treated as a write by the dataflow checks).
HANDOVER_METHODS = frozenset({"EnQue", "FreeTensor"})
#: Events whose source or destination is the scalar pipe.
SCALAR_EVENTS = frozenset({"V_S", "S_V", "S_MTE3", "MTE2_S", "MTE3_S", "S_MTE2"})
SYNC_CALLS = frozenset({"PipeBarrier", "pipe_barrier", "SetFlag", "WaitFlag"})


def decl_name(p: Parsed, node: Node | None) -> str | None:
    """:func:`declarator_name`, also through reference declarators (``T& x``, ``T&& x``)."""
    while node is not None and node.type == "reference_declarator":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[-1] if inner else None
    return declarator_name(p, node)


def unparen(node: Node) -> Node:
    """``node`` without enclosing parentheses."""
    while node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            break
        node = inner[0]
    return node


def root_name(p: Parsed, node: Node | None) -> str | None:
    """The variable an lvalue or tensor expression designates: ``x`` for ``x``, ``x[i]``,
    ``this->x``, ``x.y``, ``(x)``, ``*x``; None for anything else."""
    while node is not None:
        node = unparen(node)
        t = node.type
        if t in ("identifier", "field_identifier"):
            return p.text(node)
        if t == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif t == "field_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None and arg.type == "this":
                node = node.child_by_field_name("field")
            else:
                node = arg
        elif t == "pointer_expression":
            node = node.child_by_field_name("argument")
        else:
            return None
    return None


def identifiers(p: Parsed, node: Node) -> set[str]:
    """Variable names used under ``node`` (identifiers and ``this->`` fields; not types,
    namespaces or method names)."""
    out = set()
    for n in walk(node):
        if n.type == "identifier":
            out.add(p.text(n))
        elif n.type == "field_identifier" and n.parent is not None and n.parent.type == "field_expression":
            arg = n.parent.child_by_field_name("argument")
            if arg is not None and arg.type == "this":
                out.add(p.text(n))
    return out


def is_method_call(call: Node) -> bool:
    fn = call.child_by_field_name("function")
    return fn is not None and fn.type == "field_expression"


def method_receiver(call: Node) -> Node | None:
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None
    return fn.child_by_field_name("argument")


# ----------------------------------------------------------------------------- loops
@dataclass(frozen=True)
class CountedLoop:
    """``for (<T> var = start; var < bound; <step>)``; ``step`` is None for ``++var``/``var++``."""

    node: Node
    var: str
    start: Node
    bound: Node
    step: Node | None


def counted_loop(p: Parsed, loop: Node) -> CountedLoop | None:
    """The header of a counted ``for`` loop, or None when it has another shape."""
    if loop.type != "for_statement":
        return None
    init, cond, upd = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    if init is None or cond is None or upd is None:
        return None
    var = start = None
    if init.type == "declaration":
        decls = [d for d in init.named_children if d.type == "init_declarator"]
        if len(decls) == 1:
            var, start = declarator_name(p, decls[0].child_by_field_name("declarator")), decls[0].child_by_field_name("value")
    elif init.type == "assignment_expression" and p.text(init.child_by_field_name("operator")) == "=":
        left = init.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            var, start = p.text(left), init.child_by_field_name("right")
    if var is None or start is None:
        return None
    cond = unparen(cond)
    if cond.type != "binary_expression":
        return None
    op = p.text(cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op == "<" and unparen(left).type == "identifier" and p.text(unparen(left)) == var:
        bound = right
    elif op == ">" and unparen(right).type == "identifier" and p.text(unparen(right)) == var:
        bound = left
    else:
        return None
    step: Node | None
    if upd.type == "update_expression" and p.text(upd).replace(var, "").strip() == "++":
        step = None
    elif upd.type == "assignment_expression" and root_name(p, upd.child_by_field_name("left")) == var:
        o = p.text(upd.child_by_field_name("operator"))
        right = unparen(upd.child_by_field_name("right"))
        if o == "+=":
            step = right
        elif o == "=" and right.type == "binary_expression" and p.text(right.child_by_field_name("operator")) == "+" \
                and p.text(unparen(right.child_by_field_name("left"))) == var:
            step = right.child_by_field_name("right")
        else:
            return None
    else:
        return None
    if step is not None and p.text(step).strip() == "1":
        step = None
    return CountedLoop(loop, var, start, bound, step)


def single_statement(loop: Node) -> Node | None:
    """The one statement of a loop body (``{ s; }`` or a bare ``s;``), else None."""
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    if body.type == "compound_statement":
        stmts = [c for c in body.named_children if c.type != "comment"]
        return stmts[0] if len(stmts) == 1 else None
    return body


def statement_call(stmt: Node | None) -> Node | None:
    """The call of an expression statement ``f(...);``, else None."""
    if stmt is None or stmt.type != "expression_statement":
        return None
    inner = [c for c in stmt.named_children if c.type != "comment"]
    if len(inner) == 1 and inner[0].type == "call_expression":
        return inner[0]
    return None


def is_zero(p: Parsed, node: Node) -> bool:
    return p.text(unparen(node)).strip().rstrip("uUlL") in ("0", "0x0")


def index_base(p: Parsed, index: Node, var: str) -> tuple[bool, Node | None]:
    """Splits an index ``var``, ``base + var`` or ``var + base`` (``base`` free of ``var``):
    (True, base or None); (False, None) for any other index."""
    index = unparen(index)
    if index.type == "identifier" and p.text(index) == var:
        return True, None
    if index.type == "binary_expression" and p.text(index.child_by_field_name("operator")) == "+":
        left, right = index.child_by_field_name("left"), index.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if unparen(a).type == "identifier" and p.text(unparen(a)) == var and var not in identifiers(p, b):
                return True, b
    return False, None


def loop_label(p: Parsed, node: Node) -> str:
    """``in Compute, loop for (i < n)`` for people."""
    fn = function_of(node)
    where = ""
    if fn is not None:
        from ascendopt.rewind.motifs.base import function_name
        where = f"in {function_name(p, fn) or '?'}"
    loop = enclosing(node, LOOPS) if node.type not in LOOPS else node
    if loop is not None:
        cl = counted_loop(p, loop)
        head = f"for ({cl.var} < {p.text(cl.bound)})" if cl else p.text(loop).split("{")[0].strip()[:40]
        where += f", loop {head}" if where else f"loop {head}"
    return where or "at file scope"


# ----------------------------------------------------------------------------- declarations
def tensor_type(p: Parsed, name: str, at: Node) -> tuple[str, str] | None:
    """(``LocalTensor``|``GlobalTensor``, element type text) of variable ``name`` as declared in
    the function enclosing ``at`` (locals before ``at``, parameters) or as a class field of the
    file; ``auto x = q.AllocTensor<T>()``/``DeQue<T>()``/``buf.Get<T>()`` count as local
    tensors. None when not found or not a tensor."""
    fn = function_of(at)
    scopes = []
    if fn is not None:
        scopes.append([d for d in walk(fn) if d.type in ("declaration", "parameter_declaration")
                       and d.start_byte < at.start_byte])
    scopes.append([d for d in walk(p.tree.root_node) if d.type == "field_declaration"])
    for decls in scopes:
        for d in reversed(decls):
            for dec in d.children_by_field_name("declarator"):
                if decl_name(p, dec) != name:
                    continue
                got = _tensor_of_type(p, d.child_by_field_name("type"))
                if got is None and dec.type == "init_declarator":
                    got = _tensor_of_init(p, dec.child_by_field_name("value"))
                return got
    return None


def _tensor_of_type(p: Parsed, type_node: Node | None) -> tuple[str, str] | None:
    if type_node is None:
        return None
    for n in walk(type_node):
        if n.type == "template_type":
            kind = p.text(n.child_by_field_name("name"))
            if kind in ("LocalTensor", "GlobalTensor"):
                args = [a for a in n.child_by_field_name("arguments").named_children if a.type != "comment"]
                if len(args) == 1:
                    return kind, p.text(args[0])
    return None


def _tensor_of_init(p: Parsed, value: Node | None) -> tuple[str, str] | None:
    if value is None or value.type != "call_expression" or not is_method_call(value):
        return None
    if callee_name(p, value) not in ("AllocTensor", "DeQue", "Get"):
        return None
    fn = value.child_by_field_name("function").child_by_field_name("field")
    if fn is not None and fn.type == "template_method":
        args = [a for a in fn.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(args) == 1:
            return "LocalTensor", p.text(args[0])
    return None


def declared_in(p: Parsed, root: Node) -> set[str]:
    """Names declared (locals, loop variables, parameters) under ``root``."""
    out = set()
    for d in walk(root):
        if d.type in ("declaration", "parameter_declaration"):
            for dec in d.children_by_field_name("declarator"):
                name = decl_name(p, dec)
                if name:
                    out.add(name)
    return out


# ----------------------------------------------------------------------------- dataflow
def written_names(p: Parsed, root: Node, depth: int = 2) -> set[str]:
    """Names a subtree may write: assignment and ``++``/``--`` targets, the destination of
    vector and copy instructions, ``SetValue``/``operator()`` receivers, tensors handed to
    ``EnQue``/``FreeTensor``, declarations, and -- through calls of functions defined in the
    same file (``depth`` levels) -- their writes to fields and to the arguments passed for the
    parameters they write. An argument of a call to anything else unknown counts as written."""
    fns = functions(p)
    out: set[str] = set()
    for n in walk(root):
        t = n.type
        if t == "assignment_expression":
            name = root_name(p, n.child_by_field_name("left"))
            if name:
                out.add(name)
        elif t == "update_expression":
            name = root_name(p, n.child_by_field_name("argument"))
            if name:
                out.add(name)
        elif t == "call_expression":
            out |= _call_writes(p, n, fns, depth)
    return out | declared_in(p, root)


def _call_writes(p: Parsed, call: Node, fns: dict[str, Node], depth: int) -> set[str]:
    name = callee_name(p, call)
    args = call_args(call)
    if is_method_call(call):
        recv = root_name(p, method_receiver(call))
        if name in ("SetValue",) and recv:
            return {recv}
        if name in HANDOVER_METHODS:
            return {r for a in args if (r := root_name(p, a))}
        if name in fns and depth > 0 and method_receiver(call).type == "this":
            return _function_writes(p, fns[name], args, fns, depth)
        return set()
    if name in VECTOR_OPS or name in COPY_OPS:
        r = root_name(p, args[0]) if args else None
        return {r} if r else set()
    if name in SYNC_CALLS or name in ("GetBlockIdx", "GetBlockNum", "static_cast", "sizeof", "min", "max"):
        return set()
    if name in fns and depth > 0:
        return _function_writes(p, fns[name], args, fns, depth)
    # unknown callee: whatever it is given may be written
    return {r for a in args if (r := root_name(p, a))}


def _function_writes(p: Parsed, fn: Node, args: list[Node], fns: dict[str, Node], depth: int) -> set[str]:
    body = fn.child_by_field_name("body")
    if body is None:
        return {r for a in args if (r := root_name(p, a))}
    inner = written_names(p, body, depth - 1)
    params = [decl_name(p, d.child_by_field_name("declarator"))
              for d in walk(fn.child_by_field_name("declarator")) if d.type in ("parameter_declaration",
                                                                                 "optional_parameter_declaration")]
    local = declared_in(p, body) | set(params)
    out = {w for w in inner if w not in local}  # fields
    for prm, a in zip(params, args):
        if prm in inner and (r := root_name(p, a)):
            out.add(r)
    return out


# ----------------------------------------------------------------------------- statements
def remove_statement(p: Parsed, stmt: Node) -> Edit:
    """Deletes ``stmt``: its whole line(s) when nothing else is on them, else just its bytes."""
    ls, le = line_start(p, stmt.start_byte), line_end(p, stmt.end_byte - 1)
    before = p.src[ls:stmt.start_byte].strip()
    after = p.src[stmt.end_byte:le].strip()
    if not before and (not after or after.startswith(b"//")):
        return Edit(p.file, ls, le, "")
    return Edit(p.file, stmt.start_byte, stmt.end_byte, "")


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


def replace_with_lines(p: Parsed, stmt: Node, code_lines: list[str]) -> Edit:
    """Replaces ``stmt`` by ``code_lines`` at its indentation (whole lines when ``stmt`` starts
    its line and ends it, else inline, joined by spaces)."""
    ls, le = line_start(p, stmt.start_byte), line_end(p, stmt.end_byte - 1)
    if not p.src[ls:stmt.start_byte].strip() and not p.src[stmt.end_byte:le].strip():
        ind = p.src[ls:stmt.start_byte].decode()
        return Edit(p.file, ls, le, "".join(f"{ind}{c}\n" for c in code_lines))
    return Edit(p.file, stmt.start_byte, stmt.end_byte, " ".join(code_lines))
