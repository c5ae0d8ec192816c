"""Split an independent work loop over the AI cores (optimization ``spread_cores``, family ``multi_core``).

Rewrite ``spread_cores`` (Stage I, applies it): many real operators run their whole work on one
core (the host launches ``SetBlockDim(1)``, or forces a core count to a constant before
``SetBlockDim(coreNum)``), or launch many cores whose kernel never reads its block index, so
every core redoes the whole work. The rewrite gives each core a contiguous share of the
iterations of the kernel's outermost work loop and, when the host launches a constant, makes it
launch the platform's core count (``PlatformAscendC::GetCoreNum()``: the vector core count on
AIC/AIV-separated SoCs, 48 on the simulator's Ascend910B2, the AI core count elsewhere).

Sites: every outermost counted ``for`` loop of a function on the kernel's call path (a function
called once, not from inside a loop) whose iterations are independent
(:func:`ascendopt.cxx.parallel_check.independent`: affine, pairwise disjoint GM writes, no read
of another iteration's output, nothing carried between iterations, no GM access outside the
loop to what it writes, no ``GetBlockIdx``/``SyncAll``/atomics/workspace/cube in the kernel); and,
inside such a loop that is not independent, an inner *column loop* ``for (ii = 0; ii < n; ++ii)``
whose accesses to what it writes are ``X*n + ii`` with any integer row ``X`` (a scatter's
data-dependent row: :func:`ascendopt.cxx.parallel_minor.minor_independent`, whose docstring
gives the argument): each core runs every row but only its columns. A column loop spreads only
when ``n % 64 == 0`` at run time (``aoCores`` is 1 otherwise: core 0 runs every column), so every
row's share boundary is 64-element aligned; template row types get a
``static_assert(std::is_integral<T>::value)``.

Edit: ``for (T i = start; i < bound; i += s)`` becomes the loop over this core's share,
``[lo, hi)`` with ``chunk = ceil(iterations / GetBlockNum())``, ``lo = start + GetBlockIdx() *
chunk * s``, ``hi = min(bound, lo + chunk * s)``. When each iteration writes one element (stride
1), ``chunk`` is rounded up to a multiple of 64 iterations: a share boundary then falls on a
multiple of 64 elements, i.e. of 64 bytes or more for every element type, so no two cores
write the same 32-byte DMA block or 64-byte cache line (a scalar ``SetValue`` to GM goes through
the core's data cache and writes back whole lines), and a later rewrite that stages a share
through UB starts its DMAs aligned. Tile loops (stride >= a tile) are not rounded.
A basic induction variable of the loop (``v += e`` once per iteration at the top level of the
body, :mod:`ascendopt.cxx.induction`) holds ``v0 + k*e`` at iteration ``k``; each core's share
starts at iteration ``(lo - start) / s``, so the rewrite emits ``v += (lo - start) / s * e``
before the core's loop (``-=`` for a decrement); a ``v`` read after the loop is refused.
The host's ``SetBlockDim(<literal>)`` or ``SetBlockDim(x)`` with ``x`` last set to a literal
becomes ``SetBlockDim(<platform>.GetCoreNum())``, reusing the host's ``PlatformAscendC`` object
if it has one; a host that computes the count from the shape is left alone. Tiling data is
unchanged.

Legality: the independence verdict says the loop's iterations write pairwise disjoint GM
ranges, read GM only where no other iteration writes, and take nothing from earlier iterations
(scalars, UB buffers and queues are rewritten before they are read in each iteration); the code
outside the loop writes no GM and reads nothing the loop writes. So running the shares on
``GetBlockNum()`` cores in any interleaving writes each element exactly as the single loop does,
and every core running the code outside the loop changes no result. An induction variable
enters each core's first iteration ``k0`` holding ``v0 + k0*e``, the value the single loop gives
it there (integer ``+``/``*`` wrap alike), and advances by ``e`` per iteration as before. The shares cover
``[start, bound)`` exactly once for any core count (``GetBlockNum()`` is read at run time), so
the rewritten kernel is correct whatever the host launches.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.affine import counted_loop
from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel_branch import guard_text, guarded_branches
from ascendopt.cxx.parallel_check import independent
from ascendopt.cxx.parallel_minor import inner_loops, minor_independent
from ascendopt.cxx.parse import Parsed, declarator_name, of_type, unparen
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.scope import Ctx
from ascendopt.cxx.syntax import LOOPS, call_args, calls, enclosing, function_of, own_nodes, receiver, root_name
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, MotifError, Rewrite, Site, find_node, host_parsed, kernel_parsed, line_indent
from ascendopt.transforms.registry import Optimization, register

OPTIMIZATION = Optimization(
    name="spread_cores",
    family="multi_core",
    title="Split an independent work loop over all AI cores",
    mechanism="Every AI core has its own scalar unit, MTE2/V/MTE3 pipes and share of GM bandwidth; a kernel "
              "that does all its iterations on one core (or the same iterations on every core) leaves the "
              "others idle. Giving each core a disjoint share of the independent iterations runs them "
              "concurrently.",
    bottleneck="block_dim 1 (or every core doing the same work): one core's pipes busy for the whole "
               "kernel while the others idle; GM bandwidth far below the chip's",
    scope="kernel",
    relieves=("idle_cores",),
)

#: Iterations a share is a multiple of when each iteration writes one element (see above).
ELEMENT_ALIGN = 64


@dataclass(frozen=True)
class Launch:
    """A host ``SetBlockDim`` call and, when it launches a constant, the edit of its argument."""

    p: Parsed
    call: Node
    constant: str | None  # text of the constant it launches, None when computed


def candidate_loops(prog: Program) -> list[tuple[Ctx, Node]]:
    """(function, loop) of every outermost counted loop of a function on the kernel's path that
    runs once per kernel (called from one place, not from inside a loop)."""
    path = prog.reach(prog.entries())
    out = []
    for ctx in path:
        sites = prog.call_sites(path, ctx.fn)
        if len(sites) > 1 or any(enclosing(call, LOOPS) is not None
                                 and function_of(enclosing(call, LOOPS)) == c.fn for c, call in sites):
            continue
        body = ctx.fn.child_by_field_name("body")
        for n in own_nodes(body):
            if n.type not in ("for_statement", "while_statement") or enclosing(n, LOOPS) is not None and function_of(enclosing(n, LOOPS)) == ctx.fn:
                continue
            if counted_loop(ctx.p, n, allow_while=True) is not None:
                out.append((ctx, n))
    return out


@dataclass(frozen=True)
class Work:
    """A loop to split: its function, the loop, the write stride, its induction variables, and
    for a column loop (:mod:`ascendopt.cxx.parallel_minor`) its column count and the template
    types asserted integral."""

    ctx: Ctx
    loop: Node
    stride: Poly
    inductions: tuple = ()
    columns: Node | None = None
    asserts: tuple[str, ...] = ()


def work_loops(op: Operator) -> list[Work]:
    """Every independent outermost work loop on the path and, inside an outermost loop that is
    not independent, every inner column loop (``X*n + ii`` accesses) that is."""
    prog = Program(kernel_parsed(op))
    out = []
    for ctx, n in candidate_loops(prog):
        v = independent(prog, ctx, n)
        if v.ok:
            out.append(Work(ctx, n, v.stride, v.inductions))
            continue
        for inner in inner_loops(ctx, n):
            m = minor_independent(prog, ctx, n, inner)
            if m.ok:
                out.append(Work(ctx, inner, m.stride, (), counted_loop(ctx.p, inner).bound, m.asserts))
    return sorted(out, key=lambda w: (w.ctx.p.file, w.loop.start_byte))


def launches(op: Operator) -> list[Launch]:
    """The host's ``SetBlockDim`` calls, each with the constant it launches (if any)."""
    out = []
    for p in host_parsed(op):
        for call in calls(p, ["SetBlockDim"]):
            args = call_args(call)
            if len(args) == 1:
                out.append(Launch(p, call, _constant(p, call, unparen(args[0]))))
    return out


