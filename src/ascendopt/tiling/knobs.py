"""Knob extraction: which integer constants of an operator's sources the tiling search may set.

A knob is a span of source text holding an integer (a literal, a literal-only expression, or
a core-count identifier that can be capped) together with its default value and a role guess.

What becomes a knob:
  * inside the evolvable region of the tiling function: literal initialisers / assignments of
    integer variables (``uint32_t tileLength = 1024;``, ``baseM = 64;``), literal branches of a
    ternary that is the whole value (``ubPartNum = fp16 ? 5 : 3``), clamp bounds
    (``n < 40 ? n : 40`` -> both 40s as one knob), literal arguments of ``min``/``max``, and
    ``x = coreNum`` where ``coreNum`` comes from a platform core-count query (a core cap);
  * a literal ``SetBlockDim(N)`` argument anywhere in the tiling function;
  * namespace-level ``const``/``constexpr`` integer constants the tiling function reads
    (``constexpr uint32_t BUFFER_NUM = 2;``);
  * kernel compile-time constants with a tiling role (``constexpr int32_t BUFFER_NUM = 2;`` in
    op_kernel, ``rebuild="kernel"``); a host and a kernel constant with the same name and value
    become one knob whose value is written to both places.

What stays fixed is read off where a value goes (:mod:`ascendopt.tiling.flow`), not off
identifier names: anything inside a condition (guard clauses); shape-derived values (never
literal-only); a value that reaches nothing the kernel sees (block dim, tiling-data fields,
workspace sizes), directly or by choosing a branch; a value that only selects the tiling key
(dtype codes, enum values); a dtype's byte size (set branch by branch to the size of the dtype
the branch tests); an enumeration (three or more consecutive codes); an index passed to a
context query; an initialiser overwritten before use, or a zero that later code replaces; a
floor guard of 0 or 1; an alignment granule (``x % N``, ``x / N * N``, ``(x + N - 1) / N``,
``x / N`` later multiplied back by ``N``) and the constants it is scaled from (but a core
count's clamp, or a core count's direct divisor no value is rounded back to, stays a knob); ISA limits (255
repeats, 4095 bursts, 16-bit strides); kernel constants passed straight to an instruction (a
mask, a repeat count, a round mode); out-parameters (``uint32_t n = 0; Get(.., n);``),
accumulators (``rows = 1; rows *= ..``) and loop counters. Roles come from uses too
(:func:`ascendopt.tiling.facts.use_role`: block_dim, core_cap, buffer_num, tile, ub_parts,
ub_reserve, core_grain), never from names. Anything the parser cannot map is skipped, never
raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, const_int_value, declarator_name, int_literal, is_int_type, parse, unparen, walk
from ascendopt.cxx.syntax import references
from ascendopt.operator import Operator
from ascendopt.tiling.constant_roles import (ISA_LIMITS, alignment_constants, granule_sources, instruction_operand,
                                             kernel_role)
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.facts import FunctionFacts, use_role  # noqa: F401 - use_role re-exported
from ascendopt.tiling.flow import queue_depth_names
from ascendopt.tiling.template import TilingTemplate


ROLES = ("tile", "buffer_num", "core_cap", "block_dim", "ub_parts", "ub_reserve", "core_grain", "other")
_MINMAX = {"min", "max", "std::min", "std::max", "Min", "Max", "MIN", "MAX"}

@dataclass(frozen=True)
class Span:
    """A byte span of one file."""

    file: str
    start: int
    end: int


@dataclass(frozen=True)
class Knob:
    """One tunable integer site of the sources.

    Attributes:
        id: Stable identifier (``tileLength``, ``baseM.2``, ``BUFFER_NUM``, ``maxCoreNum``).
        name: The identifier the value belongs to.
        file / start / end: Primary byte span (UTF-8 offsets) of the text a value replaces.
        line: 1-based line of the primary span.
        text: Original text of the primary span.
        default: Value in the original sources (for a core cap: the SoC's core count).
        role: One of :data:`ROLES` (see :func:`use_role`).
        scope: region | function | namespace | kernel.
        rebuild: ``"host"`` (host tiling only) or ``"kernel"`` (kernel sources change too).
        render: ``"literal"`` (write the number) or ``"cap"`` (write ``(x < V ? x : V)``).
        suffix: Integer-literal suffix kept when writing (``u``, ``UL``).
        extra: Further spans that receive the same value (clamp bounds, host+kernel twins).
        flag: True for 0/1 branch values (categorical).
        cores: ``"aiv"`` or ``"aic"``: which core count bounds a core knob.
        bytes: The value counts bytes (subtracted from the UB size, or divided by a type size).
        granule: The code rounds the value to this granule (0: none known); its grid steps by it.
        domain: Admissible values (set by :class:`~ascendopt.tiling.space.KnobSpace`).
    """

    id: str
    name: str
    file: str
    start: int
    end: int
    line: int
    text: str
    default: int
    role: str
    scope: str
    rebuild: str = "host"
    render: str = "literal"
    suffix: str = ""
    extra: tuple[Span, ...] = ()
    flag: bool = False
    cores: str = "aiv"
    bytes: bool = False
    granule: int = 0
    domain: Domain | None = field(default=None, compare=False)

    @property
    def spans(self) -> tuple[Span, ...]:
        return (Span(self.file, self.start, self.end),) + self.extra

    def render_value(self, value: int) -> str:
        if self.render == "cap":
            return f"({self.text} < {value}U ? {self.text} : {value}U)"
        return f"{value}{self.suffix}"

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "file": self.file, "start": self.start, "end": self.end,
                "line": self.line, "text": self.text, "default": self.default, "role": self.role,
                "scope": self.scope, "rebuild": self.rebuild, "render": self.render, "suffix": self.suffix,
                "extra": [[s.file, s.start, s.end] for s in self.extra], "flag": self.flag, "cores": self.cores,
                "bytes": self.bytes, "granule": self.granule, "domain": self.domain.to_json() if self.domain else None}

    @staticmethod
    def from_json(d: dict) -> Knob:
        d = dict(d)
        d["extra"] = tuple(Span(*s) for s in d.get("extra", ()))
        d["domain"] = Domain.from_json(d["domain"]) if d.get("domain") else None
        return Knob(**d)


# ---------------------------------------------------------------------------------------------
def _in_condition(node: Node, stop: Node | None = None) -> bool:
    n = node.parent
    while n is not None and n != stop:
        if n.type == "condition_clause" or (n.type in ("for_statement", "while_statement", "do_statement")
                                            and node.start_byte < (n.child_by_field_name("body") or n).start_byte):
            return True
        n = n.parent
    return False


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


@dataclass(frozen=True)
class KnobForm:
    """How a knob found at a site is written back and read: ``render`` (``literal``, or ``cap``
    for a core clamp), ``extra`` spans rewritten with it, ``flag`` (a switch, not a quantity),
    ``cores`` (which core count a cap is of), ``default`` (when not the site's value)."""

    render: str = "literal"
    extra: tuple[Span, ...] = ()
    flag: bool = False
    cores: str = "aiv"
    default: int | None = None


class _Collector:
    def __init__(self, p: Parsed, scope: str, rebuild: str = "host", facts: FunctionFacts | None = None):
        self.p, self.scope, self.rebuild, self.facts = p, scope, rebuild, facts
        self.knobs: list[Knob] = []
        self.used_ids: dict[str, int] = {}
        self.pinned: set[str] = set()   # ids whose role the site itself fixes (SetBlockDim literal)

    def new_id(self, base: str) -> str:
        k = self.used_ids.get(base, 0) + 1
        self.used_ids[base] = k
        return base if k == 1 else f"{base}.{k}"

    def add(self, base_id: str, name: str, node: Node, value: int, role: str | None = None,
            form: "KnobForm | None" = None) -> None:
        f = form or KnobForm()
        p = self.p
        text = p.text(node)
        lit = int_literal(text) if node.type == "number_literal" else None
        self.knobs.append(Knob(
            id=self.new_id(base_id), name=name, file=p.file, start=node.start_byte, end=node.end_byte,
            line=p.line(node.start_byte), text=text, default=value if f.default is None else f.default,
            role=role or use_role(self.facts, name), scope=self.scope, rebuild=self.rebuild, render=f.render,
            suffix=lit[1] if lit else "", extra=f.extra, flag=f.flag, cores=f.cores,
            bytes=self.facts is not None and name in self.facts.byte_counts,
            granule=self.facts.granules.get(name, 0) if self.facts is not None else 0))


def _value_knobs(c: _Collector, facts: FunctionFacts, name: str, base_id: str, value: Node,
                 decl: Node | None = None) -> None:
    """Knobs in the value of ``name = value`` / ``T name = value`` (``decl``: the
    init_declarator of a declaration)."""
    p = c.p
    v = unparen(value)
    if name in facts.unstable or name in facts.type_sizes:
        return
    cv = const_int_value(p, v)
    if cv is not None:
        flow = facts.flow
        if decl is not None and flow is not None and (
                flow.killed_before_read(decl, name) or (cv == 0 and flow.reassigned(name))):
            return  # overwritten before use, or a zero that later code replaces: not a choice
        c.add(base_id, name, v, cv)
        return
    if v.type == "identifier" and p.text(v) in facts.core_vars:
        c.add(base_id, name, v, 0, "core_cap", KnobForm(render="cap", cores=facts.core_vars[p.text(v)], default=-1))
        return
    if v.type == "conditional_expression":
        cond = v.child_by_field_name("condition")
        branches = [("then", v.child_by_field_name("consequence")), ("else", v.child_by_field_name("alternative"))]
        if cond is None or any(b is None for _, b in branches):
            return
        vals = [const_int_value(p, unparen(b)) for _, b in branches]
        both = all(x is not None for x in vals)
        for i, (tag, b) in enumerate(branches):
            if vals[i] is None:
                continue
            b = unparen(b)
            other = branches[1 - i][1]
            if not both and _norm(p.text(other)) in _norm(p.text(cond)):
                # clamp (n < 40 ? n : 40) or floor guard (n > 0 ? n : 1); a floor of 0 or 1
                # keeps a count or divisor valid: safety, not a choice
                if vals[i] in (0, 1) and _is_lower_bound(p, cond, other):
                    continue
                twins = [n for n in walk(cond) if n.type == "number_literal" and const_int_value(p, n) == vals[i]]
                if twins:
                    c.add(f"{base_id}.cap", name, b, vals[i],
                          form=KnobForm(extra=tuple(Span(p.file, t.start_byte, t.end_byte) for t in twins)))
                continue
            flag = both and set(vals) <= {0, 1}
            c.add(f"{base_id}.{tag}", name, b, vals[i], "other" if flag else None, KnobForm(flag=flag))
        return
    if v.type == "call_expression":
        fn = v.child_by_field_name("function")
        args = v.child_by_field_name("arguments")
        if fn is not None and args is not None and p.text(fn).split("<")[0] in _MINMAX:
            for a in args.named_children:
                a = unparen(a)
                av = const_int_value(p, a)
                if av is not None:
                    c.add(f"{base_id}.{p.text(fn).split('::')[-1].split('<')[0].lower()}", name, a, av)


def _is_lower_bound(p: Parsed, cond: Node, var: Node) -> bool:
    """``var >= c`` / ``var > c`` / ``c < var`` / ``c <= var``: the ternary keeps var from
    going below the literal."""
    c = unparen(cond)
    if c.type != "binary_expression":
        return False
    op = p.text(c.child_by_field_name("operator"))
    left, right = (_norm(p.text(c.child_by_field_name(k))) for k in ("left", "right"))
    v = _norm(p.text(var))
    return (op in (">", ">=") and left == v) or (op in ("<", "<=") and right == v)


def region_knobs(p: Parsed, tpl: TilingTemplate, fn_body: Node, consts: dict[str, int] | None = None,
                 depth_fields: set[str] = frozenset()) -> list[Knob]:
    """Knobs inside the template's region plus a literal SetBlockDim argument of the function
    (``consts``: namespace constants the function may read, for the value analysis;
    ``depth_fields``: tiling fields the kernel uses as queue depths)."""
    facts = FunctionFacts(p, fn_body, consts, depth_fields)
    c = _Collector(p, "region", facts=facts)
    for n in walk(fn_body):
        inside = tpl.region_start <= n.start_byte and n.end_byte <= tpl.region_end
        try:
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and p.text(fn).endswith("SetBlockDim") and not _in_condition(n, fn_body):
                    args = n.child_by_field_name("arguments")
                    a = args.named_children if args is not None else []
                    if len(a) == 1 and const_int_value(p, unparen(a[0])) is not None:
                        lit = unparen(a[0])
                        c.add("blockDim", "blockDim", lit, const_int_value(p, lit), "block_dim")
                        c.pinned.add(c.knobs[-1].id)
                continue
            if not inside or _in_condition(n, fn_body):
                continue
            if n.type == "declaration" and is_int_type(p, n.child_by_field_name("type")):
                if n.parent is not None and n.parent.type == "for_statement":
                    continue
                for d in n.children_by_field_name("declarator"):
                    if d.type != "init_declarator":
                        continue
                    name = declarator_name(p, d.child_by_field_name("declarator"))
                    val = d.child_by_field_name("value")
                    if name and val is not None:
                        _value_knobs(c, facts, name, name, val, d)
            elif n.type == "assignment_expression":
                left, op, val = (n.child_by_field_name(k) for k in ("left", "operator", "right"))
                if left is not None and left.type == "identifier" and op is not None and p.text(op) == "=" \
                        and val is not None:
                    _value_knobs(c, facts, p.text(left), p.text(left), val)
        except Exception:  # a construct we cannot map is skipped, never fatal
            continue
    return _reaching_outputs(c.knobs, facts, c.pinned)


def _reaching_outputs(knobs: list[Knob], facts: FunctionFacts, pinned: set[str] = frozenset()) -> list[Knob]:
    """The knobs whose value reaches something the kernel sees (block dim, a tiling-data field,
    a workspace size). A value that reaches only the tiling key selects a code path (a dtype
    code, an enum value) and one that reaches nothing is dead text: neither is a choice."""
    flow = facts.flow
    if flow is None:
        return knobs
    out = flow.output_sources() - flow.query_operands() - facts.enums
    return [k for k in knobs if k.id in pinned or k.name in out]


def file_constants(p: Parsed, scope: str, rebuild: str) -> list[Knob]:
    """Namespace/file-level ``const``/``constexpr`` integer constants with literal-only values."""
    c = _Collector(p, scope, rebuild)
    for n in walk(p.tree.root_node):
        if n.type != "declaration":
            continue
        anc, in_fn = n.parent, False
        while anc is not None:
            if anc.type in ("function_definition", "class_specifier", "struct_specifier", "compound_statement"):
                in_fn = True
                break
            anc = anc.parent
        if in_fn:
            continue
        quals = {p.text(q) for q in n.children if q.type == "type_qualifier"}
        if not quals & {"const", "constexpr"} or not is_int_type(p, n.child_by_field_name("type")):
            continue
        for d in n.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                continue
            name = declarator_name(p, d.child_by_field_name("declarator"))
            val = d.child_by_field_name("value")
            if not name or val is None:
                continue
            v = unparen(val)
            cv = const_int_value(p, v)
            if cv is None:
                continue
            c.add(name, name, v, cv)
    for n in walk(p.tree.root_node):   # host ``struct Cfg { static constexpr uint32_t kTile = 512; };``
        if scope == "kernel" or n.type != "field_declaration" or not _static_const(p, n) or _in_function(n):
            continue
        d, val = n.child_by_field_name("declarator"), n.child_by_field_name("default_value")
        cv = const_int_value(p, unparen(val)) if val is not None else None
        if d is not None and d.type == "field_identifier" and cv is not None \
                and is_int_type(p, n.child_by_field_name("type")):
            c.add(p.text(d), p.text(d), unparen(val), cv)
    return c.knobs


def runtime_names(p: Parsed) -> set[str]:
    """Names the file declares as runtime values: parameters, and variables or members
    declared without ``const``/``constexpr``."""
    out: set[str] = set()
    for n in walk(p.tree.root_node):
        if n.type == "parameter_declaration":
            name = declarator_name(p, n.child_by_field_name("declarator"))
        elif n.type in ("declaration", "field_declaration") and not _static_const(p, n) and not {
                p.text(q) for q in n.children if q.type == "type_qualifier"} & {"const", "constexpr"}:
            d = n.child_by_field_name("declarator")
            name = p.text(d) if d is not None and d.type == "field_identifier" else \
                declarator_name(p, d) if d is not None else None
        else:
            continue
        if name:
            out.add(name)
    return out


def _static_const(p: Parsed, n: Node) -> bool:
    """A ``static const``/``static constexpr`` member declaration."""
    kids = {p.text(q) for q in n.children if q.type in ("type_qualifier", "storage_class_specifier")}
    return "static" in kids and bool(kids & {"const", "constexpr"})


def _in_function(n: Node) -> bool:
    a = n.parent
    while a is not None:
        if a.type in ("function_definition", "compound_statement"):
            return True
        a = a.parent
    return False


def extract_knobs(op: Operator, tpl: TilingTemplate, parsed: dict[str, Parsed] | None = None,
                  include_kernel: bool = True) -> list[Knob]:
    """All knobs of ``op`` (without domains; :class:`KnobSpace` adds them).

    Never raises for constructs it cannot map; a file that does not parse yields no knobs.
    """
    parsed = parsed if parsed is not None else {}

    def get(rel: str) -> Parsed:
        if rel not in parsed:
            parsed[rel] = parse(rel, op.files[rel])
        return parsed[rel]

    p = get(tpl.file)
    fn = next((n for n in walk(p.tree.root_node)
               if n.type == "function_definition" and n.start_byte == tpl.func_start), None)
    body = fn.child_by_field_name("body") if fn is not None else None

    consts: list[Knob] = []
    for rel in op.host_files():
        try:
            consts += file_constants(get(rel), "namespace", "host")
        except Exception:
            continue
    values = {k.name: k.default for k in consts}
    depth_fields: set[str] = set()
    for rel in op.kernel_files():
        try:
            depth_fields |= queue_depth_names(get(rel))
        except Exception:
            continue
    knobs: list[Knob] = region_knobs(p, tpl, body, values, depth_fields) if body is not None else []

    # namespace constants the tiling function reads outside conditions, and whose value reaches
    # what the kernel sees (not a type size, not an alignment granule)
    # alignment granules anywhere in the operator, and the constants they are computed from
    # (``elemsPerBlock = BLOCK_BYTES / typeBytes`` makes BLOCK_BYTES a granule too)
    # (a kernel's granule that the kernel declares as a runtime variable, a parameter or a
    # member, is another value than a host constant sharing its name)
    granules: set[str] = set()
    rounded: set[str] = set()   # granules a value is rounded back to (not only ceil-divided by)
    for rel in (*op.host_files(), *op.kernel_files()):
        try:
            fp = get(rel)
            found = granule_sources(fp, alignment_constants(fp, fp.tree.root_node))
            rounded |= alignment_constants(fp, fp.tree.root_node, ceil_div=False)
            if rel not in op.host_files():
                found -= runtime_names(fp)
            granules |= found
        except Exception:
            continue
    # kernel constants that are instruction operands, flags or indices there are facts on the
    # host side too (the host mirrors the kernel's value)
    kernel_facts: set[str] = set()
    kernel_consts: list[tuple[Parsed, Knob]] = []
    for rel in op.kernel_files():
        try:
            kp = get(rel)
            kernel_consts += [(kp, k) for k in file_constants(kp, "kernel", "kernel")]
        except Exception:
            continue
    for kp, k in kernel_consts:
        if k.name in granules or k.default in ISA_LIMITS or instruction_operand(kp, k.name):
            kernel_facts.add(k.name)
    if body is not None:
        facts = FunctionFacts(p, body, values, depth_fields)
        for k in consts:
            # a core cap is a choice even when it also divides the work (``(n + cores - 1) / cores``)
            fact = k.name in granules or k.name in kernel_facts or k.default in ISA_LIMITS
            exempt = facts.core_clamps | (facts.core_divisors - rounded)
            if k.name in facts.type_sizes or (fact and k.name not in exempt):
                continue
            refs = references(p, body, k.name)
            if any(not _in_condition(r, body) for r in refs) or k.name in facts.core_clamps:
                knobs += _reaching_outputs([facts.uses(k)], facts)
    if include_kernel:
        for kp, k in kernel_consts:
            if k.name in kernel_facts:
                continue
            role = kernel_role(kp, k.name)
            twin = next((i for i, h in enumerate(knobs) if h.scope == "namespace" and h.name == k.name), None)
            if twin is not None and knobs[twin].default == k.default:
                h = knobs[twin]   # one value written to both places
                knobs[twin] = replace(h, rebuild="kernel", role=role if role == "buffer_num" else h.role,
                                      extra=h.extra + (Span(k.file, k.start, k.end),))
            elif role is not None:
                knobs.append(replace(k, role=role))
    # unique ids across files
    seen: dict[str, int] = {}
    out = []
    for k in knobs:
        kid = k.id if k.scope != "kernel" or k.id not in seen else f"kernel/{k.id}"
        n = seen.get(kid, 0)
        seen[kid] = n + 1
        out.append(replace(k, id=kid if n == 0 else f"{kid}#{n + 1}"))
    return out
