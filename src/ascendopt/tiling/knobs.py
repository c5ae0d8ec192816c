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

What stays fixed: anything inside a condition (guard clauses), shape-derived values (they are
never literal-only), type sizes, alignment / hardware facts recognised by name (``BLOCK_BYTES``,
``REPEAT``, ``ALIGN``, ``MAX_DMA_BURSTS`` ...), out-parameters (``uint32_t n = 0; Get(.., n);``),
accumulators (``rows = 1; rows *= ..``) and loop counters. Anything the parser cannot map is
skipped, never raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from ascendopt.operator import Operator
from ascendopt.tiling.cparse import (
    Parsed,
    const_int_value,
    declarator_name,
    int_literal,
    is_int_type,
    parse,
    walk,
)
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.template import TilingTemplate

ROLES = ("tile", "buffer_num", "core_cap", "block_dim", "ub_parts", "other")
_MINMAX = {"min", "max", "std::min", "std::max", "Min", "Max", "MIN", "MAX"}
_CORE_QUERY = re.compile(r"GetCoreNum(Aiv|Aic|Vector|Cube)?\b|GetBlockNum\b|GetAicNum|GetAivNum")
_FIXED_WORDS = {"align", "aligned", "alignment", "repeat", "repeats", "fractal", "cube", "mask", "key",
                "round", "total", "shape", "dim", "dims", "eps", "epsilon", "dtype", "input", "output",
                "inputs", "outputs", "stride", "burst", "bursts", "limit", "magic", "idx", "index", "offset"}
_TYPE_WORDS = {"half", "float", "fp16", "fp32", "bf16", "int8", "int16", "int32", "int64", "double", "b8", "b16",
               "b32", "type", "elem"}