def _constant(p: Parsed, call: Node, arg: Node) -> str | None:
    if arg.type == "call_expression" and p.text(arg.child_by_field_name("function")).startswith("static_cast") \
            and len(call_args(arg)) == 1:
        arg = unparen(call_args(arg)[0])
    if arg.type == "number_literal":
        return p.text(arg)
    if arg.type != "identifier":
        return None
    fn = function_of(call)
    if fn is None or fn.child_by_field_name("body") is None:
        return None
    name = p.text(arg)
    last = None
    for n in own_nodes(fn.child_by_field_name("body")):
        if n.start_byte >= call.start_byte:
            break
        if n.type == "assignment_expression" and root_name(p, n.child_by_field_name("left")) == name:
            last = (n, n.child_by_field_name("right") if p.text(n.child_by_field_name("operator")) == "=" else None)
        elif n.type == "init_declarator" and declarator_name(p, n.child_by_field_name("declarator")) == name:
            last = (n, n.child_by_field_name("value"))
        elif n.type == "update_expression" and root_name(p, n.child_by_field_name("argument")) == name:
            last = (n, None)
    if last is None or last[1] is None or unparen(last[1]).type != "number_literal":
        return None
    block = enclosing(last[0], "compound_statement")
    if block is None or not (block.start_byte <= call.start_byte < block.end_byte) \
            or enclosing(last[0], ("if_statement", *LOOPS)) not in (None, enclosing(call, ("if_statement", *LOOPS))):
        return None
    return f"{name} = {p.text(last[1])}"


