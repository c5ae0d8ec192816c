"""Remove vectorization: one element-wise vector instruction -> a scalar GetValue/SetValue loop.

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
"""

from __future__ import annotations

from ascendopt.cxx.syntax import call_args, callee_name, calls, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.rewind.motifs._elemwise import flag_pair
from ascendopt.rewind.motifs.base import Edit, Motif, Site, find_node, kernel_parsed, register, replace_statement

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
    family = "vectorization"
    title = "Use vector instructions instead of scalar element loops"
    mechanism = ("One vector instruction computes 256 bytes per repeat on the V pipe; a scalar loop issues "
                 "a UB read per source and a UB write per element on the scalar unit, which also issues "
                 "every other pipe's instructions and so stalls them while it loops.")
    bottleneck = "scalar pipe saturated by GetValue/SetValue; V idle; copies wait for the scalar loop"
    scope = "kernel"

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
