"""Stage scalar GM loops through UB (optimization ``stage_scalar_gm``, family ``dma_consolidation``).

Rewrite ``stage_scalar_gm`` (Stage I): a loop that reads and writes global memory element by
element (``y.SetValue(i, f(x.GetValue(i)))`` on ``GlobalTensor``s) pays one scalar access through
the data cache per element, a full GM trip on every miss. Staged, each tile of the loop's range
is copied GM -> UB by one DMA per read tensor, the same loop runs on ``LocalTensor``s in UB
(a few cycles per access), and the written ranges go back UB -> GM by one DMA per tensor.

Sites: a counted loop ``for (T i = lo; i < hi; ++i)`` in a method of a kernel class (the UB
buffers are class members, :mod:`._ubbuf`) whose body

- accesses every ``GlobalTensor`` it names only as ``g.GetValue(i + b)`` / ``g.SetValue(i + b, v)``
  (``i``, ``b + i`` or ``i + b``: coefficient 1), one offset ``b`` per tensor; a tensor may be
  read, written, or both (at that one index, in any order); a tensor the loop only reads, at
  any other index (a gather ``x.GetValue(idx.GetValue(i))``, a stride), is not staged and keeps
  its scalar GM reads, while a tensor written at any other index makes no site;
- calls nothing but those accesses, ``GetValue``/``SetValue`` of local tensors, casts, scalar
  math functions and methods of its class whose bodies obey the same rules (followed);
- has no ``break``, ``return`` or ``goto`` leaving it, and does not write ``i``;

and whose ``lo``, ``hi`` and offsets ``b`` read no value the loop writes (:func:`written_names`)
and call nothing but casts and min/max.

Legality. Tensor ``g`` at offset ``b`` is touched by iteration ``i`` only at element ``i + b``,
so iterations share no GM element through ``g``, and tile ``[t, t + n)`` touches exactly the
range ``[t + b, t + b + n)``. The staged kernel runs the same iterations in the same order; in
tile ``t`` the UB buffer of ``g`` holds, at ``j``, the element ``t + j + b``: copied in before the
tile's first access (for every read tensor, and for a written one whose ``SetValue`` does not run
on every iteration, so that untouched elements go back unchanged), then read and written by the
body exactly where the original read and wrote GM, then copied out whole with ``DataCopyPad``
of the exact byte count ``n * sizeof(T)`` (tails included, nothing past ``hi + b`` is written).
So every read sees the value the original read (a tile's copy-in runs after the previous tile's
copy-out, and ranges of one tensor do not overlap across tiles) and GM ends with the same values.
A tensor left as scalar reads is written by nothing in the loop, so it reads the same values.
Distinct ``GlobalTensor``s are assumed not to overlap in GM (each is its own kernel argument);
an operator that passes one buffer as two arguments could change result.

Synchronisation per tile (hardware events, each a SetFlag/WaitFlag pair): MTE2 -> S after the
copy-in, S -> MTE2 after the loop (the next copy-in overwrites what the loop read), S -> MTE3
before the copy-out, MTE3 -> S and MTE3 -> MTE2 after it (the next tile reuses the buffers).
The buffers are in no queue, so the same events are also set towards and from V (MTE2 -> V,
V -> MTE2, V -> MTE3, MTE3 -> V): free while V is idle, and what keeps the copies ordered
against the vector instructions once ``vectorize_scalar_loop`` replaces the inner loop.
A full barrier before the tile loop orders it after earlier copies to the same GM, and the last
tile's MTE3 -> S / MTE3 -> MTE2 pairs order later reads of what it wrote; when the
kernel makes other scalar GM accesses the data cache is cleaned and invalidated first
(``DataCacheCleanAndInvalid`` of the whole cache), so the DMAs neither miss a dirty line nor
leave a stale one behind. Tiles are ``AO_STAGE_TILE`` elements, a file-level ``constexpr`` (a
Stage II kernel knob): 2048 for up to 3 staged tensors, 1024 for up to 6 (Ascend910B2's UB is
196608 bytes; 3 x 2048 x 8-byte elements = 48 KB at most, 6 x 1024 x 8 = 48 KB: a quarter of
UB beside the kernel's own buffers), no site beyond 6. The inner loop keeps the form
``for (uint32_t aoJ = 0; aoJ < aoLen; ++aoJ) { ...ub.SetValue(aoJ, f(ub2.GetValue(aoJ))) }`` that
``vectorize_scalar_loop`` vectorizes when the body is one element-wise expression.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.affine import CountedLoop, counted_loop, index_base, loop_label
from ascendopt.cxx.defuse import written_names
from ascendopt.cxx.parse import Parsed, of_type, unparen, walk
from ascendopt.cxx.scope import Ctx, make_ctx, tensor_type
from ascendopt.cxx.syntax import (LOOPS, base_name, call_args, callee_name, function_of, identifiers,
                                  is_method_call, method_receiver)
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, MotifError, Rewrite, Site, find_node, kernel_parsed, replace_statement
from ascendopt.transforms.library._ubbuf import UbBuffer, buffer_edits, constant_edit, fresh_name, plan_buffers
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="stage_scalar_gm",
    family="dma_consolidation",
    title="Stage element-wise GM loops through UB",
    mechanism="A scalar GetValue/SetValue on a GlobalTensor goes through the data cache and pays a GM "
              "round trip on every miss; one DMA per tile and tensor moves the same range in bursts, and "
              "the loop then reads and writes UB at scalar-UB cost.",
    bottleneck="scalar pipe bound by GM accesses through the data cache (dcache misses); MTE2/MTE3 idle",
    scope="kernel",
    relieves=("scalar_heavy",),
)

#: Calls a staged body may make besides tensor element accesses: casts and scalar math.
PURE_CALLS = frozenset({
    "static_cast", "min", "max", "fmin", "fmax", "abs", "fabs", "fabsf", "exp", "expf", "log", "logf",
    "log1p", "expm1", "sqrt", "sqrtf", "rsqrt", "pow", "powf", "sin", "cos", "tan", "tanh", "sinh", "cosh",
    "asin", "acos", "atan", "atan2", "erf", "erfc", "floor", "ceil", "round", "trunc", "fmod", "isnan",
    "isinf", "isfinite", "signbit", "copysign", "ToFloat", "GetScalarBitcodeValue", "ASSERT", "assert",
})
BOUND_CALLS = frozenset({"static_cast", "min", "max", "Min", "Max"})
TILES = ((3, 2048), (6, 1024))  # (at most this many staged tensors, tile length)


@dataclass
class Staged:
    """One GlobalTensor of a site: accessed at ``var + base`` only."""

    name: str
    elem: str
    base: str | None
    read: bool = False
    written: bool = False
    covered: bool = False       # some SetValue runs on every iteration
    ok: bool = True             # every access is at ``var + base``: the tensor can be staged
    base_text: str | None = None
    receivers: list[Node] = field(default_factory=list)
    indices: list[Node] = field(default_factory=list)

    @property
    def copy_in(self) -> bool:
        return self.read or not self.covered


@dataclass
class StageSite:
    p: Parsed
    loop: Node
    cl: CountedLoop
    var_type: str
    tensors: list[Staged]
    kept: list[str] = field(default_factory=list)   # read-only GM tensors left as scalar reads


class _Reject(Exception):
    pass


def _norm(p: Parsed, n: Node | None) -> str | None:
    return None if n is None else "".join(p.text(unparen(n)).split())


def _escapes(p: Parsed, loop: Node) -> bool:
    """A ``break`` leaving ``loop``, or a ``return``/``goto`` anywhere in it."""
    for n in walk(loop.child_by_field_name("body")):
        if n.type in ("return_statement", "goto_statement", "co_return_statement", "throw_statement"):
            return True
        if n.type == "break_statement":
            a = n.parent
            while a is not None and a.type not in (*LOOPS, "switch_statement"):
                a = a.parent
            if a == loop:
                return True
    return False


def _has_continue(loop: Node) -> bool:
    for n in walk(loop.child_by_field_name("body")):
        if n.type == "continue_statement":
            a = n.parent
            while a is not None and a.type not in LOOPS:
                a = a.parent
            if a == loop:
                return True
    return False


class _Scan:
    """Collects a loop body's GM accesses and checks its calls."""

    def __init__(self, p: Parsed, ctx: Ctx, loop: Node, cl: CountedLoop):
        self.p, self.ctx, self.loop, self.cl = p, ctx, loop, cl
        self.kinds: dict[str, str] = {}
        self.tensors: dict[str, Staged] = {}
        self.depth = 0

    def kind(self, name: str, at: Node) -> str:
        if name not in self.kinds:
            self.kinds[name] = tensor_type(self.p, at, name).kind
        return self.kinds[name]

    def body(self, root: Node) -> None:
        accepted: set[int] = set()
        for n in walk(root):
            if n.type == "call_expression":
                self.call(n, accepted)
        for n in walk(root):  # any other mention of a GM tensor
            nm = base_name(self.p, n) if n.type in ("identifier", "field_expression") else None
            if nm and n.id not in accepted and self.kind(nm, self.loop) == "GlobalTensor":
                raise _Reject(f"other use of {nm}")

    def call(self, c: Node, accepted: set[int]) -> None:
        p, name = self.p, callee_name(self.p, c)
        if is_method_call(c):
            recv = method_receiver(c)
            nm = base_name(p, recv)
            kind = self.kind(nm, self.loop) if nm else ""
            if name in ("GetValue", "SetValue") and kind == "GlobalTensor":
                self.access(c, nm, recv, name == "SetValue")
                accepted.add(recv.id)
                return
            if name in ("GetValue", "SetValue") and kind == "LocalTensor":
                return
            recv_is_this = recv is not None and recv.type == "this"
            if recv_is_this and name in self.ctx.methods:
                return self.method(name)
            raise _Reject(f"method {name}")
        fn = c.child_by_field_name("function")
        if fn is not None and fn.type in ("primitive_type", "sized_type_specifier"):
            return
        if name in PURE_CALLS:
            return
        if fn is not None and fn.type in ("identifier", "template_function") and name in self.ctx.methods:
            return self.method(name)
        raise _Reject(f"call {name}")

    def method(self, name: str) -> None:
        m = self.ctx.methods[name]
        if self.depth > 3 or m == self.ctx.fn:
            raise _Reject("recursion")
        body = m.child_by_field_name("body")
        if body is None:
            raise _Reject(f"no body {name}")
        self.depth += 1
        for n in walk(body):
            if n.type == "call_expression":
                if callee_name(self.p, n) in ("GetValue", "SetValue") and is_method_call(n):
                    nm = base_name(self.p, method_receiver(n))
                    if not nm or tensor_type(self.p, n, nm).kind != "LocalTensor":
                        raise _Reject(f"{name} accesses a non-local tensor")
                    continue
                self.call(n, set())
            elif n.type == "identifier" and tensor_type(self.p, n, self.p.text(n)).kind == "GlobalTensor":
                raise _Reject(f"{name} uses a GlobalTensor")
        self.depth -= 1

    def access(self, c: Node, nm: str, recv: Node, write: bool) -> None:
        args = call_args(c)
        if len(args) != (2 if write else 1) or recv.type not in ("identifier", "field_expression"):
            raise _Reject("access shape")
        ok, base = index_base(self.p, args[0], self.cl.var)
        t = self.tensors.get(nm)
        if t is None:
            elem = tensor_type(self.p, self.loop, nm).elem or ""
            t = self.tensors[nm] = Staged(nm, elem, _norm(self.p, base), ok=bool(elem),
                                          base_text=None if base is None else self.p.text(base))
        if not ok or t.base != _norm(self.p, base):
            t.ok = False
        t.read |= not write
        t.written |= write
        t.receivers.append(recv)
        t.indices.append(args[0])
        if write and self._unconditional(c):
            t.covered = True

    def _unconditional(self, c: Node) -> bool:
        """The call runs on every iteration: its statement is in the loop body, directly or in
        branches of ``if``/``else`` statements whose other branches also write the tensor."""
        body = self.loop.child_by_field_name("body")
        n = c.parent
        if n is None or n.type != "expression_statement":
            return False
        recv = _norm(self.p, method_receiver(c))
        while n != body:
            parent = n.parent
            if parent is None:
                return False
            if parent.type == "else_clause":
                parent = parent.parent
            if parent.type == "if_statement":
                branches = [parent.child_by_field_name("consequence"), parent.child_by_field_name("alternative")]
                if any(b is None for b in branches) or not all(self._writes(b, recv) for b in branches):
                    return False
            elif parent.type != "compound_statement":
                return False
            n = parent
        return True

    def _writes(self, stmt: Node, recv: str | None) -> bool:
        """``stmt`` (a branch) holds a SetValue on ``recv`` that runs whenever the branch does."""
        if stmt.type == "else_clause":
            stmt = next((c for c in stmt.named_children if c.type != "comment"), stmt)
        if stmt.type == "expression_statement":
            c = next((x for x in stmt.named_children if x.type == "call_expression"), None)
            return c is not None and callee_name(self.p, c) == "SetValue" and is_method_call(c) \
                and _norm(self.p, method_receiver(c)) == recv
        if stmt.type == "compound_statement":
            return any(self._writes(x, recv) for x in stmt.named_children)
        if stmt.type == "if_statement":
            br = [stmt.child_by_field_name("consequence"), stmt.child_by_field_name("alternative")]
            return all(b is not None and self._writes(b, recv) for b in br)
        return False