def core_count_expr(launch: Launch) -> str:
    """The host expression of the platform's core count at ``launch``."""
    p, call = launch.p, launch.call
    fn = function_of(call)
    for d in of_type(p, "declaration"):
        if function_of(d) == fn and d.start_byte < call.start_byte and "PlatformAscendC" in p.text(d):
            for dec in d.children_by_field_name("declarator"):
                name = declarator_name(p, dec)
                if name and "*" not in p.text(dec).split("=")[0]:
                    return f"{name}.GetCoreNum()"
    recv = receiver(p, call)
    arrow = "->" if "->" in p.text(call.child_by_field_name("function")) else "."
    return f"platform_ascendc::PlatformAscendC({recv}{arrow}GetPlatformInfo()).GetCoreNum()"


def host_edits(op: Operator) -> tuple[list[Edit], str]:
    """Edits that make every constant host launch the platform core count, and a label part."""
    edits, what = [], []
    for ln in launches(op):
        if ln.constant is None:
            continue
        arg = call_args(ln.call)[0]
        edits.append(Edit(ln.p.file, arg.start_byte, arg.end_byte, core_count_expr(ln)))
        what.append(f"SetBlockDim({ln.p.text(arg)})" + (f" with {ln.constant}" if "=" in ln.constant else ""))
        if b"platform_ascendc.h" not in ln.p.src:
            inc = [n for n in of_type(ln.p, "preproc_include")]
            at = inc[-1].end_byte if inc else 0
            edits.append(Edit(ln.p.file, at, at, '#include "tiling/platform/platform_ascendc.h"\n'))
    edits = list({(e.file, e.start): e for e in edits}.values())
    if what:
        return edits, f"host {', '.join(what)} -> core count"
    return edits, "host launch unchanged"


