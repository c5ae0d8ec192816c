"""The verdict of :mod:`ascendopt.cxx.parallel` for one loop, and the whole-kernel refusals
(what runs outside the loop on every core)."""

from __future__ import annotations

import re

from tree_sitter import Node

from ascendopt.cxx import induction
from ascendopt.cxx.affine import CountedLoop, counted_loop
from ascendopt.cxx.defuse import assigned_names
from ascendopt.cxx.instructions import DMA_OPS
from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel_branch import guarded_branches, in_guard
from ascendopt.cxx.parallel import _CUBE_TEXT, _REFUSED_CALLS, I, Frame, Verdict, _Loop
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.scope import Ctx, parameters, statements_before
from ascendopt.cxx.syntax import (base_name, call_args, callee_name, enclosing, identifiers, method_receiver,
                                  own_nodes, receiver, references)
from ascendopt.cxx.parse import declarator_name, of_type, unparen, walk


def independent(prog: Program, ctx: Ctx, loop: Node) -> Verdict:
    """Whether the iterations of ``loop`` (in function ``ctx``) may run on different cores."""
    cl = counted_loop(ctx.p, loop, allow_while=True)
    if cl is None:
        return Verdict(False, "not a counted loop")
    refused = kernel_refusal(prog)
    if refused:
        return Verdict(False, refused)
    a, top = _Loop(prog, ctx, loop, cl), Frame(ctx)
    for part in (cl.start, cl.bound, cl.step):
        if part is not None and a.value(part, top) is None:
            return Verdict(False, f"loop bound {ctx.p.text(part)} not invariant")
    a = _visited(prog, ctx, loop, cl)
    if a.problems:
        return Verdict(False, a.problems[0])
    carried = _carried(a)
    if carried:
        return Verdict(False, carried)
    got = _gm_check(a)
    if isinstance(got, str):
        return Verdict(False, got)
    stride, written = got
    if (cl.init is not None or loop.child_by_field_name("initializer").type != "declaration") \
            and any(ctx.p.text(n) == cl.var for n in own_nodes(ctx.fn.child_by_field_name("body"))
                    if n.type == "identifier" and n.start_byte >= loop.end_byte):
        return Verdict(False, f"loop variable {cl.var} read after the loop")
    outside = _outside(prog, a, written)
    if outside:
        return Verdict(False, outside)
    return Verdict(True, "", stride, tuple(ind for ind, _, _ in a.inductions.values()))


def _visited(prog: Program, ctx: Ctx, loop: Node, cl: CountedLoop) -> _Loop:
    """The loop's body visited with its basic induction variables in closed form
    (:mod:`ascendopt.cxx.induction`); a candidate the body writes more than once is dropped
    and the body visited again without it."""
    drop: set[str] = set()
    while True:
        a, top = _Loop(prog, ctx, loop, cl), Frame(ctx)
        induction.register(a, top)
        for k in drop:
            a.inductions.pop(k, None)
        a.visit(loop.child_by_field_name("body"), top, ())
        bad = induction.unconfirmed(a)
        if not bad:
            return a
        drop |= set(bad)


def kernel_refusal(prog: Program) -> str:
    """Why no loop of this kernel may be split, or '': it reads its block index (``GetBlockIdx()``,
    ``get_block_idx()`` or the ``block_idx`` device variable), synchronises cores, uses atomics,
    the workspace or the cube pipes (anywhere in its files)."""
    for p in prog.files:
        if _CUBE_TEXT.search(p.src.decode(errors="replace")):
            return "kernel uses the cube pipes"
    entries = prog.entries()
    for e in entries:
        prms = parameters(e.fn)
        if len(prms) >= 2:
            ws = declarator_name(e.p, prms[-2].child_by_field_name("declarator"))
            if ws and any(not _workspace_boilerplate(e.p, r) for r in references(e.p, e.fn.child_by_field_name("body"), ws)):
                return "kernel uses the workspace"
    for p in prog.files:  # every kernel file, not only the resolved path: nothing unresolved slips by
        if any(p.text(n) == "block_idx" for n in of_type(p, "identifier")):  # the device variable
            return "kernel already reads GetBlockIdx (split over cores)"
        why = _macro_refusal(p)
        if why:
            return why
        for call in of_type(p, "call_expression"):
            name = callee_name(p, call).removeprefix("template ").strip()
            if name in ("GetBlockIdx", "get_block_idx"):
                return "kernel already reads GetBlockIdx (split over cores)"
            if _REFUSED_CALLS.match(name) and name != "InitGlobalMemory":
                return f"kernel calls {name}"
    return ""