def analyze(p: Parsed, loop: Node) -> StageSite | None:
    """The site of ``loop``, or None when it is not one (see the module docstring)."""
    got = examine(p, loop)
    return got if isinstance(got, StageSite) else None


def examine(p: Parsed, loop: Node) -> StageSite | str:
    """The site of ``loop``, or why it is not one."""
    cl = counted_loop(p, loop)
    if cl is None or cl.step is not None:
        return "not a counted loop with step 1"
    init = loop.child_by_field_name("initializer")
    body = loop.child_by_field_name("body")
    if init is None or init.type != "declaration" or body is None:
        return "loop variable not declared in the loop"
    if _escapes(p, loop):
        return "break/return/goto leaves the loop"
    fn = function_of(loop)
    ctx = make_ctx(p, fn) if fn is not None else None
    if ctx is None or ctx.cls is None:
        return "not in a method of a class"
    scan = _Scan(p, ctx, loop, cl)
    try:
        scan.body(body)
    except _Reject as e:
        return str(e)
    except RecursionError:
        return "too deep"
    kept = [t for t in scan.tensors.values() if not t.ok]
    tensors = [t for t in scan.tensors.values() if t.ok]
    if any(t.written for t in kept):
        return next(f"{t.name} written at another index" for t in kept if t.written)
    if not tensors:
        return "no GM tensor accessed at var + b only"
    if len(tensors) > TILES[-1][0]:
        return "too many tensors"
    written = written_names(p, body)
    if cl.var in written:
        return "loop variable written"
    written |= {cl.var}
    if _has_continue(loop):
        for t in tensors:
            t.covered = False
    for e in [cl.start, cl.bound, *[b for t in tensors for b in _bases(p, t, cl.var)]]:
        if identifiers(p, e) & written:
            return f"{p.text(e)} written in the loop"
        if any(n.type == "call_expression" and callee_name(p, n) not in BOUND_CALLS for n in walk(e)):
            return f"call in {p.text(e)}"
    return StageSite(p, loop, cl, p.text(init.child_by_field_name("type")), tensors, [t.name for t in kept])


