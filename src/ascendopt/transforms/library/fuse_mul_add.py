"""Use fused vector instructions (FusedMulAdd, MulAddDst, Axpy) instead of their parts (optimization ``fuse_mul_add``, family ``instruction_fusion``).

Motif ``unfuse`` (rewind, removes it): Split a fused vector instruction into its parts.

- ``FusedMulAdd(dst, s0, s1, n)`` (dst = s0 * dst + s1)  ->  ``Mul(dst, s0, dst, n); Add(dst, dst, s1, n);``
- ``MulAddDst(dst, s0, s1, n)``   (dst = s0 * s1 + dst)  ->  ``Mul(sK, s0, s1, n); Add(dst, sK, dst, n);``
- ``Axpy(dst, src, s, n)``        (dst = src * s + dst)  ->  ``Muls(src, src, s, n); Add(dst, src, dst, n);``

The product of MulAddDst and Axpy needs a buffer: the rewrite overwrites a source tensor that is
dead after the call (not used again in its function except by ``FreeTensor``, and, inside a
loop, declared inside that loop), so no buffer is added; sites without such a source are not
offered. Between the two parts a ``PipeBarrier<PIPE_V>`` orders the read-after-write on the
vector unit. For float the parts compute exactly what the fused instruction computes (product
rounded to fp32, then the sum); for half the product is rounded to half once more (one more
rounding step, within the fp16 tolerance for moderate magnitudes; validation decides). Mixed
element types (float dst with half sources) are not sites when the declarations say so.

Rewrite ``fuse_mul_add`` (Stage I, applies it): Fuse a multiply and the add that consumes it: two vector instructions -> one.

Sites: two adjacent statements of one block, ``Muls(t, x, a, n); Add(d, t, y, n)`` or
``Mul(t, a, b, n); Add(d, t, y, n)`` (the Add's operands in either order, the same count
``n``), where ``t`` is a local tensor of the function that is not read afterwards (every later
use of ``t`` is a ``FreeTensor``, or the first later use overwrites it with the same count; in a
loop, ``t`` is not read anywhere else in the loop either):

- ``Muls`` and ``y`` is ``d``                -> ``Axpy(d, x, a, n)``        (d = x * a + d)
- ``Mul`` and ``y`` is ``d``                 -> ``MulAddDst(d, a, b, n)``   (d = a * b + d)
- ``Mul`` with ``d`` as one factor, ``y`` other -> ``FusedMulAdd(d, c, y, n)`` (d = c * d + y)

The two statements may be separated by ``PipeBarrier<PIPE_V>`` statements (the author ordering
the Add after the multiply on the vector pipe): the fused call needs no such ordering, so the
barriers go -- unless a statement earlier in the block, back to the previous ``PIPE_V`` or
``PIPE_ALL`` barrier, writes a tensor through a vector or copy instruction: the barrier also
ordered that write before the Add and everything after it, so one barrier stays, before the
fused call. (Statements of a caller before the function are not looked at; the simulator's
same-pipe race check judges the candidate.) In-place chains are sites too: ``t`` may be the
multiply's source (``Muls(x, x, a, n); Add(d, x, d, n)`` -> ``Axpy(d, x, a, n)``, ``x``'s
scaled value dead afterwards) and the Add may accumulate into ``d`` in either operand order.

The fused instructions take half/float only. The destination's element type is read from its
declaration: a concrete half/float type gets the fused call, another concrete type is no site,
and a template parameter ``T`` gets ``if constexpr (std::is_same_v<T, half> ||
std::is_same_v<T, float>) { fused } else { the original pair }`` so that a kernel instantiated
for integers too keeps working.
"""

from __future__ import annotations