_COMPOUND = {"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "|=", "&=", "^="}


def words(name: str) -> list[str]:
    """Splits an identifier into lower-case words (``minBytesPerCore`` -> min bytes per core)."""
    parts = re.split(r"_+", name)
    out: list[str] = []
    for p in parts:
        out += re.findall(r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+", p)
    return [w.lower() for w in out if w]


def is_fixed_name(name: str, value: int | None = None) -> bool:
    """True for identifiers that name hardware / alignment / type-size facts, not tuning choices."""
    w = set(words(name))
    if "block" in w and "dim" in w or "blockdim" in w:
        return False
    if w & _FIXED_WORDS:
        return True
    if "per" in w and "block" in w:
        return True
    if value == 32 and w & {"block", "ub", "bytes"} and not w & {"tile", "buffer", "buf", "reserve", "reserved"}:
        return True
    if value in (1, 2, 4, 8) and w & _TYPE_WORDS and w & {"bytes", "size", "len", "length", "bits"}:
        return True
    return False


def guess_role(name: str) -> str:
    w = words(name)
    ws = set(w)
    if "blockdim" in ws or ("block" in ws and "dim" in ws):
        return "block_dim"
    if ws & {"buffer", "buf", "buffers", "bufs", "db"}:
        return "buffer_num"
    if "per" in ws and ws & {"core", "cores"}:
        return "tile"
    if ws & {"core", "cores", "aiv", "aic"}:
        return "core_cap"
    if ws & {"part", "parts", "partition", "partitions"}:
        return "ub_parts"
    if ws & {"tile", "tiles", "base", "step", "chunk", "length", "len", "rows", "cols", "group", "batch",
             "block", "blocks", "size", "elems", "elements", "data", "loop", "m", "n", "k"}:
        return "tile"
    return "other"


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
        role: tile | buffer_num | core_cap | block_dim | ub_parts | other.
        scope: region | function | namespace | kernel.
        rebuild: ``"host"`` (host tiling only) or ``"kernel"`` (kernel sources change too).
        render: ``"literal"`` (write the number) or ``"cap"`` (write ``(x < V ? x : V)``).
        suffix: Integer-literal suffix kept when writing (``u``, ``UL``).
        extra: Further spans that receive the same value (clamp bounds, host+kernel twins).
        flag: True for 0/1 branch values (categorical).
        cores: ``"aiv"`` or ``"aic"``: which core count bounds a core knob.
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
                "domain": self.domain.to_json() if self.domain else None}

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


def _strip_parens(node: Node) -> Node:
    while node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    return node


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


class _FunctionFacts:
    """Per-function facts: core-count variables, out-parameters, accumulators."""

    def __init__(self, p: Parsed, body: Node):
        self.core_vars: dict[str, str] = {}
        self.unstable: set[str] = set()
        for n in walk(body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
                if name and val is not None:
                    m = _CORE_QUERY.search(p.text(val))
                    if m:
                        self.core_vars[name] = "aic" if m.group(1) in ("Aic", "Cube") else "aiv"
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                op = n.child_by_field_name("operator")
                if left is not None and left.type == "identifier" and op is not None and p.text(op) in _COMPOUND:
                    self.unstable.add(p.text(left))
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    self.unstable.add(p.text(arg))
            elif n.type == "call_expression" and n.parent is not None and n.parent.type == "expression_statement":
                fn = n.child_by_field_name("function")
                fname = p.text(fn).split("::")[-1].split(".")[-1].split("->")[-1] if fn is not None else ""
                if p.text(fn) in _MINMAX or fname.lower().startswith("set"):
                    continue  # setters read their argument; only other calls fill out-parameters
                args = n.child_by_field_name("arguments")
                for a in (args.named_children if args is not None else []):
                    a = _strip_parens(a)
                    if a.type == "pointer_expression":
                        a = a.named_children[-1] if a.named_children else a
                    if a.type == "identifier":
                        self.unstable.add(p.text(a))
            elif n.type == "for_statement":
                init = n.child_by_field_name("initializer")
                if init is not None:
                    for d in walk(init):
                        if d.type == "init_declarator":
                            nm = declarator_name(p, d.child_by_field_name("declarator"))
                            if nm:
                                self.unstable.add(nm)


class _Collector:
    def __init__(self, p: Parsed, scope: str, rebuild: str = "host"):
        self.p, self.scope, self.rebuild = p, scope, rebuild
        self.knobs: list[Knob] = []
        self.used_ids: dict[str, int] = {}

    def new_id(self, base: str) -> str:
        k = self.used_ids.get(base, 0) + 1
        self.used_ids[base] = k
        return base if k == 1 else f"{base}.{k}"

    def add(self, base_id: str, name: str, node: Node, value: int, role: str | None = None, *,
            render: str = "literal", extra: tuple[Span, ...] = (), flag: bool = False, cores: str = "aiv",
            default: int | None = None) -> None:
        p = self.p
        text = p.text(node)
        lit = int_literal(text) if node.type == "number_literal" else None
        self.knobs.append(Knob(
            id=self.new_id(base_id), name=name, file=p.file, start=node.start_byte, end=node.end_byte,
            line=p.line(node.start_byte), text=text, default=value if default is None else default,
            role=role or guess_role(name), scope=self.scope, rebuild=self.rebuild, render=render,
            suffix=lit[1] if lit else "", extra=extra, flag=flag, cores=cores))


def _value_knobs(c: _Collector, facts: _FunctionFacts, name: str, base_id: str, value: Node) -> None:
    """Knobs in the value of ``name = value`` / ``T name = value``."""
    p = c.p
    v = _strip_parens(value)
    if name in facts.unstable:
        return
    cv = const_int_value(p, v)
    if cv is not None:
        if not is_fixed_name(name, cv):
            c.add(base_id, name, v, cv)
        return
    if v.type == "identifier" and p.text(v) in facts.core_vars:
        c.add(base_id, name, v, 0, "core_cap", render="cap", cores=facts.core_vars[p.text(v)], default=-1)
        return
    if v.type == "conditional_expression":
        cond = v.child_by_field_name("condition")
        branches = [("then", v.child_by_field_name("consequence")), ("else", v.child_by_field_name("alternative"))]
        if cond is None or any(b is None for _, b in branches):
            return
        vals = [const_int_value(p, _strip_parens(b)) for _, b in branches]
        both = all(x is not None for x in vals)
        for i, (tag, b) in enumerate(branches):
            if vals[i] is None:
                continue
            b = _strip_parens(b)
            other = branches[1 - i][1]
            if not both and _norm(p.text(other)) in _norm(p.text(cond)):
                # clamp (n < 40 ? n : 40) or floor guard (n > 0 ? n : 1)
                twins = [n for n in walk(cond) if n.type == "number_literal" and const_int_value(p, n) == vals[i]]
                if twins and not is_fixed_name(name, vals[i]):
                    c.add(f"{base_id}.cap", name, b, vals[i],
                          extra=tuple(Span(p.file, t.start_byte, t.end_byte) for t in twins))
                continue
            if not is_fixed_name(name, vals[i]):
                flag = both and set(vals) <= {0, 1}
                c.add(f"{base_id}.{tag}", name, b, vals[i], "other" if flag else None, flag=flag)
        return
    if v.type == "call_expression":
        fn = v.child_by_field_name("function")
        args = v.child_by_field_name("arguments")
        if fn is not None and args is not None and p.text(fn).split("<")[0] in _MINMAX:
            for a in args.named_children:
                a = _strip_parens(a)
                av = const_int_value(p, a)
                if av is not None and not is_fixed_name(name, av):
                    c.add(f"{base_id}.{p.text(fn).split('::')[-1].split('<')[0].lower()}", name, a, av)


def region_knobs(p: Parsed, tpl: TilingTemplate, fn_body: Node) -> list[Knob]:
    """Knobs inside the template's region plus a literal SetBlockDim argument of the function."""
    facts = _FunctionFacts(p, fn_body)
    c = _Collector(p, "region")
    for n in walk(fn_body):
        inside = tpl.region_start <= n.start_byte and n.end_byte <= tpl.region_end
        try:
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and p.text(fn).endswith("SetBlockDim") and not _in_condition(n, fn_body):
                    args = n.child_by_field_name("arguments")
                    a = args.named_children if args is not None else []
                    if len(a) == 1 and const_int_value(p, _strip_parens(a[0])) is not None:
                        lit = _strip_parens(a[0])
                        c.add("blockDim", "blockDim", lit, const_int_value(p, lit), "block_dim")
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
                        _value_knobs(c, facts, name, name, val)
            elif n.type == "assignment_expression":
                left, op, val = (n.child_by_field_name(k) for k in ("left", "operator", "right"))
                if left is not None and left.type == "identifier" and op is not None and p.text(op) == "=" \
                        and val is not None:
                    _value_knobs(c, facts, p.text(left), p.text(left), val)
        except Exception:  # a construct we cannot map is skipped, never fatal
            continue
    return c.knobs


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
            v = _strip_parens(val)
            cv = const_int_value(p, v)
            if cv is None or is_fixed_name(name, cv):
                continue
            c.add(name, name, v, cv)
    return c.knobs


def _references(p: Parsed, node: Node, name: str) -> list[Node]:
    return [n for n in walk(node) if n.type == "identifier" and p.text(n) == name]


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
    knobs: list[Knob] = region_knobs(p, tpl, body) if body is not None else []

    # namespace constants the tiling function (or the region) reads, outside conditions only
    scopes = [body] if body is not None else []
    for rel in op.host_files():
        try:
            consts = file_constants(get(rel), "namespace", "host")
        except Exception:
            continue
        for k in consts:
            refs = [r for s in scopes for r in _references(p, s, k.name)]
            if any(not _in_condition(r, body) for r in refs):
                knobs.append(k)
    if include_kernel:
        for rel in op.kernel_files():
            try:
                consts = file_constants(get(rel), "kernel", "kernel")
            except Exception:
                continue
            for k in consts:
                if k.role not in ("buffer_num", "tile", "ub_parts", "core_cap"):
                    continue
                twin = next((i for i, h in enumerate(knobs) if h.scope == "namespace" and h.name == k.name), None)
                if twin is not None and knobs[twin].default == k.default:
                    h = knobs[twin]
                    knobs[twin] = replace(h, rebuild="kernel", extra=h.extra + (Span(k.file, k.start, k.end),))
                    continue
                knobs.append(k)
    # unique ids across files
    seen: dict[str, int] = {}
    out = []
    for k in knobs:
        kid = k.id if k.scope != "kernel" or k.id not in seen else f"kernel/{k.id}"
        n = seen.get(kid, 0)
        seen[kid] = n + 1
        out.append(replace(k, id=kid if n == 0 else f"{kid}#{n + 1}"))
    return out
