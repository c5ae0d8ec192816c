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

Sites: a counted ``for`` loop from 0 with step 1 whose body is declarations ``T a = <expr>;``
(``auto``, or a type: the value is converted to it) and one or more outputs, each
``dst.SetValue(i, expr)``, ``if (c) dst.SetValue(i, a); else dst.SetValue(i, b);`` (= ``c ? a
: b``) or ``if (c) dst.SetValue(i, a);`` (= ``c ? a : dst.GetValue(i)``), on different tensors; no assignment or increment in the body (no value carried across
iterations). Each ``expr`` is translated (:mod:`._vecexpr`) when it is built from

- element reads ``x.GetValue(i)`` (``x[b].GetValue(i)`` or ``x.GetValue(b + i)`` read ``x[b]``),
- scalars (any subexpression that reads no element and not the loop variable),
- ``+ - * /`` between two element operands -> Add/Sub/Mul/Div (Div not on integer types: C++
  truncates); ``+`` ``*`` with a scalar -> Adds/Muls; ``t - s`` -> Adds(-s); ``s - t`` ->
  Muls(-1) then Adds(s); unary ``-t`` -> Muls(-1); ``t / s`` and ``s / t`` -> Div with the
  scalar Duplicate'd; ``1 / t`` -> Reciprocal, ``1 / sqrt(t)`` -> Rsqrt (the emulation computes
  ``1.0f / x``, as the scalar code does),
- ``max``/``min`` calls and the conditionals ``a > b ? a : b`` (also with a ``|| a != a`` NaN
  clause) -> Max/Min(s); ``a < 0 ? -a : a`` -> Abs; ``a < 0 ? a * s : a`` -> LeakyRelu;
  ``abs``/``fabs``/``exp``/``sqrt``/``log`` -> Abs/Exp/Sqrt/Ln on any element type; on float
  elements also ``tanh sin cos floor ceil trunc rint nearbyint erf log2 log10`` (and the ``f``
  spellings) -> the AscendC math instruction, which the emulation computes with the same fp32
  libm function (``round`` is not: it rounds half away from zero, Round to even),
- any other conditional ``l op r ? a : b`` (op one of ``< > <= >= == !=``) -> Compare /
  CompareScalar into a bit mask, then Select; the count forms of Compare compare whole 256-byte
  repeats only, so it runs on whole repeats of copies of its operands in temporaries sized so,
- casts: ``static_cast<T>(e)``, ``(T)e``, a local declared ``float a = x`` of a half ``x``, the
  usual arithmetic conversion of ``half op float``, and ``SetValue`` of a float value into a
  half tensor -> Cast: widening ``CAST_NONE`` (exact), float -> half/bf16 ``CAST_RINT`` (C++
  rounds to nearest even), integer -> float ``CAST_NONE`` (nearest even in both); to or from a
  template element type ``CAST_NONE`` (which rounds to nearest even too). Float -> integer
  conversions are not translated (C++ truncates),
- a scalar alone -> Duplicate.

Equal subexpressions (a local used twice, a value used by two outputs) are computed once, into
a temporary. A chain is computed in place in ``dst``; a second computed operand, a value of
another element type and a shared one go to temporaries: one ``TBuf`` each (via
:mod:`._ubbuf`, initialised where the class initialises its buffers), sized for the loop's
element bound: its count when a literal, else the capacity of the buffer ``dst`` comes from
(its ``InitBuffer`` bytes over ``sizeof`` its element type: the loop writes ``dst[b + i]`` for
``i < n`` inside that buffer), rounded up to 256 bytes. No site when that buffer is not found
or its size is not in scope where the temporaries are initialised.

