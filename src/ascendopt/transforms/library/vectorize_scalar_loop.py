"""Use vector instructions instead of scalar element loops (optimization ``vectorize_scalar_loop``, family ``vectorization``).

Motif ``scalar_loop`` (rewind, removes it): Remove vectorization: one element-wise vector instruction -> a scalar GetValue/SetValue loop.

A vector instruction processes 256 bytes per repeat on the V pipe; the same work done by the
scalar unit costs one UB read per source and one UB write per element, each a scalar
instruction, and the scalar unit also issues every other pipe's instructions, so nothing else
is issued while the loop runs.

Sites: every statement that is a count-form call (trailing element count) of one of the
element-wise instructions whose per-element result is plain C++ arithmetic on the element type
(no math library; half/bf16 behave as in the vector unit: the operation in fp32, one rounding
to the element type, which for + - * / on half is exact since fp32 has more than 2*11+2 bits):

- binary ``Op(dst, src0, src1, n)``: Add, Sub, Mul, Div, Max, Min, And, Or;
- unary ``Op(dst, src, n)``: Abs, Relu;
- tensor-scalar ``Op(dst, src, s, n)``: Adds, Muls, Maxs, Mins, LeakyRelu.

Transcendental instructions (Exp, Ln, Sqrt, Tanh, ...) are not sites: their scalar form would
need math functions the kernel cannot call. Known deviations: Abs of a NaN keeps its sign; the
scalar of the tensor-scalar forms is converted with ``static_cast`` to the element type.

The loop is bracketed by the synchronisation that keeps it correct: ``V -> S`` before (the
sources were produced, and the destination last read, by pipes ordered before the vector unit)
and ``S -> V`` after (every later consumer of the destination, and every later writer of the
sources, is ordered after the vector unit: queues, flags or barriers).

Rewrite ``vectorize_scalar_loop`` (Stage I, applies it): Vectorize a scalar element loop: ``for i in [0, n): dst.SetValue(i, f(src.GetValue(i), s))``
-> the vector instruction(s) computing ``f`` on ``n`` elements.

Sites: a counted ``for`` loop from 0 with step 1 whose body is one ``dst.SetValue(i, expr)``,
optionally preceded by declarations ``auto a = <expr>;`` that the final expression uses (they
are substituted). ``expr`` is translated when it is built from

- element reads ``x.GetValue(i)`` (``x[b].GetValue(i)`` or ``x.GetValue(b + i)`` read ``x[b]``),
- scalars (any subexpression that reads no element and not the loop variable),
- ``+ - * /`` between two element operands -> Add/Sub/Mul/Div; ``+`` ``*`` with a scalar ->
  Adds/Muls; ``t - s`` -> Adds(-s); ``s - t`` -> Muls(-1) then Adds(s); unary ``-t`` -> Muls(-1),
- ``max``/``min`` calls (any namespace, also ``fmax``/``fmin``) and the comparisons
  ``a > b ? a : b`` / ``a < b ? a : b`` (with or without an ``|| a != a`` NaN clause) ->
  Max/Min, or Maxs/Mins against a scalar; ``a < 0 ? -a : a`` -> Abs; ``a < 0 ? a * s : a`` ->
  LeakyRelu; ``abs``/``fabs``/``exp``/``sqrt``/``log`` calls -> Abs/Exp/Sqrt/Ln,
- a scalar alone -> Duplicate,

nested, as long as at most one operand of each operation is itself computed (the chain is
computed in place in ``dst``) and no element read after the first instruction reads ``dst``'s
variable. Not supported: ``t / s`` and ``s / t`` (no exact vector form), two computed operands,
casts of elements, reads at other indices, global-tensor operands (see ``datacopypad_tail``).

The scalar synchronisation directly around the loop (``PipeBarrier<PIPE_ALL>`` and
SetFlag/WaitFlag pairs on events to or from S, with the event ids fetched for them) is dropped:
the vector instructions are ordered by the queues like the rest of the compute. The race
checker validates the candidate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop, index_base, loop_label
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, unparen, walk
from ascendopt.cxx.scope import CONCRETE_TYPES, tensor_type
from ascendopt.cxx.sync import api_prefix, scalar_sync_around
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    calls,
    identifiers,
    is_method_call,
    is_zero,
    method_receiver,
    receiver,
    root_name,
    statement_call,
    statement_of,
)
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    Rewrite,
    Site,
    find_node,
    kernel_parsed,
    remove_statement,
    replace_statement,
    replace_with_lines,
)
from ascendopt.transforms.library._elemwise import flag_pair
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="vectorize_scalar_loop",
    family="vectorization",
    title="Use vector instructions instead of scalar element loops",
    mechanism="One vector instruction computes 256 bytes per repeat on the V pipe; a scalar loop issues "
              "a UB read per source and a UB write per element on the scalar unit, which also issues "
              "every other pipe's instructions and so stalls them while it loops.",
    bottleneck="scalar pipe saturated by GetValue/SetValue; V idle; copies wait for the scalar loop",
    scope="kernel",
    relieves=("scalar_heavy",),
)


# name -> (number of count-form arguments, C++ expression of one element: a, b = sources, s = scalar)
_BINARY = {
    "Add": "aoA + aoB", "Sub": "aoA - aoB", "Mul": "aoA * aoB", "Div": "aoA / aoB",
    "Max": "(aoA > aoB || aoA != aoA) ? aoA : aoB", "Min": "(aoA < aoB || aoA != aoA) ? aoA : aoB",
    "And": "aoA & aoB", "Or": "aoA | aoB",
}
_UNARY = {
    "Abs": "aoA < 0 ? -aoA : aoA + 0",
    "Relu": "(aoA > 0 || aoA != aoA) ? aoA : static_cast<decltype(aoA)>(0)",
}
_SCALAR = {
    "Adds": "aoA + aoS", "Muls": "aoA * aoS",
    "Maxs": "(aoA > aoS || aoA != aoA) ? aoA : aoS", "Mins": "(aoA < aoS || aoA != aoA) ? aoA : aoS",
    "LeakyRelu": "aoA < 0 ? aoA * aoS : aoA",
}
OPS = {**{k: 4 for k in _BINARY}, **{k: 3 for k in _UNARY}, **{k: 4 for k in _SCALAR}}


def loop_lines(op: str, args: list[str]) -> list[str]:
    """The scalar loop (with its synchronisation) computing ``op(*args)``."""
    dst, n = args[0], args[-1]
    body = [f"auto aoA = {args[1]}.GetValue(aoI);"]
    if op in _BINARY:
        body.append(f"auto aoB = {args[2]}.GetValue(aoI);")
        expr = _BINARY[op]
    elif op in _UNARY:
        expr = _UNARY[op]
    else:
        expr = _SCALAR[op]
    pre = []
    if op in _SCALAR:
        pre = [f"const auto aoS = static_cast<decltype({args[1]}.GetValue(0))>({args[2]});"]
    return (["int32_t aoEvt = 0;", *flag_pair("V", "S"), *pre,
             f"const int32_t aoN = static_cast<int32_t>({n});",
             "for (int32_t aoI = 0; aoI < aoN; ++aoI) {",
             *[f"    {b}" for b in body],
             f"    {dst}.SetValue(aoI, {expr});",
             "}",
             *flag_pair("S", "V")])


@register
class ScalarLoop(Motif):
    name = "scalar_loop"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, OPS):
                name = callee_name(p, call)
                if receiver(p, call) or len(call_args(call)) != OPS[name] or statement_of(call) is None:
                    continue
                sites.append(self.site(p, call, f"{p.text(call)} -> scalar loop ({p.file}:{p.line(call.start_byte)})",
                                       detail=name))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        call = find_node(p, site.start, site.end, "call_expression")
        name = callee_name(p, call)
        args = [p.text(a) for a in call_args(call)]
        return [replace_statement(p, statement_of(call), loop_lines(name, args),
                                  comment=f"scalar loop instead of {name}")]


_BIN = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_UNARY_CALLS = {"abs": "Abs", "fabs": "Abs", "exp": "Exp", "sqrt": "Sqrt", "log": "Ln"}
_MINMAX_CALLS = {"max": "Max", "fmax": "Max", "min": "Min", "fmin": "Min"}


class Unsupported(Exception):
    pass


@dataclass
class Val:
    """A translated subexpression: a scalar (``text``), an element read of tensor ``text``, or a
    value computed into the destination by ``instrs`` (kind ``dst``)."""

    kind: str  # scalar | leaf | dst
    text: str = ""
    root: str = ""  # variable of an element read
    instrs: list[tuple[str, list[str]]] = field(default_factory=list)


class _Translator:
    def __init__(self, p: Parsed, var: str, dst: str, env: dict[str, Node], at: Node):
        self.p, self.var, self.dst, self.env, self.at = p, var, dst, env, at
        self.pending: list[tuple[str, str]] = []  # element reads (root, text) of the next instruction

    # -- helpers
    def norm(self, n: Node) -> str:
        return "".join(self.p.text(unparen(n)).split())

    def is_scalar(self, n: Node) -> bool:
        ids = identifiers(self.p, n)
        if self.var in ids or ids & set(self.env):
            return False
        return not any(c.type == "call_expression" and is_method_call(c) and callee_name(self.p, c) == "GetValue"
                       for c in walk(n))

    def src(self, v: Val, out: list) -> str:
        """Operand text of ``v`` for the next instruction (appending its instructions)."""
        if v.kind == "dst":
            out.extend(v.instrs)
            return self.dst
        if v.kind == "leaf":
            self.pending.append((v.root, v.text))
        return v.text

    def emit(self, out: list, name: str, args: list[str]) -> Val:
        out.append((name, args, tuple(self.pending)))
        self.pending = []
        return Val("dst", instrs=out)

    # -- translation
    def tr(self, n: Node) -> Val:
        n = unparen(n)
        if self.is_scalar(n):
            return Val("scalar", self.p.text(n))
        t = n.type
        if t == "identifier" and self.p.text(n) in self.env:
            return self.tr(self.env[self.p.text(n)])
        if t == "call_expression":
            return self.call(n)
        if t == "binary_expression":
            return self.binary(self.p.text(n.child_by_field_name("operator")), n.child_by_field_name("left"),
                               n.child_by_field_name("right"))
        if t == "unary_expression" and self.p.text(n.child_by_field_name("operator")) == "-":
            a = self.tr(n.child_by_field_name("argument"))
            out: list = []
            return self.emit(out, "Muls", [self.dst, self.src(a, out), "-1"])
        if t == "conditional_expression":
            return self.select(n)
        raise Unsupported(f"{t} {self.p.text(n)[:40]}")

    def call(self, n: Node) -> Val:
        name = callee_name(self.p, n)
        args = call_args(n)
        if is_method_call(n) and name == "GetValue" and len(args) == 1:
            ok, base = index_base(self.p, args[0], self.var)
            recv = method_receiver(n)
            if not ok or self.var in identifiers(self.p, recv):
                raise Unsupported("element read at another index")
            root = root_name(self.p, recv)
            kind = tensor_type(self.p, self.at, root or "").pair()
            if root is None or kind is not None and kind[0] != "LocalTensor":
                raise Unsupported("global tensor operand")
            text = self.p.text(recv) + (f"[{self.p.text(base)}]" if base is not None else "")
            return Val("leaf", text, root)
        if is_method_call(n):
            raise Unsupported(f"method {name}")
        low = name.lower()
        if low in _UNARY_CALLS and len(args) == 1:
            a = self.tr(args[0])
            out: list = []
            return self.emit(out, _UNARY_CALLS[low], [self.dst, self.src(a, out)])
        if low in _MINMAX_CALLS and len(args) == 2:
            return self.minmax(_MINMAX_CALLS[low], args[0], args[1])
        raise Unsupported(f"call {name}")

    def minmax(self, op: str, a_node: Node, b_node: Node) -> Val:
        a, b = self.tr(a_node), self.tr(b_node)
        if a.kind == "scalar":
            a, b = b, a
        out: list = []
        if b.kind == "scalar":
            return self.emit(out, op + "s", [self.dst, self.src(a, out), b.text])
        return self.two(op, a, b)

    def two(self, op: str, a: Val, b: Val) -> Val:
        if a.kind == "dst" and b.kind == "dst":
            raise Unsupported("two computed operands")
        out: list = []
        sa = self.src(a, out)
        sb = self.src(b, out)
        return self.emit(out, op, [self.dst, sa, sb])

    def binary(self, op: str, left: Node, right: Node) -> Val:
        if op not in _BIN:
            raise Unsupported(f"operator {op}")
        a, b = self.tr(left), self.tr(right)
        out: list = []
        if a.kind != "scalar" and b.kind != "scalar":
            return self.two(_BIN[op], a, b)
        if op == "/":
            raise Unsupported("division by or of a scalar")
        if a.kind == "scalar":  # s op t
            if op == "-":
                self.emit(out, "Muls", [self.dst, self.src(b, out), "-1"])
                return self.emit(out, "Adds", [self.dst, self.dst, a.text])
            return self.emit(out, "Adds" if op == "+" else "Muls", [self.dst, self.src(b, out), a.text])
        s = b.text if op != "-" else f"-({b.text})"
        return self.emit(out, "Adds" if op in "+-" else "Muls", [self.dst, self.src(a, out), s])

    def select(self, n: Node) -> Val:
        cond = unparen(n.child_by_field_name("condition"))
        cons, alt = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
        # drop a NaN-propagation clause ``|| a != a``
        if cond.type == "binary_expression" and self.p.text(cond.child_by_field_name("operator")) == "||":
            r = unparen(cond.child_by_field_name("right"))
            if r.type == "binary_expression" and self.p.text(r.child_by_field_name("operator")) == "!=" \
                    and self.norm(r.child_by_field_name("left")) == self.norm(r.child_by_field_name("right")):
                cond = unparen(cond.child_by_field_name("left"))
        if cond.type != "binary_expression":
            raise Unsupported("select condition")
        op = self.p.text(cond.child_by_field_name("operator"))
        l, r = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if op in (">", ">="):  # normalise to l < r
            l, r, op = r, l, "<" if op == ">" else "<="
        if op not in ("<", "<="):
            raise Unsupported("select comparison")
        nl, nr, nc, na = self.norm(l), self.norm(r), self.norm(cons), self.norm(alt)
        if {nl, nr} == {nc, na}:  # l < r ? l : r is min, l < r ? r : l is max
            return self.minmax("Min" if nc == nl else "Max", cons, alt)
        if is_zero(self.p, r) and nc == f"-{nl}" or is_zero(self.p, r) and nc == f"-({nl})":
            if na in (nl, f"{nl}+0"):  # x < 0 ? -x : x
                a = self.tr(l)
                out: list = []
                return self.emit(out, "Abs", [self.dst, self.src(a, out)])
        if is_zero(self.p, r) and na == nl and unparen(cons).type == "binary_expression" \
                and self.p.text(unparen(cons).child_by_field_name("operator")) == "*":
            c = unparen(cons)
            f1, f2 = c.child_by_field_name("left"), c.child_by_field_name("right")
            for x, s in ((f1, f2), (f2, f1)):
                if self.norm(x) == nl and self.is_scalar(s):  # x < 0 ? x * s : x
                    a = self.tr(l)
                    out = []
                    return self.emit(out, "LeakyRelu", [self.dst, self.src(a, out), self.p.text(s)])
        raise Unsupported("select shape")


def translate(p: Parsed, loop: Node) -> tuple[list[str], str] | None:
    """(instruction lines without prefix/count, label) for a vectorizable loop, else None."""
    cl = counted_loop(p, loop)
    if cl is None or cl.step is not None or not is_zero(p, cl.start):
        return None
    body = loop.child_by_field_name("body")
    stmts = [c for c in body.named_children if c.type != "comment"] if body.type == "compound_statement" else [body]
    if not stmts:
        return None
    env: dict[str, Node] = {}
    for d in stmts[:-1]:
        decls = [x for x in d.named_children if x.type == "init_declarator"] if d.type == "declaration" else []
        if len(decls) != 1 or decls[0].child_by_field_name("value") is None:
            return None
        env[declarator_name(p, decls[0].child_by_field_name("declarator"))] = decls[0].child_by_field_name("value")
    call = statement_call(stmts[-1])
    if call is None or not is_method_call(call) or callee_name(p, call) != "SetValue" or len(call_args(call)) != 2:
        return None
    idx, expr = call_args(call)
    ok, base = index_base(p, idx, cl.var)
    recv = method_receiver(call)
    if not ok or cl.var in identifiers(p, recv):
        return None
    dst_kind = tensor_type(p, loop, root_name(p, recv) or "").pair()
    if dst_kind is not None and dst_kind[0] != "LocalTensor":
        return None
    dst = p.text(recv) + (f"[{p.text(base)}]" if base is not None else "")
    tr = _Translator(p, cl.var, dst, env, loop)
    try:
        v = tr.tr(expr)
    except (Unsupported, RecursionError):
        return None
    if v.kind == "leaf":
        return None  # a plain copy
    instrs = [("Duplicate", [dst, v.text], ())] if v.kind == "scalar" else v.instrs
    dst_root = root_name(p, recv)
    for k, (_, _, reads) in enumerate(instrs):
        for root, text in reads:
            # an element read of dst's variable: only in place, and only before dst is written
            if root == dst_root and (k > 0 or text != dst):
                return None
            # operand element types must agree with dst's when both are declared
            # (template parameters may be equal: the build decides)
            rk = tensor_type(p, loop, root).pair()
            if dst_kind is not None and rk is not None and rk[1] != dst_kind[1] \
                    and {rk[1], dst_kind[1]} <= CONCRETE_TYPES:
                return None
    n = p.text(cl.bound)
    lines = [f"{name}({', '.join(args + [n])});" for name, args, _ in instrs]
    return lines, " + ".join(name for name, _, _ in instrs)


@register
class VectorizeScalarLoop(Rewrite):
    name = "vectorize_scalar_loop"
    optimization = OPTIMIZATION
    anchors = ('for_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for n in of_type(p, "for_statement"):
                got = translate(p, n)
                if got is not None:
                    sites.append(self.site(p, n, f"{got[1]} for {p.text(counted_loop(p, n).bound)} elements "
                                                 f"{loop_label(p, n.parent or n)}".replace(", loop", ", in loop")))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        lines, _ = translate(p, loop)
        pre = api_prefix(p)
        return [replace_with_lines(p, loop, [pre + line for line in lines]),
                *(remove_statement(p, s) for s in scalar_sync_around(p, loop))]
