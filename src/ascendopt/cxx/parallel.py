"""Is a counted loop's iteration space independent (can its iterations run on different cores)?

The loop ``for (T i = start; i < bound; i += s)`` of a kernel is *independent* when running
any subset of its iterations, in any order, on another core leaves GM as the whole loop on one
core leaves it. The analysis follows the loop body into the methods it calls (parameters bound
to the arguments, :mod:`ascendopt.cxx.kpath`) and asks, in program order:

(a) every GM write (``gm.SetValue(idx, v)``, ``DataCopy``/``DataCopyPad`` into ``gm[idx]``)
    has an index ``c*i + b`` (:class:`~ascendopt.cxx.poly.Poly`) with ``c`` and ``b`` free of
    ``i`` and of every value the loop writes, and covers ``[b, b+len)`` with ``len <= |c|``:
    ``len`` is 1 for SetValue (``c`` a literal), or ``n`` for ``SetValue(c*i + j)`` inside an
    inner ``for (j = 0; j < n; ...)`` with ``n`` the same expression as ``c``; for a copy its
    length is the same expression as ``c`` or a literal no larger; a conditional length
    ``i + 1 == bound ? tail : c`` is accepted (only the last iteration may write more: no later
    iteration exists to overlap). All writes of one tensor share ``c`` and ``b``, so the
    iterations' ranges are pairwise disjoint. An index read from data (scatter) is refused;
(b) a GM tensor the loop writes is read in the loop only at the same ``c*i + b`` with a length
    ``<= |c|`` (never another iteration's output), and is neither written nor read by the
    kernel's code outside the loop (each core runs that code; it would redo or race the writes);
(c) nothing is carried from one iteration to the next: every member or outer local (scalar,
    UB tensor, ``TBuf`` view) and every queue the body uses is, on first use in the iteration,
    written unconditionally (a queue: allocated or enqueued, not dequeued first); a scalar the
    loop writes is not read after it; the body has no ``break``/``return``/``goto``. A basic
    induction variable (``v += e`` once per iteration, :mod:`ascendopt.cxx.induction`) is no
    carried value: its uses are read in closed form ``v0 + k*e`` (``v0 + (k+1)*e`` after the
    update), so indices built from it are affine in ``i``.

Kernels are refused outright when they read ``GetBlockIdx`` (already split), synchronise cores
(``SyncAll``), use atomics (``SetAtomic*``), the workspace, or the cube pipes.
Known limit: UB writes are not compared by element range (any write of a UB tensor before its
first read in the iteration counts as making it fresh).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.affine import CountedLoop, counted_loop
from ascendopt.cxx.defuse import assigned_names, written_names
from ascendopt.cxx.instructions import DMA_OPS, TABLE, VECTOR_OPS
from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parse import Parsed, declarator_name, int_literal, unparen, walk
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.scope import Ctx, is_scalar, parameters, tensor_kind, type_of
from ascendopt.cxx.syntax import (LOOPS, base_name, call_args, callee_name, enclosing,
                                  is_method_call, method_receiver, own_calls, own_nodes)

I = "@i"
#: Kernels using these are refused: cross-core synchronisation, atomics, the cube pipes.
_REFUSED_CALLS = re.compile(r"^(GetBlockIdx|get_block_idx|SyncAll|IBSet|IBWait|SetAtomic\w*|Mmad|LoadData|Fixpipe|"
                            r"GetUserWorkspace|GetSysWorkSpacePtr|InitGlobalMemory|CrossCoreSetFlag)$")
_CUBE_TEXT = re.compile(r"TPosition::(A1|A2|B1|B2|CO1|CO2)\b|REGIST_MATMUL_OBJ|\bmatmul::")
_PURE_CALLS = frozenset({"static_cast", "reinterpret_cast", "min", "max", "Min", "Max", "CeilDiv", "DivCeil"})
_CONDITIONAL = ("if_statement", "conditional_expression", "switch_statement", *LOOPS)


def pointer_name(ctx: Ctx, name: str, at: int) -> bool:
    """``name`` is declared as a pointer (``T* x``, ``GM_ADDR x``) where it is used."""
    t = type_of(ctx, name, at)
    if t is not None and (t.rstrip().endswith("*") or "GM_ADDR" in t):
        return True
    for prm in parameters(ctx.fn):
        d = prm.child_by_field_name("declarator")
        if declarator_name(ctx.p, d) == name:
            return d is not None and d.type == "pointer_declarator"
    return False


@dataclass
class Frame:
    """One activation inside the loop: a function with its parameters bound to the caller's
    arguments (``inside``: a callee of the loop, its locals are fresh per iteration)."""

    ctx: Ctx
    binds: dict[str, tuple[Node, "Frame"]] = field(default_factory=dict)
    inside: bool = False
    site: int | None = None  # start byte of the loop-body call this activation descends from


@dataclass(frozen=True)
class Access:
    tensor: str
    write: bool
    index: Poly | None
    length: tuple[str, Node | None, Frame | None]  # (unit elem|byte|one, node, frame)
    at: Node


@dataclass(frozen=True)
class Verdict:
    """``ok``: the loop is independent; ``reason`` says why not; ``stride`` is ``c`` of its
    GM writes (``Poly.const(1)`` for a loop whose iterations are elements)."""

    ok: bool
    reason: str = ""
    stride: Poly | None = None
    inductions: tuple = ()  # the loop's basic induction variables (cxx.induction.Induction)


class _Loop:
    def __init__(self, prog: Program, ctx: Ctx, loop: Node, cl: CountedLoop):
        self.prog, self.ctx, self.loop, self.cl, self.p = prog, ctx, loop, cl, ctx.p
        self.written = written_names(ctx.p, loop.child_by_field_name("body"), depth=4) | {cl.var}
        self.events: list[tuple[str, str, tuple]] = []  # (key, r|w, path of enclosing branches)
        self.accesses: list[Access] = []
        self.problems: list[str] = []
        self.inlined: set[int] = set()
        self.scalar_keys: set[str] = set()
        self.inner_loops: dict[str, tuple[Node, Frame]] = {}
        self.pointer_types: dict[str, str] = {}
        self.inductions: dict = {}  # key -> (Induction, step Poly): see cxx.induction

    # ------------------------------------------------------------------ values
    def local_decl(self, frame: Frame, name: str, at: Node) -> Node | None:
        best = None
        for n in own_nodes(frame.ctx.fn.child_by_field_name("body")):
            if n.type == "declaration" and n.start_byte < at.start_byte:
                for d in n.children_by_field_name("declarator"):
                    if declarator_name(self.p_of(frame), d) == name:
                        best = d
        return best

    def p_of(self, frame: Frame) -> Parsed:
        return frame.ctx.p

    def in_loop(self, frame: Frame, node: Node) -> bool:
        return frame.inside or (self.loop.start_byte <= node.start_byte < self.loop.end_byte
                                and frame.ctx.fn.id == self.ctx.fn.id)

    def inner_var(self, frame: Frame, decl: Node) -> Node | None:
        """The for statement whose initializer declares ``decl`` (a counted inner loop from 0)."""
        loop = enclosing(decl, "for_statement")
        if loop is None or loop.child_by_field_name("initializer") is None \
                or not (loop.child_by_field_name("initializer").start_byte <= decl.start_byte
                        < loop.child_by_field_name("initializer").end_byte):
            return None
        cl = counted_loop(self.p_of(frame), loop)
        ok = cl is not None and cl.step is None and self.p_of(frame).text(cl.start).strip() == "0"
        return loop if ok and self.in_loop(frame, loop) else None

    def value(self, node: Node, frame: Frame) -> Poly | None:
        p = self.p_of(frame)
        node = unparen(node)
        t = node.type
        if t == "number_literal":
            v = int_literal(p.text(node))
            return None if v is None else Poly.const(v[0])
        if t == "identifier":
            return self.name_value(p.text(node), node, frame)
        if t == "field_expression" and node.child_by_field_name("argument").type == "this":
            return self.name_value(p.text(node.child_by_field_name("field")), node, frame, member=True)
        if t == "binary_expression":
            op = p.text(node.child_by_field_name("operator"))
            if op in "+-*":
                a, b = self.value(node.child_by_field_name("left"), frame), self.value(node.child_by_field_name("right"), frame)
                if a is None or b is None:
                    return None
                return a + b if op == "+" else a - b if op == "-" else a * b
        if t == "unary_expression" and p.text(node.child_by_field_name("operator")) == "-":
            a = self.value(node.child_by_field_name("argument"), frame)
            return None if a is None else -a
        if t == "cast_expression":
            return self.value(node.child_by_field_name("value"), frame)
        if t == "call_expression" and callee_name(p, node) == "static_cast" and len(call_args(node)) == 1:
            return self.value(call_args(node)[0], frame)
        if t == "sizeof_expression":
            return Poly.sym("sizeof(" + "".join(p.text(node).split())[7:])
        return self.opaque(node, frame)

    def opaque(self, node: Node, frame: Frame) -> Poly | None:
        """An invariant subexpression the polynomials do not model, as a symbol; None when it
        uses the loop variable, a value the loop writes, or reads data."""
        p = self.p_of(frame)
        if any(c.type == "pointer_expression" for c in walk(node)):
            return None
        for c in own_calls(node):
            if callee_name(p, c) not in _PURE_CALLS and callee_name(p, c) != "sizeof":
                return None
        local = False
        for n in walk(node):
            if n.type == "identifier" and not (n.parent is not None and n.parent.type == "call_expression"
                                               and n.parent.child_by_field_name("function") == n):
                v = self.name_value(p.text(n), n, frame)
                if v is None or any(s.startswith("@") for s in v.symbols):
                    return None  # varies (the loop variable, an inner loop's, a written value)
                local = local or any(s.startswith("l:") for s in v.symbols)
        text = "".join(p.text(node).split())
        return Poly.sym(f"{text}#{frame.ctx.fn.id}" if local else text)

    def name_value(self, name: str, at: Node, frame: Frame, member: bool = False) -> Poly | None:
        p = self.p_of(frame)
        if self.inductions:
            from ascendopt.cxx.induction import induction_value
            got = induction_value(self, name, at, frame, member)
            if got is not None:
                return got
        if not member:
            if frame.ctx.fn.id == self.ctx.fn.id and not frame.inside and name == self.cl.var \
                    and self.in_loop(frame, at):
                return Poly.sym(I)
            if name in frame.binds:
                arg, caller = frame.binds[name]
                return self.value(arg, caller)
            decl = self.local_decl(frame, name, at)
            if decl is not None:
                inner = self.inner_var(frame, decl)
                if inner is not None:
                    self.inner_loops[f"@j{inner.id}"] = (counted_loop(p, inner).bound, frame)
                    return Poly.sym(f"@j{inner.id}")
                value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
                if name not in assigned_names(p, frame.ctx.fn.child_by_field_name("body")) and value is not None:
                    return self.value(value, frame)
                if self.in_loop(frame, decl) or name in self.written:
                    return None
                return Poly.sym(f"l:{name}")
            if any(declarator_name(p, prm.child_by_field_name("declarator")) == name for prm in parameters(frame.ctx.fn)):
                return None if frame.inside or name in self.written else Poly.sym(f"p:{name}")
        return None if name in self.written else Poly.sym(f"m:{name}")

    # ------------------------------------------------------------------ keys
    def key(self, frame: Frame, expr: Node | None) -> str | None:
        """What a name used in the loop stands for across iterations: ``m:x`` (a member),
        ``l:x`` (a local declared before the loop), or None (fresh each iteration)."""
        p = self.p_of(frame)
        name = base_name(p, expr) if expr is not None else None
        if name is None:
            return None
        if expr.type == "field_expression":
            return self.member_key(frame, name)
        if frame.ctx.fn.id == self.ctx.fn.id and name == self.cl.var and not frame.inside:
            return None
        if name in frame.binds:
            arg, caller = frame.binds[name]
            is_tensor = tensor_kind(frame.ctx, expr) is not None
            return self.key(caller, arg) if is_tensor else None
        decl = self.local_decl(frame, name, expr)
        if decl is not None:
            if not self.in_loop(frame, decl):
                return f"l:{name}"
            value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
            if value is not None and unparen(value).type == "call_expression" and is_method_call(unparen(value)) \
                    and callee_name(p, unparen(value)).removeprefix("template ").strip() in ("Get", "GetWithOffset",
                                                                                          "ReinterpretCast"):
                return self.key(frame, method_receiver(unparen(value)))
            return None
        if any(declarator_name(p, prm.child_by_field_name("declarator")) == name for prm in parameters(frame.ctx.fn)):
            return None
        return self.member_key(frame, name) if name in frame.ctx.fields else None

    def member_key(self, frame: Frame, name: str) -> str:
        """``m:x`` for a member of the loop's class, ``m:K.x`` for one of another class ``K``."""
        cls = frame.ctx.cls
        if cls is None or self.ctx.cls is not None and cls.id == self.ctx.cls.id:
            return f"m:{name}"
        nm = cls.child_by_field_name("name")
        return f"m:{frame.ctx.p.text(nm) if nm is not None else cls.id}.{name}"

    def event(self, frame: Frame, expr: Node | None, kind: str, cond: tuple) -> None:
        k = self.key(frame, expr) if expr is not None else None
        if k is not None:
            self.events.append((k, kind, cond))
            nm = base_name(self.p_of(frame), expr)
            if nm and tensor_kind(frame.ctx, expr) is None and is_scalar(frame.ctx, nm, expr.start_byte):
                self.scalar_keys.add(k)

    # ------------------------------------------------------------------ walk
    def visit(self, node: Node, frame: Frame, cond: tuple, depth: int = 0) -> None:
        p = self.p_of(frame)
        t = node.type
        if t in ("lambda_expression", "function_definition", "comment"):
            return
        if t in ("break_statement",) and frame.ctx.fn.id == self.ctx.fn.id and not frame.inside \
                and enclosing(node, (*LOOPS, "switch_statement")) == self.loop:
            self.problems.append("break out of the loop")
        if t in ("return_statement", "goto_statement") and not frame.inside:
            self.problems.append(f"{t.split('_')[0]} inside the loop")
        if t == "assignment_expression":
            left = node.child_by_field_name("left")
            if unparen(left).type in ("identifier", "field_expression") and tensor_kind(frame.ctx, unparen(left)) == "global":
                self.problems.append("GlobalTensor rebound in the loop")
            self.visit(node.child_by_field_name("right"), frame, cond, depth)
            if p.text(node.child_by_field_name("operator")) != "=":
                self.event(frame, left, "r", cond)
            if unparen(left).type in ("pointer_expression", "subscript_expression") \
                    and self.is_pointer(frame, unparen(left)):
                self.pointer_access(unparen(left), frame, True)
            for c in left.named_children:
                if left.type == "subscript_expression" and c.type != "identifier":
                    self.visit(c, frame, cond, depth)
            self.event(frame, left, "w", cond)
            return
        if t == "update_expression":
            arg = node.child_by_field_name("argument")
            self.event(frame, arg, "r", cond)
            self.event(frame, arg, "w", cond)
            return
        if t == "identifier":
            par = node.parent
            if par is not None and par.type in ("declaration", "init_declarator") and par.child_by_field_name("declarator") == node:
                return
            self.event(frame, node, "r", cond)
            return
        if t == "field_expression" and node.child_by_field_name("argument").type == "this":
            self.event(frame, node, "r", cond)
            return
        if t == "call_expression":
            self.call(node, frame, cond, depth)
            return
        if t in ("pointer_expression", "subscript_expression") and self.is_pointer(frame, node) \
                and (t == "subscript_expression" or p.text(node).lstrip().startswith("*")):
            self.pointer_access(node, frame, False)
        for i, c in enumerate(node.children):
            branch = (t in _CONDITIONAL and c.type not in ("condition_clause", "(", ")")
                      and node.child_by_field_name("condition") != c
                      and node.child_by_field_name("initializer") != c)
            if t == "binary_expression" and p.text(node.child_by_field_name("operator")) in ("&&", "||"):
                branch = c == node.child_by_field_name("right")
            last = t == "if_statement" and c == node.child_by_field_name("consequence") \
                and self.last_iteration(node.child_by_field_name("condition"), frame) is True
            self.visit(c, frame, cond + ((node.id, i, "last") if last else (node.id, i),) if branch else cond, depth)

    def pointer_access(self, node: Node, frame: Frame, write: bool) -> None:
        """A GM access through a raw pointer (:mod:`ascendopt.cxx.gmptr`), one element."""
        from ascendopt.cxx.gmptr import deref
        got = deref(self, node, frame)
        if got is None:
            self.problems.append(f"{'write' if write else 'read'} through a pointer not resolved: "
                                 f"{self.p_of(frame).text(node)[:40]}")
            return
        base, elem, index = got
        if self.pointer_types.setdefault(base, elem) != elem:
            self.problems.append(f"{base[4:]} accessed as {elem} and {self.pointer_types[base]}")
        self.accesses.append(Access(base, write, index, ("one", None, None), node))

    def is_pointer(self, frame: Frame, node: Node) -> bool:
        """``node`` uses a pointer variable (a local, parameter or member declared ``T*`` or
        ``GM_ADDR``): a write or read through it may touch GM."""
        p = self.p_of(frame)
        return any(c.type == "identifier" and pointer_name(frame.ctx, p.text(c), c.start_byte) for c in walk(node))

    def gm_tensor(self, frame: Frame, expr: Node) -> str | None:
        """Key of the GlobalTensor ``expr`` names (through parameters), else None."""
        if tensor_kind(frame.ctx, expr) != "global":
            return None
        name = base_name(self.p_of(frame), expr)
        if name in frame.binds:
            arg, caller = frame.binds[name]
            return self.gm_tensor(caller, arg)
        return f"g:{self.prog.gm_sources().get(name, name)}"

    def gm_index(self, frame: Frame, expr: Node, extra: Node | None) -> Poly | None:
        """Element index of ``gm[off]`` (plus ``extra``) through parameter bindings."""
        p = self.p_of(frame)
        expr = unparen(expr)
        idx = Poly.const(0)
        if expr.type == "subscript_expression":
            inner = expr.child_by_field_name("indices") or expr.child_by_field_name("index")
            args = [c for c in inner.named_children if c.type != "comment"] if inner is not None else []
            off = self.value(args[0], frame) if len(args) == 1 else None
            if off is None:
                return None
            idx, expr = off, unparen(expr.child_by_field_name("argument"))
        name = base_name(p, expr)
        if name in frame.binds and expr.type == "identifier":
            arg, caller = frame.binds[name]
            base = self.gm_index(caller, arg, None)
            idx = None if base is None else idx + base
        if extra is not None and idx is not None:
            e = self.value(extra, frame)
            idx = None if e is None else idx + e
        return idx

    def call(self, node: Node, frame: Frame, cond: tuple, depth: int) -> None:
        p = self.p_of(frame)
        name = callee_name(p, node).removeprefix("template ").strip()
        args = call_args(node)
        recv = method_receiver(node)
        for a in args:
            if name in VECTOR_OPS | DMA_OPS and a == args[0]:
                continue
            self.visit(a, frame, cond, depth)
        if recv is not None and recv.type != "this":
            if recv.type != "identifier":
                self.visit(recv, frame, cond, depth)
            kind = tensor_kind(frame.ctx, recv)
            if name == "SetValue" and kind == "global" and len(args) == 2:
                self.accesses.append(Access(self.gm_tensor(frame, recv), True, self.gm_index(frame, recv, args[0]),
                                            ("one", None, None), node))
            elif name == "GetValue" and kind == "global" and len(args) == 1:
                self.accesses.append(Access(self.gm_tensor(frame, recv), False, self.gm_index(frame, recv, args[0]),
                                            ("one", None, None), node))
            elif name == "SetValue":
                self.event(frame, recv, "w", cond)
            elif name == "GetValue":
                self.event(frame, recv, "r", cond)
            elif name in ("AllocTensor", "EnQue"):
                self.event(frame, recv, "w", cond)
            elif name == "DeQue":
                self.event(frame, recv, "r", cond)
        if name in DMA_OPS and len(args) >= 3:
            dst, src = args[0], args[1]
            if tensor_kind(frame.ctx, dst) == "global":
                self.accesses.append(Access(self.gm_tensor(frame, dst), True, self.gm_index(frame, dst, None),
                                            self.copy_length(frame, name, args), node))
            else:
                self.event(frame, dst, "w", cond)
            if tensor_kind(frame.ctx, src) == "global":
                self.accesses.append(Access(self.gm_tensor(frame, src), False, self.gm_index(frame, src, None),
                                            self.copy_length(frame, name, args), node))
            return
        if name in VECTOR_OPS and args:
            if TABLE[name].group == "fused":
                self.event(frame, args[0], "r", cond)
            self.event(frame, args[0], "w", cond)
            return
        if _REFUSED_CALLS.match(name):
            self.problems.append(f"{name} in the loop")
        if name == "SetGlobalBuffer":  # the tensor's indices would be relative to a moving base
            self.problems.append("GlobalTensor rebound in the loop (SetGlobalBuffer)")
        callees = self.prog.resolve(frame.ctx, node)
        if len(callees) == 1 and depth < 6:
            callee = callees[0]
            self.inlined.add(callee.fn.id)
            prms = parameters(callee.fn)
            binds = {declarator_name(callee.p, prm.child_by_field_name("declarator")): (a, frame)
                     for prm, a in zip(prms, args)}
            for prm in prms:
                tt = callee.p.text(prm)
                nm = declarator_name(callee.p, prm.child_by_field_name("declarator"))
                if "&" in tt and "const" not in tt and nm in assigned_names(callee.p, callee.fn.child_by_field_name("body")):
                    self.problems.append(f"{callee.name} writes its reference parameter {nm}")
            body = callee.fn.child_by_field_name("body")
            if body is not None:
                site = frame.site if frame.inside else node.start_byte
                self.visit(body, Frame(callee, binds, True, site), cond, depth + 1)
        elif callees or (any(tensor_kind(frame.ctx, a) == "global" for a in args) and name not in _PURE_CALLS):
            self.problems.append(f"call {name} not followed")

    def copy_length(self, frame: Frame, name: str, args: list[Node]) -> tuple[str, Node | None, Frame | None]:
        """(unit, length node, frame) of a DMA: the count of ``DataCopy(dst, src, n)``, the byte
        length of a one-block ``DataCopyPad(dst, src, {1, bytes, ...})``; (``?``, ...) else."""
        p = self.p_of(frame)
        third = args[2]
        if name == "DataCopy" and len(args) == 3 and tensor_kind(frame.ctx, third) is None:
            return "elem", third, frame
        if name == "DataCopyPad":
            init, f = self.initializer(frame, third)
            if init is not None:
                items = [c for c in init.named_children if c.type != "comment"]
                if len(items) >= 2 and f.ctx.p.text(items[0]).strip() in ("1", "1U", "1u"):
                    return "byte", items[1], f
        return "?", None, None

    def initializer(self, frame: Frame, expr: Node) -> tuple[Node | None, Frame]:
        """The ``{...}`` list a struct argument was declared with (through parameters)."""
        p = self.p_of(frame)
        expr = unparen(expr)
        if expr.type == "initializer_list":
            return expr, frame
        if expr.type != "identifier":
            return None, frame
        name = p.text(expr)
        if name in frame.binds:
            arg, caller = frame.binds[name]
            return self.initializer(caller, arg)
        decl = self.local_decl(frame, name, expr)
        if decl is None or name in assigned_names(p, frame.ctx.fn.child_by_field_name("body")):
            return None, frame
        for c in decl.named_children:
            if c.type == "initializer_list":
                return c, frame
        value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
        return (value, frame) if value is not None and value.type == "initializer_list" else (None, frame)

    def last_iteration(self, cond: Node, frame: Frame) -> bool | None:
        """True for ``i + 1 == bound`` (or ``i == bound - 1``), False for the ``!=`` forms, None
        for any other condition (step-1 loops only)."""
        if cond.type == "condition_clause":
            cond = cond.child_by_field_name("value") or cond.named_children[-1]
        cond = unparen(cond)
        if self.cl.step is not None or cond.type != "binary_expression":
            return None
        op = self.p_of(frame).text(cond.child_by_field_name("operator"))
        if op not in ("==", "!="):
            return None
        a, b = self.value(cond.child_by_field_name("left"), frame), self.value(cond.child_by_field_name("right"), frame)
        bound = self.value(self.cl.bound, Frame(self.ctx))
        if a is None or b is None or bound is None:
            return None
        last = Poly.sym(I) + Poly.const(1) - bound
        if a - b in (last, -last):
            return op == "=="
        return None