_BLOCK_TEXT = re.compile(r"\b(GetBlockIdx|get_block_idx|block_idx)\b")
_CALL_TEXT = re.compile(r"\b(\w+)\s*(<[^;()]*>)?\s*\(")


def _macro_refusal(p) -> str:
    """The refusals of :func:`kernel_refusal` inside ``#define`` bodies, which the parser keeps
    as text (a macro that reads ``get_block_idx()`` splits the kernel as surely as a call)."""
    for n in walk(p.tree.root_node):
        if n.type not in ("preproc_def", "preproc_function_def") or n.child_by_field_name("value") is None:
            continue
        body = p.text(n.child_by_field_name("value"))
        if _BLOCK_TEXT.search(body):
            return "kernel already reads GetBlockIdx (split over cores)"
        for m in _CALL_TEXT.finditer(body):
            if _REFUSED_CALLS.match(m.group(1)) and m.group(1) != "InitGlobalMemory":
                return f"kernel calls {m.group(1)}"
    return ""


def _split(a: _Loop, index: Poly) -> tuple[Poly, Poly, tuple] | str:
    """(c, b, length) of an index ``c*i + b [+ j]`` (``j`` an inner loop variable from 0)."""
    cb = index.split(I)
    if cb is None:
        return "index not affine in the loop variable"
    c, b = cb
    if not c.terms:
        return "every iteration writes the same place"
    if any(s.startswith("@") for s in c.symbols):
        return "index stride varies"
    inner = [s for s in b.symbols if s.startswith("@j")]
    if len(inner) > 1:
        return "index uses two inner loop variables"
    if inner:
        kb = b.split(inner[0])
        if kb is None or kb[0] != Poly.const(1):
            return "inner loop variable scaled in the index"
        bound, frame = a.inner_loops[inner[0]]
        return c, kb[1], ("elem", bound, frame)
    return c, b, None


def _gm_check(a: _Loop) -> tuple[Poly, set[str]] | str:
    """The writes' common ``(c, b)`` per tensor; lengths compared with the distance between
    consecutive iterations, ``c * step``."""
    step = Poly.const(1) if a.cl.step is None else a.value(a.cl.step, Frame(a.ctx))
    writes = [x for x in a.accesses if x.write]
    if not writes:
        return "no GM write in the loop"
    kinds = {x.tensor.split(":")[0] for x in a.accesses if x.tensor}
    if kinds == {"g", "ptr"}:
        return "GM accessed both as GlobalTensors and through raw pointers (aliasing not known)"
    forms: dict[str, tuple[Poly, Poly]] = {}
    for x in writes:
        if x.tensor is None:
            return "GM destination not resolved"
        if x.index is None:
            return f"GM write index not affine in the loop variable ({a.p.text(x.at)[:50]})"
        got = _split(a, x.index)
        if isinstance(got, str):
            return got
        c, b, inner = got
        if forms.setdefault(x.tensor, (c, b)) != (c, b):
            return f"{x.tensor.split(':', 1)[1]} written at two index forms"
        unit, node, frame = inner if inner is not None else x.length
        if not fits(a, unit, node, frame, c * step):
            return f"write length not provably <= the stride {c}"
    for x in a.accesses:
        if x.write or x.tensor not in forms:
            continue
        got = None if x.index is None else _split(a, x.index)
        if got is None or isinstance(got, str) or got[:2] != forms[x.tensor]:
            return f"{x.tensor.split(':', 1)[1]} read at another iteration's index"
        unit, node, frame = got[2] if got[2] is not None else x.length
        if not fits(a, unit, node, frame, got[0] * step):
            return f"{x.tensor.split(':', 1)[1]} read past the iteration's range"
    stride = next(iter(forms.values()))[0] * step
    sources = a.prog.gm_sources()
    names = {t.split(":", 1)[1] for t in forms}
    return stride, names | {m for m, src in sources.items() if src in names}


def _carried(a: _Loop) -> str:
    """A name read where no write of the same iteration dominates it (a write whose enclosing
    branches enclose the read), when the loop writes it somewhere: its value may come from the
    previous iteration."""
    writes: dict[str, list[tuple]] = {}
    exposed: list[str] = []
    for k, kind, path in a.events:
        if kind == "w":
            writes.setdefault(k, []).append(path)
        elif not any(path[:len(w)] == w for w in writes.get(k, [])):
            exposed.append(k)
    guarded = last_only(a)
    for k in exposed:
        if k in writes and k not in guarded and k not in a.inductions:
            return f"{k[2:]} carried across iterations"
    return ""