def _bases(p: Parsed, t: Staged, var: str) -> list[Node]:
    out = []
    for idx in t.indices[:1]:
        ok, b = index_base(p, idx, var)
        if b is not None:
            out.append(b)
    return out


def _label(p: Parsed, s: StageSite) -> str:
    names = ", ".join(t.name for t in s.tensors)
    kept = f" ({', '.join(s.kept)} read in place)" if s.kept else ""
    return f"stage {names} through UB{kept} {loop_label(p, s.loop)}"


@register
class StageScalarGm(Rewrite):
    name = "stage_scalar_gm"
    optimization = OPTIMIZATION
    anchors = ("for_statement",)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        files = kernel_parsed(op)
        for p in files:
            for n in of_type(p, "for_statement"):
                if b"GetValue" not in p.src[n.start_byte:n.end_byte] and \
                        b"SetValue" not in p.src[n.start_byte:n.end_byte]:
                    continue
                s = analyze(p, n)
                if s is not None and plan_buffers(files, p, function_of(n)) is not None:
                    sites.append(self.site(p, n, _label(p, s)))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        files = kernel_parsed(op)
        p = next(q for q in files if q.file == site.file)
        loop = find_node(p, site.start, site.end, "for_statement")
        s = analyze(p, loop)
        plan = plan_buffers(files, p, function_of(loop))
        if s is None or plan is None:
            raise MotifError(f"{self.name}: no site at {site.file}:{site.line}")
        taken: set[str] = set()
        tile = fresh_name(files, "AO_STAGE_TILE")
        bufs, ubs = [], []
        for t in s.tensors:
            b = fresh_name(files, "aoStageBuf", taken)
            u = fresh_name(files, "aoUb", taken | {b})
            taken |= {b, u}
            bufs.append(UbBuffer(b, f"{tile} * sizeof({t.elem})"))
            ubs.append(u)
        n_tile = next(v for k, v in TILES if len(s.tensors) <= k)
        lines = staged_lines(s, tile, [b.name for b in bufs], ubs, plan.pipe, _other_scalar_gm(files, s))
        return [replace_statement(p, loop, lines, comment=f"{self.name}: {_label(p, s)}"),
                *buffer_edits(plan, bufs), constant_edit(p, plan.cls, tile, n_tile)]


