"""Place the sources of binary vector instructions in different UB bank groups (optimization ``bank_conflict``, family ``ub_bank_layout``).

Motif ``bank_conflict`` (rewind, removes it): Make a binary vector instruction's two source operands conflict on UB bank groups.

UB (Atlas A2) is read in 32-byte blocks from 16 bank groups (address bits [8:5]); one vector
repeat reads 256 contiguous bytes of each source, i.e. 8 of the 16 groups. Two sources whose
addresses differ by 256 modulo 512 read disjoint groups and are served in one cycle; two
sources congruent modulo 512 read the same groups and every repeat pays a read-read conflict
(the simulator's ``ub_rr_conflict_cycles`` per repeat, docs/timing-model.md). Kernels that
care place the source buffers 256 bytes apart (modulo 512); this motif undoes that placement.

Sites: a binary vector call (``Add``/``Sub``/``Mul``/``Div``/``Max``/``Min``/``Compare``/... ,
``op(dst, src0, src1, ...)``) whose two sources are distinct local variables taken from two
distinct queues/buffers (``x = q.DeQue<T>()`` / ``AllocTensor`` / ``Get``), each given UB by
exactly one ``InitBuffer`` statement, both in one block. One site per pair of buffers.

Rewrite (run-time, so it holds whatever the tile sizes are). When every statement from the
first buffer's ``InitBuffer`` to the second's is an ``InitBuffer`` of the same pipe, the
distance between the two buffers is a closed-form expression of their arguments, and one pad
``TBuf`` of ``(-distance) mod 512`` bytes (none when 0) is allocated just before the second
buffer: no UB is spent when the buffers already collide. Otherwise three ``TBuf``
members are declared next to the pipe; a 32-byte probe is allocated just before the first
buffer's ``InitBuffer`` and another just before the second's, followed by a pad of
``(probe1 - probe2) mod 512`` bytes (none when 0). The second buffer then starts at an address
congruent to the first's modulo 512 (``GetPhyAddr`` of the probes gives the UB cursor). With
equal buffer lengths every slot pair stays congruent; with unequal lengths only the first
slots are guaranteed. Costs at most 64 + 480 bytes of UB; an operator whose tiles fill the UB
exactly fails with a UB overflow (rewind rejects it).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, unparen, walk
from ascendopt.cxx.syntax import ancestors, call_args, callee_name, calls, function_of, receiver, statement_of
from ascendopt.operator import Operator
from ascendopt.transforms.base import (
    Edit,
    Motif,
    MotifError,
    Site,
    find_node,
    insert_after_statement,
    insert_before_statement,
    kernel_parsed,
)
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="bank_conflict",
    family="ub_bank_layout",
    title="Place the sources of binary vector instructions in different UB bank groups",
    mechanism="A vector repeat reads 256 bytes of each source from the 16 UB bank groups (32 bytes "
              "each); sources 256 bytes apart modulo 512 use disjoint groups and are read in the same "
              "cycle, sources congruent modulo 512 collide on every repeat.",
    bottleneck="read-read UB bank conflicts: every repeat of the binary instruction stalls, V pipe busy time grows",
    relieves=("vector_bound",),
)


BANK_PERIOD = 512   # 16 bank groups x 32 bytes: addresses congruent mod 512 hit the same groups
BINARY = frozenset({"Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu",
                    "MulAddDst", "FusedMulAdd", "AddDeqRelu", "Compare"})
SOURCES = frozenset({"DeQue", "AllocTensor", "Get", "GetWithOffset"})


@dataclass(frozen=True)
class Plan:
    first: Node          # InitBuffer statement allocated first
    second: Node         # InitBuffer statement allocated second (gets the pad)
    first_obj: str
    second_obj: str
    alloc_fn: str        # ``pipe.InitBuffer`` / ``pipe->InitBuffer``
    pipe_decl: Node      # declaration of the pipe (member or local)


def _source_object(p: Parsed, call: Node, var: str) -> str | None:
    """The queue/buffer ``var`` was taken from (``x = q.DeQue<T>()`` in the same function)."""
    fn = function_of(call)
    if fn is None:
        return None
    found = None
    for n in walk(fn):
        if n.type == "init_declarator" and declarator_name(p, n.child_by_field_name("declarator")) == var:
            v = n.child_by_field_name("value")
            v = None if v is None else unparen(v)
            if v is None or v.type != "call_expression" or callee_name(p, v) not in SOURCES:
                return None
            if found is not None:
                return None  # declared twice: ambiguous
            found = receiver(p, v) or None
    return found


def _decl_of(p: Parsed, scope: Node, name: str) -> Node | None:
    for n in walk(scope):
        if n.type in ("field_declaration", "declaration"):
            for d in n.children_by_field_name("declarator"):
                if declarator_name(p, d) == name:
                    return n
    return None


def _pipe_declaration(p: Parsed, init_call: Node) -> Node | None:
    pipe = receiver(p, init_call).replace("this->", "").strip()
    if not pipe or not pipe.isidentifier():
        return None
    fn = function_of(init_call)
    local = _decl_of(p, fn, pipe) if fn is not None else None
    if local is not None and local.type == "declaration":
        return local
    cls = next((a for a in ancestors(init_call) if a.type in ("class_specifier", "struct_specifier")), None)
    if cls is not None:
        body = cls.child_by_field_name("body")
        if body is not None:
            for c in body.named_children:
                if c.type == "field_declaration" and any(declarator_name(p, d) == pipe
                                                         for d in c.children_by_field_name("declarator")):
                    return c
    return None


def plan(p: Parsed, call: Node) -> Plan | None:
    args = call_args(call)
    if len(args) < 3:
        return None
    a, b = unparen(args[1]), unparen(args[2])
    if a.type != "identifier" or b.type != "identifier" or p.text(a) == p.text(b):
        return None
    objs = [_source_object(p, call, p.text(a)), _source_object(p, call, p.text(b))]
    if None in objs or objs[0] == objs[1]:
        return None
    cls = next((x for x in ancestors(call) if x.type in ("class_specifier", "struct_specifier")), None)
    found = {o: [c for c in calls(p, ["InitBuffer"], cls)  # the same class: kernel classes may reuse names
                 if call_args(c) and p.text(call_args(c)[0]) == o and statement_of(c) is not None] for o in objs}
    pairs = [(c0, c1) for c0 in found[objs[0]] for c1 in found[objs[1]]
             if statement_of(c0).parent == statement_of(c1).parent]
    if len(pairs) != 1:
        return None  # no (or no unique) block allocating both buffers
    inits = dict(zip(objs, pairs[0]))
    s0, s1 = (statement_of(inits[o]) for o in objs)
    fn0 = inits[objs[0]].child_by_field_name("function")
    fn1 = inits[objs[1]].child_by_field_name("function")
    if p.text(fn0) != p.text(fn1):
        return None  # two different pipes
    decl = _pipe_declaration(p, inits[objs[0]])
    if decl is None:
        return None
    if s0.start_byte > s1.start_byte:
        s0, s1, objs = s1, s0, objs[::-1]
    return Plan(s0, s1, objs[0], objs[1], p.text(fn0), decl)


def _fresh(p: Parsed, base: str) -> str:
    used = {p.text(n) for n in walk(p.tree.root_node) if n.type in ("identifier", "field_identifier")}
    name, k = base, 1
    while name in used:
        k += 1
        name = f"{base}{k}"
    return name


@register
class BankConflict(Motif):
    name = "bank_conflict"
    optimization = OPTIMIZATION

    def find(self, op: Operator) -> list[Site]:
        sites, seen = [], set()
        for p in kernel_parsed(op):
            for call in calls(p, BINARY):
                pl = plan(p, call)
                if pl is None or (p.file, pl.first_obj, pl.second_obj) in seen:
                    continue
                seen.add((p.file, pl.first_obj, pl.second_obj))
                args = call_args(call)
                label = (f"{callee_name(p, call)}(.., {p.text(args[1])}, {p.text(args[2])}): {pl.second_obj} "
                         f"placed bank-congruent with {pl.first_obj} (mod {BANK_PERIOD} B)")
                sites.append(self.site(p, call, label, f"{pl.first_obj},{pl.second_obj}"))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next((q for q in kernel_parsed(op) if q.file == site.file), None)
        if p is None:
            raise MotifError(f"{self.name}: no kernel file {site.file}")
        pl = plan(p, find_node(p, site.start, site.end, "call_expression"))
        if pl is None or f"{pl.first_obj},{pl.second_obj}" != site.detail:
            raise MotifError(f"{self.name}: site {site.label!r} no longer matches")
        f = pl.alloc_fn
        span = _bytes_between(p, pl)
        if span is not None:
            # every allocation from the first buffer up to the second is a plain InitBuffer:
            # the distance is known in closed form, one pad (no probes) makes it 0 mod 512
            pad = _fresh(p, "bankPad_")
            gap = f"(({BANK_PERIOD}U - ({span}) % {BANK_PERIOD}U) % {BANK_PERIOD}U)"
            return [
                insert_after_statement(p, pl.pipe_decl, [
                    f"AscendC::TBuf<AscendC::TPosition::VECCALC> {pad};  // rewind: bank-conflicting layout"]),
                insert_before_statement(p, pl.second, [
                    f"if ({gap} != 0) {{",
                    f"    {f}({pad}, {gap});  // {pl.second_obj} congruent with {pl.first_obj} mod {BANK_PERIOD}",
                    "}",
                ]),
            ]
        pa, pb, pad = _fresh(p, "bankProbeA_"), _fresh(p, "bankProbeB_"), _fresh(p, "bankPad_")
        gap = (f"static_cast<uint32_t>({pa}.Get<uint8_t>().GetPhyAddr() - {pb}.Get<uint8_t>().GetPhyAddr()) "
               f"% {BANK_PERIOD}U")
        return [
            insert_after_statement(p, pl.pipe_decl, [
                f"AscendC::TBuf<AscendC::TPosition::VECCALC> {pa}, {pb}, {pad};  // rewind: bank-conflicting layout"]),
            insert_before_statement(p, pl.first, [f"{f}({pa}, 32);"]),
            insert_before_statement(p, pl.second, [
                f"{f}({pb}, 32);",
                f"if ({gap} != 0) {{",
                f"    {f}({pad}, {gap});  // {pl.second_obj} congruent with {pl.first_obj} mod {BANK_PERIOD}",
                "}",
            ]),
        ]


def _bytes_between(p: Parsed, pl: Plan) -> str | None:
    """UB bytes allocated from the first buffer's InitBuffer up to (not including) the second's,
    as a C++ expression, when every statement in between is an InitBuffer of the same pipe
    (the emulation and the hardware round each buffer up to 32 bytes); else None."""
    terms = []
    block = pl.first.parent
    for st in block.named_children:
        if st.start_byte < pl.first.start_byte or st.type == "comment":
            continue
        if st.start_byte >= pl.second.start_byte:
            break
        call = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
        if call is None or call.type != "call_expression" or callee_name(p, call) != "InitBuffer" \
                or p.text(call.child_by_field_name("function")) != pl.alloc_fn:
            return None
        args = call_args(call)
        if len(args) == 3:
            terms.append(f"static_cast<uint32_t>({p.text(args[1])}) * ((static_cast<uint32_t>({p.text(args[2])}) + 31U) / 32U * 32U)")
        elif len(args) == 2:
            terms.append(f"((static_cast<uint32_t>({p.text(args[1])}) + 31U) / 32U * 32U)")
        else:
            return None
    return " + ".join(terms) if terms else None