def _outside(prog: Program, a: _Loop, gm_written: set[str]) -> str:
    """Problems in the code every core runs outside the loop (a branch of the entry that is
    exclusive with the loop's runs on core 0 only after the rewrite, and is not looked at)."""
    written_keys = {k for k, kind, _ in a.events if kind == "w"}
    scalars = {k for k in a.scalar_keys & written_keys}
    scalars |= {"m:" + k.rsplit(".", 1)[1] for k in scalars if k.startswith("m:") and "." in k}
    queues = {k[2:] for k, _, _ in a.events}
    entries = prog.entries()
    guards = guarded_branches(prog, a.ctx)  # never run beside the loop (cxx.parallel_branch)
    seen: set[int] = set()
    todo = list(entries)
    while todo:
        c = todo.pop()
        if c.fn.id in seen:
            continue
        seen.add(c.fn.id)
        body = c.fn.child_by_field_name("body")
        if body is None:
            continue
        for n in own_nodes(body):
            if c.fn.id == a.ctx.fn.id and a.loop.start_byte <= n.start_byte < a.loop.end_byte \
                    or guards and in_guard(guards, c.p, n):
                continue
            why = _outside_node(c, n, gm_written, scalars, queues, a)
            if why:
                return why
            if n.type == "call_expression":
                got = prog.resolve(c, n)
                if not got and _hands_gm(c, n, a):
                    return f"call {callee_name(c.p, n)} not followed (outside the loop, GM passed to it)"
                todo.extend(got)
    return ""


#: AscendC calls that take GM arguments and whose effect the analysis models (or that only read
#: the tiling / bind a tensor): an unresolved call outside these that is handed GM may write it.
_GM_API = frozenset({"SetGlobalBuffer", "GetValue", "SetValue", "SetSysWorkspace", "GET_TILING_DATA",
                     "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_MEMBER", "static_cast", "reinterpret_cast"})


def _hands_gm(c: Ctx, call: Node, a: _Loop) -> bool:
    """An unresolved, unmodelled call that is handed a GlobalTensor or a raw GM pointer."""
    from ascendopt.cxx.instructions import TABLE
    from ascendopt.cxx.scope import tensor_kind
    name = callee_name(c.p, call).removeprefix("template ").strip()
    if name in _GM_API or name in DMA_OPS or name in TABLE or _REFUSED_CALLS.match(name):
        return False
    return any(tensor_kind(c, arg) == "global" or a.is_pointer(Frame(c), arg) for arg in call_args(call))


def _outside_node(c: Ctx, n: Node, gm_written: set[str], scalars: set[str], queues: set[str], a: _Loop) -> str:
    from ascendopt.cxx.scope import tensor_kind
    p = c.p
    if n.type == "call_expression":
        name = callee_name(p, n).removeprefix("template ").strip()
        args = call_args(n)
        if name in ("GetBlockIdx", "get_block_idx"):
            return "kernel already reads GetBlockIdx (split over cores)"
        if _REFUSED_CALLS.match(name):
            return f"kernel calls {name}"
        recv = method_receiver(n)
        if name == "SetValue" and recv is not None and tensor_kind(c, recv) == "global":
            return f"GM written outside the loop ({p.text(n)[:50]})"
        if name in DMA_OPS and args and tensor_kind(c, args[0]) == "global":
            return f"GM written outside the loop ({p.text(n)[:50]})"
        gm_read = (name == "GetValue" and recv is not None and tensor_kind(c, recv) == "global"
                   and base_name(p, recv) in gm_written) or \
                  (name in DMA_OPS and len(args) > 1 and base_name(p, args[1]) in gm_written)
        if gm_read:
            return f"{p.text(n)[:40]}: reads outside the loop what the loop writes"
        if name in ("EnQue", "DeQue", "AllocTensor") and receiver(p, n).removeprefix("this->") in queues:
            return f"queue {receiver(p, n)} also used outside the loop"
    if n.type in ("pointer_expression", "subscript_expression") and a.is_pointer(Frame(c), n) \
            and identifiers(p, n) & gm_written:
        return f"{p.text(n)[:40]}: reads outside the loop what the loop writes"
    if n.type == "assignment_expression":
        left = unparen(n.child_by_field_name("left"))
        if left.type == "pointer_expression" or (left.type == "subscript_expression"
                                                 and a.is_pointer(Frame(c), left)):
            return f"write through a pointer outside the loop ({p.text(n)[:40]})"
    if n.type == "identifier" and f"l:{p.text(n)}" in scalars and c.fn.id == a.ctx.fn.id \
            and n.start_byte >= a.loop.end_byte:
        return f"{p.text(n)} written in the loop and read after it"
    if n.type in ("identifier", "field_identifier") and f"m:{p.text(n)}" in scalars and not _assigned_here(p, n):
        return f"{p.text(n)} written in the loop and used outside it"
    return ""