def _other_scalar_gm(files: list[Parsed], s: StageSite) -> bool:
    """Whether the kernel makes scalar GM accesses besides those of the site's loop."""
    if s.kept:
        return True
    for q in files:
        for c in of_type(q, "call_expression"):
            if q is s.p and s.loop.start_byte <= c.start_byte < s.loop.end_byte:
                continue
            if callee_name(q, c) in ("GetValue", "SetValue") and is_method_call(c):
                nm = base_name(q, method_receiver(c))
                if nm and tensor_type(q, c, nm).kind != "LocalTensor":
                    return True
    return False


def _flag(pipe: str, event: str) -> str:
    e = f"AscendC::HardEvent::{event}"
    return (f"{{ AscendC::TEventID aoEv = {pipe}FetchEventID({e}); "
            f"AscendC::SetFlag<{e}>(aoEv); AscendC::WaitFlag<{e}>(aoEv); }}")


def _body_lines(s: StageSite, ubs: list[str]) -> list[str]:
    """The loop body with its GM accesses renamed to the UB tensors at ``aoJ``."""
    p, body = s.p, s.loop.child_by_field_name("body")
    reps: list[tuple[int, int, str]] = []
    for t, u in zip(s.tensors, ubs):
        reps += [(r.start_byte, r.end_byte, u) for r in t.receivers]
        reps += [(i.start_byte, i.end_byte, "aoJ") for i in t.indices]
    a0, a1 = (body.start_byte + 1, body.end_byte - 1) if body.type == "compound_statement" else \
        (body.start_byte, body.end_byte)
    seg = p.src[a0:a1]
    for a, b, text in sorted(reps, reverse=True):
        seg = seg[:a - a0] + text.encode() + seg[b - a0:]
    lines = textwrap.dedent(seg.decode().strip("\n")).strip("\n").splitlines()
    # the loop variable, where the body still uses it
    if any(n.type == "identifier" and p.text(n) == s.cl.var
           and not any(i.start_byte <= n.start_byte < i.end_byte for t in s.tensors for i in t.indices)
           for n in walk(body)):
        lines.insert(0, f"const decltype(aoT) {s.cl.var} = static_cast<decltype(aoT)>(aoT + aoJ);")
    return [ln.rstrip() for ln in lines if ln.strip()]