from tree_sitter import Node

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.defuse import dead_after, written_names
from ascendopt.cxx.instructions import COPY_OPS, TABLE, VECTOR_OPS
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, walk
from ascendopt.cxx.scope import CONCRETE_TYPES, tensor_type
from ascendopt.cxx.sync import api_prefix, sync_info
from ascendopt.cxx.syntax import (
    LOOPS,
    ancestors,
    base_name,
    call_args,
    callee_name,
    calls,
    function_of,
    functions,
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
    line_end,
    line_indent,
    line_start,
    remove_statement,
    replace_statement,
    replace_with_lines,
)
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="fuse_mul_add",
    family="instruction_fusion",
    title="Use fused vector instructions (FusedMulAdd, MulAddDst, Axpy) instead of their parts",
    mechanism="A fused multiply-add is one pass over the tile on the V pipe; its parts are two passes "
              "with an intermediate written to and read back from UB, plus the V-pipe barrier between "
              "the dependent instructions.",
    bottleneck="V pipe: twice the vector instructions and repeats per tile, a barrier between them",
    scope="kernel",
    relieves=("vector_bound",),
)


FUSED = ("FusedMulAdd", "MulAddDst", "Axpy")
_BARRIER = "AscendC::PipeBarrier<PIPE_V>();"


def _same_types(p, call, args) -> bool:
    """False when the declared element types of the tensors are known and differ."""
    elems = {tensor_type(p, call, a).elem for a in args}
    return len(elems) == 1 or None in elems and len(elems - {None}) <= 1