Legality: every read and write is at index ``i`` (plus a fixed base) of distinct tensors; a
tensor written by an output may only be read by that output, at the written offset, before the
instruction that first writes it, so every instruction sees the values the scalar loop saw.
The instructions compute each element as the scalar code does on the simulator (fp32 compute,
one rounding to the element type). Known deviations: scalars are converted to the element type
(``static_cast``) where C++ may compute in double or float (``x * 0.1`` with ``x`` half, a
comparison against a double literal); half arithmetic that C++ keeps in excess precision across
operations is rounded after each instruction; Abs of a NaN keeps its sign; an operand of a
template type converted to float is taken to be a floating type.
Not supported: reads at other indices, global-tensor operands (see ``datacopypad_tail``), calls
to other functions, integer division.

The scalar synchronisation directly around the loop (``PipeBarrier<PIPE_ALL>`` and
SetFlag/WaitFlag pairs on events to or from S, with the event ids fetched for them) is dropped:
the vector instructions are ordered by the queues like the rest of the compute. The race
checker validates the candidate. UB: each temporary takes the element bound times its element
size; a kernel that has no room fails to run and the candidate is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop, index_base, loop_label
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, unparen, walk
from ascendopt.cxx.scope import class_of, tensor_type
from ascendopt.cxx.sync import api_prefix, scalar_sync_around
from ascendopt.cxx.syntax import (
    call_args,
    callee_name,
    calls,
    function_of,
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
from ascendopt.transforms.library._ubbuf import BufferPlan, UbBuffer, buffer_edits, fresh_name, plan_buffers
from ascendopt.transforms.library._vecexpr import E, Builder, Gen, Instr, Target, Unsupported, canon
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


@dataclass
class Vectorized:
    """A loop's translation: instruction ``lines`` (without the API prefix), its ``label``, the
    temporaries (name, element type; ``mask`` = Compare bits), and the dst tensor whose buffer
    bounds the element count (for sizing temporaries when the count is not a literal)."""

    lines: list[str]
    label: str
    temps: list[tuple[str, str]] = field(default_factory=list)
    dst_root: str = ""
    bound: str = ""


def _body(p: Parsed, loop: Node) -> list[Node] | None:
    body = loop.child_by_field_name("body")
    stmts = [c for c in body.named_children if c.type != "comment"] if body.type == "compound_statement" else [body]
    if not stmts or any(n.type in ("assignment_expression", "update_expression") for s in stmts for n in walk(s)):
        return None  # a value carried across iterations, or a side effect
    return stmts


def _set_value(p: Parsed, stmt: Node) -> Node | None:
    """The ``x.SetValue(i, v)`` call of a statement (also alone in braces)."""
    if stmt.type == "compound_statement":
        inner = [c for c in stmt.named_children if c.type != "comment"]
        return _set_value(p, inner[0]) if len(inner) == 1 else None
    call = statement_call(stmt)
    if call is None or not is_method_call(call) or callee_name(p, call) != "SetValue" or len(call_args(call)) != 2:
        return None
    return call


def _condition(stmt: Node) -> Node:
    """The condition expression of an ``if`` statement."""
    cond = stmt.child_by_field_name("condition")
    return cond.child_by_field_name("value") or cond.named_children[-1]


def _outputs(p: Parsed, stmts: list[Node], env: dict) -> list[tuple[Node, Callable[[Builder], E]]] | None:
    """(SetValue call, builder of its value) per output statement; locals go to ``env``."""
    outs = []
    for d in stmts:
        if d.type == "declaration":
            decls = [x for x in d.named_children if x.type == "init_declarator"]
            if len(decls) != 1 or decls[0].child_by_field_name("value") is None:
                return None
            ty = p.text(d.child_by_field_name("type"))
            env[declarator_name(p, decls[0].child_by_field_name("declarator"))] = \
                (decls[0].child_by_field_name("value"), None if ty == "auto" else ty)
        elif d.type == "if_statement" and d.child_by_field_name("alternative") is None:
            # if (c) x.SetValue(i, a);  ->  x.SetValue(i, c ? a : x.GetValue(i))
            a = _set_value(p, d.child_by_field_name("consequence"))
            if a is None:
                return None
            outs.append((a, lambda bd, c=_condition(d), x=call_args(a)[1], w=a: bd.select(c, x, bd.leaf(w))))
        elif d.type == "if_statement":
            # if (c) x.SetValue(i, a); else x.SetValue(i, b);  ->  x.SetValue(i, c ? a : b)
            alt = d.child_by_field_name("alternative")
            alt = alt.named_children[-1] if alt.type == "else_clause" else alt
            a, b = _set_value(p, d.child_by_field_name("consequence")), _set_value(p, alt)
            if a is None or b is None or p.text(method_receiver(a)) != p.text(method_receiver(b)) \
                    or p.text(call_args(a)[0]) != p.text(call_args(b)[0]):
                return None
            va, vb = call_args(a)[1], call_args(b)[1]
            outs.append((a, lambda bd, c=_condition(d), x=va, y=vb: bd.select(c, x, y)))
        else:  # x.SetValue(i, v)
            call = _set_value(p, d)
            if call is None:
                return None
            outs.append((call, lambda bd, v=call_args(call)[1]: bd.tr(v)))
    return outs


def translate(p: Parsed, loop: Node, pre: str = "") -> Vectorized | None:
    """The vector form of a vectorizable loop, else None."""
    cl = counted_loop(p, loop)
    if cl is None or cl.step is not None or not is_zero(p, cl.start):
        return None
    stmts = _body(p, loop)
    env: dict[str, tuple[Node, str | None]] = {}
    outs = _outputs(p, stmts, env) if stmts else None
    if not outs:
        return None
    bd = Builder(p, cl.var, loop, env)
    roots, targets = [], []
    try:
        for call, build in outs:
            ok, base = index_base(p, call_args(call)[0], cl.var)
            recv = method_receiver(call)
            if not ok or cl.var in identifiers(p, recv):
                return None
            root = root_name(p, recv)
            kind = tensor_type(p, loop, root or "").pair()
            if root is None or kind is not None and kind[0] != "LocalTensor" or root in (t.root for t in targets):
                return None
            ty = canon(kind[1]) if kind else None
            e = build(bd)
            if e.op not in ("scalar", "leaf") or e.ty != ty:
                e = bd.cast(e, ty)
            roots.append(e)
            targets.append(Target(p.text(recv) + (f"[{p.text(base)}]" if base is not None else ""), ty, root))
        gen = Gen(p.text(cl.bound), pre)
        gen.count_uses(roots)
        for e, t in zip(roots, targets):
            gen.store(e, t)
    except (Unsupported, RecursionError):
        return None
    if not _reads_before_writes(gen.instrs, targets):
        return None
    return Vectorized([i.line() for i in gen.instrs], " + ".join(i.name for i in gen.instrs), gen.temps,
                      targets[0].root, p.text(cl.bound))


def _reads_before_writes(instrs: list[Instr], targets: list[Target]) -> bool:
    """Every element read of a written variable is of the written tensor itself (same offset)
    and comes before the first instruction writing it: the scalar loop reads each element before
    its iteration writes it, so the vector form must read the old values too."""
    written: set[str] = set()
    texts = {t.root: t.text for t in targets}
    for ins in instrs:
        for root, text in ins.reads:
            if root in texts and (root in written or text != texts[root]):
                return False
        if ins.writes:
            written.add(ins.writes)
    return True


@dataclass
class TempPlan:
    """Where the temporaries' buffers go (:mod:`._ubbuf`) and ``elems``, the element-count bound
    of the loop: its literal count, else the capacity of ``dst``'s buffer (the loop writes
    ``dst[b + i]`` for ``i < n`` inside that buffer, so ``n`` is at most its element count)."""

    buffers: BufferPlan
    elems: str


def _dst_buffer(p: Parsed, loop: Node, root: str) -> tuple[Node, str] | None:
    """(InitBuffer call, element type) of the queue/TBuf ``root`` comes from (``root =
    q.AllocTensor<T>()`` / ``q.DeQue<T>()`` / ``buf.Get<T>()`` declared in the function)."""
    fn = function_of(loop)
    value = None
    for d in of_type(p, "init_declarator"):
        if fn is not None and fn.start_byte <= d.start_byte < loop.start_byte \
                and declarator_name(p, d.child_by_field_name("declarator")) == root:
            value = unparen(d.child_by_field_name("value")) if d.child_by_field_name("value") else None
    if value is None or value.type != "call_expression" or not is_method_call(value) \
            or callee_name(p, value) not in ("AllocTensor", "DeQue", "Get"):
        return None
    queue = p.text(method_receiver(value))
    cls = class_of(p, fn)
    inits = [c for c in calls(p, ["InitBuffer"]) if call_args(c) and p.text(call_args(c)[0]) == queue
             and function_of(c) is not None and class_of(p, function_of(c)) == cls]
    kind = tensor_type(p, loop, root).pair()
    return (inits[0], kind[1]) if len(inits) == 1 and kind is not None else None


def temp_plan(files: list[Parsed], p: Parsed, loop: Node, v: Vectorized) -> TempPlan | None:
    fn = function_of(loop)
    plan = plan_buffers(files, p, fn) if fn is not None else None
    if plan is None:
        return None
    if v.bound.isdigit():
        return TempPlan(plan, v.bound)
    got = _dst_buffer(p, loop, v.dst_root)
    if got is None or function_of(got[0]) != plan.init_fn:
        return None
    size = call_args(got[0])[-1]
    body = plan.init_fn.child_by_field_name("body")
    nested = {declarator_name(p, x) for d in walk(body) if d.type == "declaration" and d.parent != body
              for x in d.children_by_field_name("declarator")}
    if identifiers(p, size) & nested:
        return None  # the size is not in scope where the buffers are initialised
    return TempPlan(plan, f"({p.text(size)}) / sizeof({got[1]})")


def temp_edits(files: list[Parsed], p: Parsed, v: Vectorized, plan: TempPlan, pre: str) -> tuple[list[Edit], list[str]]:
    """Edits adding one TBuf per temporary (sized in whole 256-byte repeats for ``plan.elems``
    elements, a Compare mask one bit per element) and the loop's replacement lines: a ``Get``
    per temporary, then the instructions with the temporaries renamed to fresh names."""
    taken: set[str] = set()
    names, bufs, gets = {}, [], []
    for name, ty in v.temps:
        local = fresh_name(files, "aoVt", taken)
        buf = fresh_name(files, "aoVtBuf", taken | {local})
        taken |= {local, buf}
        names[name] = local
        et = "uint8_t" if ty == "mask" else ty
        size = f"(({plan.elems}) + 255) / 256 * 32" if ty == "mask" else \
            f"(({plan.elems}) * sizeof({et}) + 255) / 256 * 256"
        bufs.append(UbBuffer(buf, size))
        gets.append(f"{pre}LocalTensor<{et}> {local} = {buf}.Get<{et}>();")
    lines = [re.sub(r"\baoVt\d+\b", lambda m: names[m.group(0)], ln) for ln in v.lines]
    return buffer_edits(plan.buffers, bufs), gets + [pre + ln for ln in lines]


@register
class VectorizeScalarLoop(Rewrite):
    name = "vectorize_scalar_loop"
    optimization = OPTIMIZATION
    anchors = ('for_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        files = kernel_parsed(op)
        for p in files:
            for n in of_type(p, "for_statement"):
                got = translate(p, n)
                if got is not None and (not got.temps or temp_plan(files, p, n, got) is not None):
                    sites.append(self.site(p, n, f"{got.label} for {p.text(counted_loop(p, n).bound)} elements "
                                                 f"{loop_label(p, n.parent or n)}".replace(", loop", ", in loop")))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        files = kernel_parsed(op)
        p = next(q for q in files if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        pre = api_prefix(p)
        v = translate(p, loop, pre)
        extra: list[Edit] = []
        lines = [pre + line for line in v.lines]
        if v.temps:
            extra, lines = temp_edits(files, p, v, temp_plan(files, p, loop, v), pre)
        return [*extra, replace_with_lines(p, loop, lines),
                *(remove_statement(p, s) for s in scalar_sync_around(p, loop))]