def loop_edits(p: Parsed, w: Work) -> list[Edit]:
    loop, stride, inductions = w.loop, w.stride, w.inductions
    cl = counted_loop(p, loop, allow_while=True)
    body = loop.child_by_field_name("body")
    init = loop.child_by_field_name("initializer")
    ind = line_indent(p, loop.start_byte)
    var = cl.var
    if init is not None and init.type == "declaration":
        head = f"{p.text(init.child_by_field_name('type'))} {var} = static_cast<{p.text(init.child_by_field_name('type'))}>(aoFirst)"
        cast = p.text(init.child_by_field_name("type"))
    else:
        head, cast = f"{var} = static_cast<decltype({var})>(aoFirst)", f"decltype({var})"
    step = "1" if cl.step is None else f"static_cast<int64_t>({p.text(cl.step)})"
    align = ELEMENT_ALIGN if stride == Poly.const(1) else 1
    lines = [f"const int64_t aoBegin = static_cast<int64_t>({p.text(cl.start)});",
             f"const int64_t aoEnd = static_cast<int64_t>({p.text(cl.bound)});",
             f"const int64_t aoStep = {step};",
             "const int64_t aoIters = aoEnd > aoBegin ? (aoEnd - aoBegin + aoStep - 1) / aoStep : 0;",
             "const int64_t aoCores = static_cast<int64_t>(AscendC::GetBlockNum());" if w.columns is None else
             # a column loop spreads only when every row's share boundary is 64-element aligned
             f"const int64_t aoCores = aoEnd % {ELEMENT_ALIGN} == 0 ? static_cast<int64_t>(AscendC::GetBlockNum()) : 1;",
             "int64_t aoChunk = (aoIters + aoCores - 1) / aoCores;"]
    if align > 1:
        lines.append(f"aoChunk = (aoChunk + {align} - 1) / {align} * {align};")
    lines += [f'static_assert(std::is_integral<{t}>::value, "spread_cores: a column index needs an integer row");'
              for t in w.asserts]
    lines += ["const int64_t aoFirst = aoBegin + static_cast<int64_t>(AscendC::GetBlockIdx()) * aoChunk * aoStep;",
              "const int64_t aoLast = aoFirst + aoChunk * aoStep < aoEnd ? aoFirst + aoChunk * aoStep : aoEnd;"]
    for iv in inductions:  # v0 + (aoFirst - aoBegin) / aoStep * e: its value at this core's first iteration
        lines.append(f"{p.text(iv.lhs)} {'+=' if iv.sign > 0 else '-='} "
                     f"(aoFirst - aoBegin) / aoStep * static_cast<int64_t>({iv.step_text(p)});")
    upd = "" if cl.update is not None else p.text(loop.child_by_field_name("update"))  # a while loop keeps its own
    text = ("{  // spread_cores: this core's share of the iterations\n"
            + "".join(f"{ind}    {ln}\n" for ln in lines)
            + f"{ind}    for ({head}; {var} < static_cast<{cast}>(aoLast); {upd}) ")
    return [Edit(p.file, loop.start_byte, body.start_byte, text), Edit(p.file, loop.end_byte, loop.end_byte, f"\n{ind}}}")]


@register
class SpreadCores(Rewrite):
    name = "spread_cores"
    optimization = OPTIMIZATION
    anchors = ("for_statement", "while_statement")

    def find(self, op: Operator) -> list[Site]:
        found = work_loops(op)
        if not found:
            return []
        _, host = host_edits(op)
        sites = []
        for w in found:
            var = counted_loop(w.ctx.p, w.loop, allow_while=True).var
            what = "columns" if w.columns is not None else "loop"
            sites.append(self.site(w.ctx.p, w.loop, f"split {what} over {var} in {w.ctx.name} over GetBlockNum() cores "
                                                    f"({host})", detail=str(w.stride)))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        loop = find_node(p, site.start, site.end, "while_statement" if p.src[site.start:site.start + 5] == b"while"
                         else "for_statement")
        got = next((w for w in work_loops(op) if w.loop.id == loop.id), None)
        if got is None:  # not independent (any more): no edit of the loop rests on a stale verdict
            raise MotifError(f"spread_cores: the loop of {site.label!r} is not independent")
        prog = Program(kernel_parsed(op))
        guards = [Edit(g.p.file, g.stmt.start_byte, g.stmt.end_byte, guard_text(g.p, g.stmt))
                  for g in guarded_branches(prog, got.ctx)]
        return loop_edits(p, got) + guards + host_edits(op)[0]
