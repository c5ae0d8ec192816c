"""Translation of a scalar element loop's expressions into vector instructions (used by
:mod:`ascendopt.transforms.library.vectorize_scalar_loop`).

Two steps. :class:`Builder` turns each ``dst.SetValue(i, expr)`` of the loop body into a DAG of
:class:`E` nodes (element reads, scalars, vector operations with their element types; equal
subexpressions are one node, so a local used twice is computed once). :class:`Gen` emits the
instructions: each node is computed into the tensor its consumer asks for (the destination
first, so a chain is computed in place as before), and into a temporary when that tensor is
taken, has another element type, or the node is shared. Temporaries are named ``aoVt<k>``;
the caller allocates them (one ``TBuf`` each) for the loop's element bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.affine import index_base
from ascendopt.cxx.parse import Parsed, unparen, walk
from ascendopt.cxx.scope import tensor_type
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    identifiers,
    is_method_call,
    is_zero,
    method_receiver,
    root_name,
)

FLOATS = frozenset({"float", "half", "bfloat16_t", "float16_t", "float32_t"})
INTS = frozenset({"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "int",
                  "bool"})
_CANON = {"float16_t": "half", "float32_t": "float"}
_BIN = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
# unary calls computed as before on any element type (their C++ overloads compute in fp32)
_UNARY_ANY = {"abs": "Abs", "fabs": "Abs", "exp": "Exp", "sqrt": "Sqrt", "log": "Ln"}
# unary math calls on float operands: the emulation computes exactly the fp32 libm function
_UNARY_FLOAT = {"fabsf": "Abs", "expf": "Exp", "sqrtf": "Sqrt", "logf": "Ln", "tanh": "Tanh", "tanhf": "Tanh",
                "sin": "Sin", "sinf": "Sin", "cos": "Cos", "cosf": "Cos", "floor": "Floor", "floorf": "Floor",
                "ceil": "Ceil", "ceilf": "Ceil", "trunc": "Trunc", "truncf": "Trunc", "rint": "Round",
                "rintf": "Round", "nearbyint": "Round", "nearbyintf": "Round", "erf": "Erf", "erff": "Erf",
                "log2": "Log2", "log2f": "Log2", "log10": "Log10", "log10f": "Log10"}
_MINMAX = {"max": "Max", "fmax": "Max", "fmaxf": "Max", "min": "Min", "fmin": "Min", "fminf": "Min"}
_CMP = {"<": "LT", ">": "GT", "<=": "LE", ">=": "GE", "==": "EQ", "!=": "NE"}
_SWAP = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE", "EQ": "EQ", "NE": "NE"}
SCALAR_OPS = frozenset({"Adds", "Muls", "Maxs", "Mins", "LeakyRelu"})


class Unsupported(Exception):
    pass


def canon(t: str | None) -> str | None:
    return _CANON.get(t, t) if t else t


@dataclass(eq=False)
class E:
    """A value per element: ``leaf`` (element read of tensor ``text``, variable ``root``),
    ``scalar`` (``text``), or a vector operation ``op`` on ``args`` with scalar operands / modes
    ``extra``, of element type ``ty`` (None: a scalar, typed by its use)."""

    op: str
    ty: str | None = None
    args: tuple[E, ...] = ()
    extra: tuple[str, ...] = ()
    text: str = ""
    root: str = ""

    @property
    def computed(self) -> bool:
        return self.op not in ("leaf", "scalar")


@dataclass
class Builder:
    """Expression trees of one loop body -> :class:`E` DAG (``env``: locals declared in the
    body, name -> (initializer, declared type text or None for ``auto``))."""

    p: Parsed
    var: str
    at: Node
    env: dict[str, tuple[Node, str | None]]
    memo: dict[tuple, E] = field(default_factory=dict)
    locals_: dict[str, E] = field(default_factory=dict)

    def mk(self, op: str, ty: str | None, args: tuple[E, ...] = (), extra: tuple[str, ...] = (),
           text: str = "", root: str = "") -> E:
        key = (op, ty, tuple(id(a) for a in args), extra, text)
        if key not in self.memo:
            self.memo[key] = E(op, ty, args, extra, text, root)
        return self.memo[key]

    def norm(self, n: Node) -> str:
        return "".join(self.p.text(unparen(n)).split())

    def is_scalar(self, n: Node) -> bool:
        ids = identifiers(self.p, n)
        if self.var in ids or ids & set(self.env):
            return False
        return not any(c.type == "call_expression" and is_method_call(c) and callee_name(self.p, c) == "GetValue"
                       for c in walk(n))

    # -- types
    def cast(self, e: E, ty: str | None) -> E:
        """``e`` converted to element type ``ty`` as C++ converts it (RINT when narrowing)."""
        ty = canon(ty)
        if e.op == "scalar" or ty is None or e.ty == ty:
            return e
        if e.ty in FLOATS and ty in FLOATS:
            return self.mk("Cast", ty, (e,), ("CAST_RINT" if ty != "float" else "CAST_NONE",))
        if e.ty in INTS - {"bool"} and ty == "float":  # C++ and Cast both round to nearest even
            return self.mk("Cast", ty, (e,), ("CAST_NONE",))
        if e.ty is not None and {e.ty, ty} - FLOATS - INTS and "float" in (e.ty, ty):
            # to or from a template element type: CAST_NONE (exact widening; float -> half/bf16
            # rounds to nearest even as C++ does; an integer type would round, not truncate)
            return self.mk("Cast", ty, (e,), ("CAST_NONE",))
        if e.ty is None or e.ty not in FLOATS | INTS or ty not in FLOATS | INTS:
            return e  # template parameters may be equal: the build decides (a mismatch does not compile)
        raise Unsupported(f"conversion {e.ty} -> {ty}")

    def unify(self, a: E, b: E) -> tuple[E, E]:
        """The usual arithmetic conversions between two element values."""
        if a.ty == b.ty or a.op == "scalar" or b.op == "scalar":
            return a, b
        if a.ty == "float" and b.ty in FLOATS:
            return a, self.cast(b, "float")
        if b.ty == "float" and a.ty in FLOATS:
            return self.cast(a, "float"), b
        if a.ty is None or b.ty is None or a.ty not in FLOATS | INTS or b.ty not in FLOATS | INTS:
            return a, b  # template parameters: the build decides
        raise Unsupported(f"operand types {a.ty} and {b.ty}")

    # -- translation
    def tr(self, n: Node) -> E:
        n = unparen(n)
        if self.is_scalar(n):
            return self.mk("scalar", None, text=self.p.text(n))
        t = n.type
        if t == "identifier" and self.p.text(n) in self.env:
            name = self.p.text(n)
            if name not in self.locals_:
                init, ty = self.env[name]
                self.locals_[name] = self.cast(self.tr(init), ty) if ty else self.tr(init)
            return self.locals_[name]
        if t == "call_expression":
            return self.call(n)
        if t == "binary_expression":
            op = self.p.text(n.child_by_field_name("operator"))
            return self.binary(op, n.child_by_field_name("left"), n.child_by_field_name("right"))
        if t == "unary_expression" and self.p.text(n.child_by_field_name("operator")) == "-":
            a = self.tr(n.child_by_field_name("argument"))
            return self.mk("Muls", a.ty, (a,), ("-1",))
        if t == "conditional_expression":
            return self.select(n.child_by_field_name("condition"), n.child_by_field_name("consequence"),
                               n.child_by_field_name("alternative"))
        if t == "cast_expression":
            return self.cast(self.tr(n.child_by_field_name("value")), self.p.text(n.child_by_field_name("type")))
        raise Unsupported(f"{t} {self.p.text(n)[:40]}")

    def leaf(self, n: Node) -> E:
        """The element read ``x.GetValue(i)`` (also the element ``x.SetValue(i, v)`` writes)."""
        args = call_args(n)
        ok, base = index_base(self.p, args[0], self.var)
        recv = method_receiver(n)
        if not ok or self.var in identifiers(self.p, recv):
            raise Unsupported("element read at another index")
        root = root_name(self.p, recv)
        tt = tensor_type(self.p, self.at, root or "")
        kind = tt.pair()
        if root is None or kind is not None and kind[0] != "LocalTensor":
            raise Unsupported("global tensor operand")
        text = self.p.text(recv) + (f"[{self.p.text(base)}]" if base is not None else "")
        return self.mk("leaf", canon(kind[1]) if kind else None, text=text, root=root)

    def call(self, n: Node) -> E:
        name = callee_name(self.p, n)
        args = call_args(n)
        if is_method_call(n):
            if name == "GetValue" and len(args) == 1:
                return self.leaf(n)
            raise Unsupported(f"method {name}")
        fn = n.child_by_field_name("function")
        if fn.type == "parenthesized_expression" and canon(self.norm(fn)) in FLOATS | INTS and len(args) == 1:
            return self.cast(self.tr(args[0]), self.norm(fn))  # ``(half)(e)`` parsed as a call
        fn = unparen(fn)
        if fn.type == "template_function" and name == "static_cast" and len(args) == 1:
            targ = fn.child_by_field_name("arguments")
            return self.cast(self.tr(args[0]), self.p.text(targ)[1:-1].strip())
        low = name.lower()
        if low in _MINMAX and len(args) == 2:
            return self.minmax(_MINMAX[low], self.tr(args[0]), self.tr(args[1]))
        if len(args) == 1 and (low in _UNARY_ANY or low in _UNARY_FLOAT):
            a = self.tr(args[0])
            if a.op == "scalar":
                raise Unsupported("math on a scalar")
            if low not in _UNARY_ANY and a.ty != "float":
                raise Unsupported(f"{name} on {a.ty}")
            op = _UNARY_ANY.get(low) or _UNARY_FLOAT[low]
            if op == "Sqrt" and a.ty not in FLOATS and a.ty in INTS:
                raise Unsupported("integer sqrt")
            return self.mk(op, a.ty, (a,))
        raise Unsupported(f"call {name}")

    def minmax(self, op: str, a: E, b: E) -> E:
        if a.op == "scalar":
            a, b = b, a
        if b.op == "scalar":
            return self.mk(op + "s", a.ty, (a,), (b.text,))
        a, b = self.unify(a, b)
        return self.mk(op, a.ty, (a, b))

    def binary(self, op: str, left: Node, right: Node) -> E:
        if op not in _BIN:
            raise Unsupported(f"operator {op}")
        a, b = self.tr(left), self.tr(right)
        if a.op != "scalar" and b.op != "scalar":
            a, b = self.unify(a, b)
            if op == "/" and a.ty in INTS:
                raise Unsupported("integer division")
            return self.mk(_BIN[op], a.ty, (a, b))
        t = b if a.op == "scalar" else a
        if op == "/":
            if t.ty is None or t.ty in INTS:
                raise Unsupported("division of an integer or untyped element")
            if a.op == "scalar" and self.norm(left) in ("1", "1.0", "1.0f", "1.f", "1.0F"):
                if t.op == "Sqrt":
                    return self.mk("Rsqrt", t.ty, t.args)
                return self.mk("Reciprocal", t.ty, (t,))
            dup = self.mk("Duplicate", t.ty, (), (a.text if a.op == "scalar" else b.text,))
            return self.mk("Div", t.ty, (dup, b) if a.op == "scalar" else (a, dup))
        if a.op == "scalar":  # s op t
            if op == "-":
                return self.mk("Adds", b.ty, (self.mk("Muls", b.ty, (b,), ("-1",)),), (a.text,))
            return self.mk("Adds" if op == "+" else "Muls", b.ty, (b,), (a.text,))
        s = b.text if op != "-" else f"-({b.text})"
        return self.mk("Adds" if op in "+-" else "Muls", a.ty, (a,), (s,))

    # -- selects
    def select(self, cond: Node, cons: Node, alt: Node | E) -> E:
        """``cond ? cons : alt`` (``alt`` may be an element already translated: the old value
        of the destination of ``if (cond) dst.SetValue(i, cons);``)."""
        cond = unparen(cond)
        plain = cond
        # drop a NaN-propagation clause ``|| a != a`` (Max/Min propagate NaN of their first operand)
        nan_clause = False
        if cond.type == "binary_expression" and self.p.text(cond.child_by_field_name("operator")) == "||":
            r = unparen(cond.child_by_field_name("right"))
            if r.type == "binary_expression" and self.p.text(r.child_by_field_name("operator")) == "!=" \
                    and self.norm(r.child_by_field_name("left")) == self.norm(r.child_by_field_name("right")):
                cond, nan_clause = unparen(cond.child_by_field_name("left")), True
        if cond.type != "binary_expression":
            raise Unsupported("select condition")
        op = self.p.text(cond.child_by_field_name("operator"))
        if op not in _CMP:
            raise Unsupported("select comparison")
        got = None if isinstance(alt, E) else \
            self.select_idiom(op, cond.child_by_field_name("left"), cond.child_by_field_name("right"), cons, alt)
        if got is not None:
            return got
        if nan_clause or plain is not cond:
            raise Unsupported("select with a NaN clause")
        return self.compare_select(op, cond.child_by_field_name("left"), cond.child_by_field_name("right"), cons, alt)

    def select_idiom(self, op: str, l: Node, r: Node, cons: Node, alt: Node) -> E | None:
        """Max/Min/Abs/LeakyRelu written as a conditional (the forms accepted before)."""
        if op in (">", ">="):  # normalise to l < r
            l, r, op = r, l, "<" if op == ">" else "<="
        if op not in ("<", "<="):
            return None
        nl, nr, nc, na = self.norm(l), self.norm(r), self.norm(cons), self.norm(alt)
        if {nl, nr} == {nc, na}:  # l < r ? l : r is min, l < r ? r : l is max
            return self.minmax("Min" if nc == nl else "Max", self.tr(cons), self.tr(alt))
        if is_zero(self.p, r) and nc in (f"-{nl}", f"-({nl})") and na in (nl, f"{nl}+0"):  # x < 0 ? -x : x
            a = self.tr(l)
            return self.mk("Abs", a.ty, (a,))
        c = unparen(cons)
        if is_zero(self.p, r) and na == nl and c.type == "binary_expression" \
                and self.p.text(c.child_by_field_name("operator")) == "*":
            f1, f2 = c.child_by_field_name("left"), c.child_by_field_name("right")
            for x, s in ((f1, f2), (f2, f1)):
                if self.norm(x) == nl and self.is_scalar(s):  # x < 0 ? x * s : x
                    a = self.tr(l)
                    return self.mk("LeakyRelu", a.ty, (a,), (self.p.text(s),))
        return None

    def compare_select(self, op: str, l: Node, r: Node, cons: Node, alt: Node | E) -> E:
        """``l op r ? cons : alt`` -> Compare(mask) + Select."""
        a, b = self.tr(l), self.tr(r)
        mode = _CMP[op]
        if a.op == "scalar":
            a, b, mode = b, a, _SWAP[mode]
        if a.op == "scalar":
            raise Unsupported("comparison of scalars")
        if b.op != "scalar":
            a, b = self.unify(a, b)
        if a.ty is None:
            raise Unsupported("comparison of untyped elements")
        mask = self.mk("Compare", "mask", (a,) if b.op == "scalar" else (a, b),
                       (mode,) + ((b.text,) if b.op == "scalar" else ()))
        x, y = self.tr(cons), alt if isinstance(alt, E) else self.tr(alt)
        if x.op == "scalar" and y.op == "scalar":
            raise Unsupported("select of two scalars")
        if x.op != "scalar" and y.op != "scalar":
            x, y = self.unify(x, y)
        ty = x.ty if x.op != "scalar" else y.ty
        if x.op == "scalar":
            x = self.mk("Duplicate", ty, (), (x.text,))
        if y.op == "scalar":
            return self.mk("Select", ty, (mask, x), (y.text,))
        return self.mk("Select", ty, (mask, x, y))


# ----------------------------------------------------------------------------- code generation
@dataclass(frozen=True)
class Target:
    text: str
    ty: str | None
    root: str = ""  # the variable written ('' for a temporary)


@dataclass
class Instr:
    name: str
    args: list[str]
    count: str
    writes: str                      # variable written ('' for a temporary)
    reads: list[tuple[str, str]]     # element reads: (variable, tensor text)

    def line(self) -> str:
        return f"{self.name}({', '.join(self.args + [self.count])});"


_BINARY_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Max", "Min"})
_UNARY_OPS = frozenset({"Abs", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Tanh", "Sin", "Cos", "Floor", "Ceil",
                        "Trunc", "Round", "Erf", "Log2", "Log10"})


def repeat_count(n: str, ty: str) -> str:
    """``n`` rounded up to whole 256-byte repeats of ``ty`` (the count forms of Compare and
    CompareScalar compare whole repeats only)."""
    r = f"(256 / sizeof({ty}))"
    return f"(({n}) + {r} - 1) / {r} * {r}"


@dataclass
class Gen:
    """Emits the instructions computing the DAG's roots into their targets."""

    n: str
    pre: str = ""
    uses: dict[int, int] = field(default_factory=dict)
    instrs: list[Instr] = field(default_factory=list)
    temps: list[tuple[str, str]] = field(default_factory=list)
    free: list[str] = field(default_factory=list)
    done: dict[int, str] = field(default_factory=dict)
    padded: set[str] = field(default_factory=set)  # temporaries read past n (sized in whole repeats)

    def count_uses(self, roots: list[E]) -> None:
        seen: set[int] = set()

        def visit(e: E) -> None:
            if id(e) in seen:
                return
            seen.add(id(e))
            for a in e.args:
                self.uses[id(a)] = self.uses.get(id(a), 0) + 1
                visit(a)
        for r in roots:
            self.uses[id(r)] = self.uses.get(id(r), 0) + 1
            visit(r)

    def temp(self, ty: str | None) -> str:
        if ty is None:
            raise Unsupported("temporary of unknown element type")
        for k, name in enumerate(self.free):
            if dict(self.temps)[name] == ty:
                return self.free.pop(k)
        name = f"aoVt{len(self.temps)}"
        self.temps.append((name, ty))
        return name

    def emit(self, name: str, t: Target, srcs: list[tuple[E, str]], extra: list[str], count: str = "") -> None:
        reads = [(e.root, s) for e, s in srcs if e.op == "leaf" and s == e.text]
        self.instrs.append(Instr(name, [t.text, *(s for _, s in srcs), *extra], count or self.n, t.root, reads))

    def value(self, e: E, target: Target | None) -> tuple[str, bool]:
        """A tensor holding ``e`` (computed into ``target`` when that may hold it), and whether
        it is a temporary for the caller to release."""
        if e.op == "leaf":
            return e.text, False
        if id(e) in self.done:
            return self.done[id(e)], False
        shared = self.uses.get(id(e), 0) > 1
        if target is not None and not shared and target.ty == e.ty:
            self.compute(e, target)
            return target.text, False
        t = self.temp(e.ty)
        self.compute(e, Target(t, e.ty))
        if shared:
            self.done[id(e)] = t
            return t, False
        return t, True

    @staticmethod
    def free_target(t: Target, later: tuple[E, ...]) -> Target | None:
        """``t`` unless a later operand of the same instruction is an element of ``t``'s
        variable (it must still hold its old value)."""
        return None if t.root and any(x.op == "leaf" and x.root == t.root for x in later) else t

    def release(self, *names: tuple[str, bool]) -> None:
        for name, rel in names:
            if rel:
                self.free.append(name)

    def compute(self, e: E, t: Target) -> None:
        if e.op == "Duplicate":
            self.instrs.append(Instr("Duplicate", [t.text, *e.extra], self.n, t.root, []))
        elif e.op == "Cast":
            s = self.value(e.args[0], None)
            self.emit("Cast", t, [(e.args[0], s[0])], [f"{self.pre}RoundMode::{e.extra[0]}"])
            self.release(s)
        elif e.op in _UNARY_OPS or e.op in SCALAR_OPS:
            s = self.value(e.args[0], t)
            self.emit(e.op, t, [(e.args[0], s[0])], list(e.extra))
            self.release(s)
        elif e.op in _BINARY_OPS:
            a = self.value(e.args[0], self.free_target(t, e.args[1:]))
            b = self.value(e.args[1], None if a[0] == t.text else t)
            self.emit(e.op, t, [(e.args[0], a[0]), (e.args[1], b[0])], [])
            self.release(a, b)
        elif e.op == "Compare":
            self.compare(e, t)
        elif e.op == "Select":
            m = self.value(e.args[0], None)
            x = self.value(e.args[1], self.free_target(t, e.args[2:]))
            srcs = [(e.args[0], m[0]), (e.args[1], x[0])]
            held = [m, x]
            if len(e.args) == 3:
                y = self.value(e.args[2], None if x[0] == t.text else t)
                srcs.append((e.args[2], y[0]))
                held.append(y)
                self.emit("Select", t, srcs, [f"{self.pre}SELMODE::VSEL_TENSOR_TENSOR_MODE"])
            else:
                self.emit("Select", t, srcs, [f"static_cast<{e.ty}>({e.extra[0]})",
                                              f"{self.pre}SELMODE::VSEL_TENSOR_SCALAR_MODE"])
            self.release(*held)
        else:
            raise Unsupported(f"no instruction for {e.op}")

    def padded_value(self, e: E) -> tuple[str, bool]:
        """``e`` in a temporary (which is sized in whole repeats, so reading past ``n`` stays in
        its buffer): element reads are copied first (x * 1 is x)."""
        if e.op != "leaf" and id(e) not in self.done:
            got = self.value(e, None)
            self.padded.add(got[0])
            return got
        if e.op != "leaf":
            self.padded.add(self.done[id(e)])
            return self.done[id(e)], False
        t = self.temp(e.ty)
        self.padded.add(t)
        self.emit("Muls", Target(t, e.ty), [(e, e.text)], ["1"])
        return t, True

    def compare(self, e: E, t: Target) -> None:
        a = self.padded_value(e.args[0])
        cnt = repeat_count(self.n, e.args[0].ty or "")
        self.padded.add(t.text)
        mode = f"{self.pre}CMPMODE::{e.extra[0]}"
        if len(e.args) == 2:
            b = self.padded_value(e.args[1])
            self.emit("Compare", t, [(e.args[0], a[0]), (e.args[1], b[0])], [mode], cnt)
            self.release(a, b)
        else:
            s = f"static_cast<{e.args[0].ty}>({e.extra[1]})"
            self.emit("CompareScalar", t, [(e.args[0], a[0])], [s, mode], cnt)
            self.release(a)

    def store(self, e: E, dst: Target) -> None:
        """Computes root ``e`` into the destination."""
        if e.op == "scalar":
            self.instrs.append(Instr("Duplicate", [dst.text, e.text], self.n, dst.root, []))
            return
        if e.op == "leaf":
            raise Unsupported("a plain copy")
        if id(e) in self.done:  # computed for an earlier output: copied (x * 1 is x, -0 included)
            self.emit("Muls", dst, [(e, self.done[id(e)])], ["1"])
            return
        self.compute(e, dst)
        if self.uses.get(id(e), 0) > 1:  # also used by a later output: read from dst
            self.done[id(e)] = dst.text