@register
class Unfuse(Motif):
    name = "unfuse"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for call in calls(p, FUSED):
                args = call_args(call)
                stmt = statement_of(call)
                if receiver(p, call) or len(args) != 4 or stmt is None:
                    continue
                name = callee_name(p, call)
                tensors = args[:3] if name != "Axpy" else args[:2]
                if not _same_types(p, call, tensors):
                    continue
                detail = ""
                if name == "MulAddDst":
                    dst = base_name(p, args[0])
                    for k in (1, 2):
                        b = base_name(p, args[k])
                        if b and b != dst and dead_after(p, stmt, b):
                            detail = str(k)
                            break
                    if not detail:
                        continue
                elif name == "Axpy":
                    b = base_name(p, args[1])
                    if not (b and b != base_name(p, args[0]) and dead_after(p, stmt, b)):
                        continue
                    detail = "1"
                how = {"FusedMulAdd": "Mul + Add",
                       "MulAddDst": f"Mul into {p.text(args[int(detail or 1)])} + Add",
                       "Axpy": f"Muls into {p.text(args[1])} + Add"}[name]
                sites.append(self.site(p, call, f"{p.text(call)} -> {how} ({p.file}:{p.line(call.start_byte)})",
                                       detail=f"{name}:{detail}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        call = find_node(p, site.start, site.end, "call_expression")
        name = callee_name(p, call)
        d, a, b, n = (p.text(x) for x in call_args(call))
        if name == "FusedMulAdd":
            lines = [f"AscendC::Mul({d}, {a}, {d}, {n});", _BARRIER, f"AscendC::Add({d}, {d}, {b}, {n});"]
        elif name == "MulAddDst":
            tmp = a if site.detail.endswith(":1") else b
            lines = [f"AscendC::Mul({tmp}, {a}, {b}, {n});", _BARRIER, f"AscendC::Add({d}, {tmp}, {d}, {n});"]
        else:  # Axpy(dst, src, scalar, n)
            lines = [f"AscendC::Muls({a}, {a}, {b}, {n});", _BARRIER, f"AscendC::Add({d}, {a}, {d}, {n});"]
        return [replace_statement(p, statement_of(call), lines, comment=f"{name} split into its parts")]


def _norm(p: Parsed, n: Node) -> str:
    return "".join(p.text(n).split())


def _next_statement(stmt: Node) -> Node | None:
    n = stmt.next_named_sibling
    while n is not None and n.type == "comment":
        n = n.next_named_sibling
    return n


FLOAT_TYPES = TABLE["FusedMulAdd"].dtypes  # the fused instructions take half/float


def element_guard(p: Parsed, s1: Node, dst: Node) -> str | None:
    """'' when the fused form needs no guard, the element type to guard on (a template
    parameter), or None when the destination's type rules the fusion out."""
    got = tensor_type(p, s1, root_name(p, dst) or "").pair()
    if got is None or got[1] in FLOAT_TYPES:
        return ""
    if got[1] in CONCRETE_TYPES or "<" in got[1]:
        return None
    return got[1]


def _is_v_barrier(p: Parsed, stmt: Node | None) -> bool:
    info = None if stmt is None else sync_info(p, stmt)
    return info is not None and info[0] == "barrier" and info[1] == "PIPE_V"


def barriers_between(p: Parsed, s1: Node) -> tuple[list[Node], Node | None]:
    """The ``PipeBarrier<PIPE_V>`` statements directly after ``s1`` and the statement after them."""
    out, s2 = [], _next_statement(s1)
    while _is_v_barrier(p, s2):
        out.append(s2)
        s2 = _next_statement(s2)
    return out, s2


def _v_writes(p: Parsed, stmt: Node) -> set[str]:
    """Tensors a statement's vector or copy instructions write, also inside methods of the file
    it calls (:func:`~ascendopt.cxx.defuse.written_names`); queue and buffer calls write none."""
    out: set[str] = set()
    fns = functions(p)
    for c in calls(p, None, stmt):
        name = callee_name(p, c)
        args = call_args(c)
        if (name in VECTOR_OPS or name in COPY_OPS) and args and (r := root_name(p, args[0])):
            out.add(r)
        elif name in fns:
            out |= written_names(p, c, depth=1)
    return out


def barrier_still_needed(p: Parsed, s1: Node) -> bool:
    """Whether a V barrier must stay before the fused call: a statement before ``s1`` in its
    block, back to the previous ``PIPE_V``/``PIPE_ALL`` barrier, writes a tensor through a
    vector or copy instruction, so the barrier between the parts also ordered that write before
    the Add and whatever follows it."""
    prev = s1.prev_named_sibling
    while prev is not None:
        info = sync_info(p, prev)
        if info is not None and info[0] == "barrier" and info[1] in ("PIPE_V", "PIPE_ALL"):
            return False
        if prev.type != "comment" and _v_writes(p, prev):
            return True
        prev = prev.prev_named_sibling
    return False


def fusion(p: Parsed, s1: Node) -> tuple[str, list[str], Node] | None:
    """(fused instruction, its arguments as text, the Add statement) when statement ``s1``
    starts a fusable pair (the Add next, or after ``PipeBarrier<PIPE_V>`` statements), else
    None."""
    c1 = statement_call(s1)
    if c1 is None or callee_name(p, c1) not in ("Muls", "Mul"):
        return None
    _, s2 = barriers_between(p, s1)
    c2 = statement_call(s2)
    if c2 is None or callee_name(p, c2) != "Add":
        return None
    a1, a2 = call_args(c1), call_args(c2)
    if len(a1) != 4 or len(a2) != 4 or _norm(p, a1[3]) != _norm(p, a2[3]):
        return None
    t, d = _norm(p, a1[0]), _norm(p, a2[0])
    if t == d or a1[0].type != "identifier":
        return None
    ops = [_norm(p, a2[1]), _norm(p, a2[2])]
    if ops.count(t) != 1:
        return None
    y = ops[1] if ops[0] == t else ops[0]
    n = p.text(a1[3])
    if not value_dead_after(p, s1, s2, p.text(a1[0]), n) or element_guard(p, s1, a2[0]) is None:
        return None
    if callee_name(p, c1) == "Muls":
        if y == d and _norm(p, a1[2]) != t:
            return "Axpy", [p.text(a2[0]), p.text(a1[1]), p.text(a1[2]), n], s2
        return None
    f = [_norm(p, a1[1]), _norm(p, a1[2])]
    if y == d:
        return "MulAddDst", [p.text(a2[0]), p.text(a1[1]), p.text(a1[2]), n], s2
    if d in f and y != t:
        factor = a1[2] if f[0] == d else a1[1]
        addend = a2[2] if ops[0] == t else a2[1]
        return "FusedMulAdd", [p.text(a2[0]), p.text(factor), p.text(addend), n], s2
    return None


def _use_kind(p: Parsed, ident: Node) -> str:
    """How an occurrence of a tensor variable is used: ``decl``, ``free`` (FreeTensor/EnQue),
    ``write`` (sole destination of a vector/copy instruction), or ``read``."""
    par = ident.parent
    if par is not None and par.type in ("init_declarator", "declaration") and par.child_by_field_name("declarator") == ident:
        return "decl"
    if par is not None and par.type == "argument_list":
        call = par.parent
        name = callee_name(p, call)
        args = call_args(call)
        if name == "FreeTensor":
            return "free"
        if (name in VECTOR_OPS or name in COPY_OPS) and args and args[0] == ident:
            if not any(root_name(p, a) == p.text(ident) for a in args[1:]):
                return "write"
    return "read"


def value_dead_after(p: Parsed, s1: Node, s2: Node, t: str, n: str) -> bool:
    """``t`` is a local of the function and its value after ``s2`` is never read."""
    fn = function_of(s1)
    if fn is None:
        return False
    body = fn.child_by_field_name("body")
    local = any(d.type == "declaration" and any(declarator_name(p, x) == t for x in d.children_by_field_name("declarator"))
                for d in walk(body))
    if not local:
        return False
    uses = [u for u in walk(body) if u.type == "identifier" and p.text(u) == t]
    for u in sorted((u for u in uses if u.start_byte >= s2.end_byte), key=lambda u: u.start_byte):
        kind = _use_kind(p, u)
        if kind == "free":
            continue
        if kind == "write":
            call = u.parent.parent
            args = call_args(call)
            if "".join(p.text(args[-1]).split()) == "".join(n.split()):
                break  # overwritten: later reads see the new value
        return False
    loops = [a for a in ancestors(s1) if a.type in LOOPS and a.start_byte >= fn.start_byte]
    if loops:
        outer = loops[-1]
        for u in uses:
            if outer.start_byte <= u.start_byte < s1.start_byte and _use_kind(p, u) == "read":
                return False
    return True


@register
class FuseMulAdd(Rewrite):
    name = "fuse_mul_add"
    optimization = OPTIMIZATION
    anchors = ('expression_statement',)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        for p in kernel_parsed(op):
            for s1 in of_type(p, "expression_statement"):
                got = fusion(p, s1)
                if got is not None:
                    fused, args, s2 = got
                    label = (f"{p.text(statement_call(s1))}; {p.text(statement_call(s2))} -> "
                             f"{fused}({', '.join(args)}) {loop_label(p, s1)}")
                    sites.append(self.site(p, s1, label, detail=fused))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        s1 = find_node(p, site.start, site.end, "expression_statement")
        fused, args, s2 = fusion(p, s1)
        call = f"{api_prefix(p)}{fused}({', '.join(args)});"
        barriers, _ = barriers_between(p, s1)
        keep = bool(barriers) and barrier_still_needed(p, s1)
        head = [p.text(barriers[0])] if keep else []
        guard = element_guard(p, s1, call_args(statement_call(s2))[0])
        if not guard:
            return [replace_with_lines(p, s1, head + [call]), remove_statement(p, s2),
                    *(remove_statement(p, b) for b in barriers)]
        ind = line_indent(p, s1.start_byte)
        start, end = line_start(p, s1.start_byte), line_end(p, s2.end_byte - 1)
        original = [ln[len(ind):] if ln.startswith(ind) else ln.lstrip()
                    for ln in p.src[start:end].decode().splitlines()]
        lines = [f"if constexpr (std::is_same_v<{guard}, half> || std::is_same_v<{guard}, float>) {{",
                 *(f"    {ln}" for ln in head + [call]), "} else {", *(f"    {ln}" for ln in original), "}"]
        return [Edit(p.file, start, end, "".join(f"{ind}{ln}\n" for ln in lines))]