def _assigned_here(p, n: Node) -> bool:
    """``n`` is (the field of) the left side of a plain ``=`` (a write, not a read)."""
    e = n.parent
    if e is not None and e.type == "field_expression":
        n, e = e, e.parent
    return e is not None and e.type == "assignment_expression" and e.child_by_field_name("left") == n \
        and p.text(e.child_by_field_name("operator")) == "="


# ----------------------------------------------------------------------------- lengths
def fits(self: _Loop, unit: str, node: Node | None, frame: Frame | None, c: Poly) -> bool:
    """The length ``node`` (``unit`` elements or bytes) is at most ``|c|``."""
    if unit == "one":
        v = c.constant()
        return v is not None and v != 0
    if unit == "?" or node is None or frame is None:
        return False
    p = self.p_of(frame)
    node = unparen(node)
    if node.type == "cast_expression":
        return fits(self, unit, node.child_by_field_name("value"), frame, c)
    if node.type == "call_expression" and callee_name(p, node) == "static_cast" and len(call_args(node)) == 1:
        return fits(self, unit, call_args(node)[0], frame, c)
    if node.type == "identifier":
        name = p.text(node)
        if name in frame.binds:
            arg, caller = frame.binds[name]
            return fits(self, unit, arg, caller, c)
        decl = self.local_decl(frame, name, node)
        value = decl.child_by_field_name("value") if decl is not None and decl.type == "init_declarator" else None
        if value is not None and name not in assigned_names(p, frame.ctx.fn.child_by_field_name("body")):
            if fits(self, unit, value, frame, c):
                return True
    if node.type in ("identifier", "field_expression") and self.key(frame, node) in last_only(self):
        before = value_before_loop(self, self.key(frame, node)[2:])
        if before is not None:
            return fits(self, unit, before, Frame(self.ctx), c)
    if node.type == "conditional_expression":
        cons, alt = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        last = self.last_iteration(node.child_by_field_name("condition"), frame)
        if last is not None:  # only the last iteration takes the other branch
            return fits(self, unit, alt if last else cons, frame, c)
        return fits(self, unit, cons, frame, c) and fits(self, unit, alt, frame, c)
    if unit == "byte":
        if node.type == "binary_expression" and p.text(node.child_by_field_name("operator")) == "*":
            for a, b in ((node.child_by_field_name("left"), node.child_by_field_name("right")),
                         (node.child_by_field_name("right"), node.child_by_field_name("left"))):
                if unparen(b).type == "sizeof_expression":
                    return fits(self, "elem", a, frame, c)
        return False
    v = self.value(node, frame)
    if v is None:
        return False
    if v == c or v == -c:
        return True
    lv, cv = v.constant(), c.constant()
    return lv is not None and cv is not None and 0 <= lv <= abs(cv)

def last_only(self: _Loop) -> set[str]:
    """Keys the loop writes only under a last-iteration guard (``if (i == bound - 1)``): every
    other iteration reads the value the code before the loop set, on every core alike."""
    writes: dict[str, bool] = {}
    for k, kind, path in self.events:
        if kind == "w":
            writes[k] = writes.get(k, True) and any(len(e) == 3 for e in path)
    return {k for k, v in writes.items() if v}

def value_before_loop(self: _Loop, member: str) -> Node | None:
    """The value of the last unconditional ``member = v;`` before the loop in its function."""
    got = None
    for st in statements_before(self.loop, self.ctx.fn):
        e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
        if e is not None and e.type == "assignment_expression" and self.p.text(e.child_by_field_name("operator")) == "=" \
                and base_name(self.p, e.child_by_field_name("left")) == member:
            got = e.child_by_field_name("right")
    return got


def _workspace_boilerplate(p, ref: Node) -> bool:
    """A use of the workspace argument that hands nothing to the kernel: a null check
    (``workspace == nullptr``) or ``SetSysWorkspace(workspace)``."""
    par = ref.parent
    if par is not None and par.type == "binary_expression" and p.text(par.child_by_field_name("operator")) in ("==", "!="):
        return True
    call = enclosing(ref, "call_expression")
    return call is not None and callee_name(p, call) == "SetSysWorkspace"