def staged_lines(s: StageSite, tile: str, bufs: list[str], ubs: list[str], pipe: str, dcci: bool) -> list[str]:
    """The staged replacement of the site's loop."""
    p = s.p
    lo, hi = p.text(s.cl.start), p.text(s.cl.bound)
    out = [f"AscendC::LocalTensor<{t.elem}> {u} = {b}.Get<{t.elem}>();" for t, b, u in zip(s.tensors, bufs, ubs)]
    if dcci:
        g = s.tensors[0]
        out.append(f"AscendC::DataCacheCleanAndInvalid<{g.elem}, AscendC::CacheLine::ENTIRE_DATA_CACHE, "
                   f"AscendC::DcciDst::CACHELINE_OUT>({g.name});")
    out.append("AscendC::PipeBarrier<PIPE_ALL>();")
    loop = [f"const uint32_t aoLen = static_cast<uint32_t>(({hi}) - aoT < {tile} ? ({hi}) - aoT : {tile});"]
    ins = [(t, u) for t, u in zip(s.tensors, ubs) if t.copy_in]
    outs = [(t, u) for t, u in zip(s.tensors, ubs) if t.written]
    for t, u in ins:
        loop.append(f"AscendC::DataCopyPad({u}, {t.name}[{_gm_off(t)}], "
                    f"AscendC::DataCopyExtParams{{1, static_cast<uint32_t>(aoLen * sizeof({t.elem})), 0, 0, 0}}, "
                    f"AscendC::DataCopyPadExtParams<{t.elem}>{{false, 0, 0, static_cast<{t.elem}>(0)}});")
    if ins:
        loop += [_flag(pipe, "MTE2_S"), _flag(pipe, "MTE2_V")]
    loop.append("for (uint32_t aoJ = 0; aoJ < aoLen; ++aoJ) {")
    loop += [f"    {ln}" for ln in _body_lines(s, ubs)]
    loop.append("}")
    if ins:
        loop += [_flag(pipe, "S_MTE2"), _flag(pipe, "V_MTE2")]
    if outs:
        loop += [_flag(pipe, "S_MTE3"), _flag(pipe, "V_MTE3")]
        for t, u in outs:
            loop.append(f"AscendC::DataCopyPad({t.name}[{_gm_off(t)}], {u}, "
                        f"AscendC::DataCopyExtParams{{1, static_cast<uint32_t>(aoLen * sizeof({t.elem})), 0, 0, 0}});")
        loop += [_flag(pipe, "MTE3_S"), _flag(pipe, "MTE3_V"), _flag(pipe, "MTE3_MTE2")]
    out.append(f"for ({s.var_type} aoT = {lo}; aoT < {hi}; aoT += {tile}) {{")
    out += [f"    {ln}" for ln in loop]
    out.append("}")
    return out


def _gm_off(t: Staged) -> str:
    return "aoT" if t.base_text is None else f"aoT + ({t.base_text})"
