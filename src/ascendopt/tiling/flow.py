"""Where a tiling function's integers go: a name-level def-use graph and the facts read off it.

A tiling function has few outputs the kernel sees: the block dim (``SetBlockDim``), the tiling
data fields (``tiling.set_x(v)``, ``td.x = v``), the workspace sizes (``ws[0] = v``) and the
tiling key (``SetTilingKey``). Whether a literal is a tuning decision is read off which of those
its value reaches and how, never off identifier names:

* a value that reaches none of them is dead text (a log argument, a value overwritten later);
* a value that only reaches the tiling key selects a code path (a dtype code, an enum value);
* a value the code sets, branch by branch, to the byte size of the dtype the branch tests is a
  type size (``if (dt == DT_FLOAT16) w = 2; else if (dt == DT_FLOAT) w = 4;``);
* a value that divides the UB capacity splits the UB (``ub / BUFFER_NUM / parts``).

The graph is deliberately coarse: every variable depends on every identifier of every value
assigned to it anywhere in the function (declarations, ``=`` and compound assignments), and a
call statement's identifier arguments depend on all of its arguments (out-parameters:
``GetCoreMemSize(UB, ubSize)``). Control dependence is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, const_int_value, declarator_name, unparen, walk
from ascendopt.cxx.syntax import call_args, callee_name, calls, identifiers as _all_identifiers

UB_SIZE_QUERIES = ("GetCoreMemSize",)   # platform query whose last argument receives the UB size
#: Byte size of each ge::DataType (the graph engine's types.h; bool is stored in one byte).
DTYPE_BYTES = {
    "DT_FLOAT": 4, "DT_FLOAT16": 2, "DT_BF16": 2, "DT_DOUBLE": 8, "DT_INT8": 1, "DT_UINT8": 1, "DT_BOOL": 1,
    "DT_INT16": 2, "DT_UINT16": 2, "DT_INT32": 4, "DT_UINT32": 4, "DT_INT64": 8, "DT_UINT64": 8,
    "DT_COMPLEX64": 8, "DT_COMPLEX128": 16, "DT_HIFLOAT8": 1, "DT_FLOAT8_E5M2": 1, "DT_FLOAT8_E4M3FN": 1,
}
_DTYPE = re.compile(r"\bDT_[A-Z0-9_]+\b")


@dataclass
class TilingFlow:
    """Def-use facts of one tiling function.

    Attributes:
        parsed / body: The file and the function body.
        deps: Variable -> identifiers its values are computed from.
        consts: Identifiers with a known integer value (namespace constants given by the
            caller, locals initialised with a literal and never assigned again).
    """

    parsed: Parsed
    body: Node
    deps: dict[str, set[str]]
    consts: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def of(p: Parsed, body: Node, consts: dict[str, int] | None = None) -> TilingFlow:
        deps: dict[str, set[str]] = {}
        writes: dict[str, int] = {}
        local: dict[str, int] = {}
        for n in walk(body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
                if name:
                    deps.setdefault(name, set()).update(identifiers(p, val))
                    writes[name] = writes.get(name, 0) + 1
                    v = const_int_value(p, unparen(val)) if val is not None else None
                    if v is not None:
                        local[name] = v
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    deps.setdefault(p.text(left), set()).update(identifiers(p, n.child_by_field_name("right")))
                    writes[p.text(left)] = writes.get(p.text(left), 0) + 1
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    writes[p.text(arg)] = writes.get(p.text(arg), 0) + 1
            elif n.type == "call_expression" and n.parent is not None and n.parent.type == "expression_statement":
                args = call_args(n)
                every = set().union(*(identifiers(p, a) for a in args)) if args else set()
                for a in args:
                    if a.type == "identifier":
                        deps.setdefault(p.text(a), set()).update(every - {p.text(a)})
        returns = helper_returns(p)   # a call of a helper of the file depends on what it returns
        for ds in deps.values():
            for h in ds & set(returns):
                ds |= returns[h]
        known = dict(consts or {})
        known.update({k: v for k, v in local.items() if writes.get(k, 0) == 1})
        return TilingFlow(p, body, deps, known)

    # -- reachability -------------------------------------------------------------------------
    def closure(self, roots: Iterable[str]) -> set[str]:
        """Every identifier the values of ``roots`` are computed from (roots included)."""
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            todo.extend(self.deps.get(v, ()))
        return seen

    def call_arg_vars(self, names: Iterable[str], prefix: str = "") -> set[str]:
        """Identifiers in the arguments of calls named ``names`` (or starting with ``prefix``)."""
        wanted = set(names)
        out: set[str] = set()
        for c in calls(self.parsed, None, self.body):
            nm = callee_name(self.parsed, c)
            if nm in wanted or (prefix and nm.startswith(prefix)):
                for a in call_args(c):
                    out |= identifiers(self.parsed, a)
        return out

    def block_dim_sources(self) -> set[str]:
        """Everything the ``SetBlockDim`` argument is computed from."""
        return self.closure(self.call_arg_vars(["SetBlockDim"]))

    def tiling_key_sources(self) -> set[str]:
        """Everything the ``SetTilingKey`` argument is computed from."""
        return self.closure(self.call_arg_vars(["SetTilingKey"]))

    def tiling_data_sources(self) -> set[str]:
        """Everything a tiling-data field or a workspace size is computed from:
        ``tiling.set_<field>(v)``, ``td.field = v`` / ``td->field = v``, ``ws[i] = v``."""
        roots = self.call_arg_vars([], prefix="set_")
        for n in walk(self.body):
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type in ("field_expression", "subscript_expression"):
                    roots |= identifiers(self.parsed, n.child_by_field_name("right"))
        return self.closure(roots)

    def setter_args(self) -> dict[str, set[str]]:
        """Tiling-data field -> identifiers written to it directly (``tiling.set_f(x)``,
        ``td.f = x``), without the closure."""
        p = self.parsed
        out: dict[str, set[str]] = {}
        for c in calls(p, None, self.body):
            nm = callee_name(p, c)
            if nm.startswith("set_"):
                for a in call_args(c):
                    out.setdefault(nm[4:], set()).update(identifiers(p, a))
        for n in walk(self.body):
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "field_expression":
                    f = left.child_by_field_name("field")
                    if f is not None:
                        out.setdefault(p.text(f), set()).update(identifiers(p, n.child_by_field_name("right")))
        return out

    def query_operands(self) -> set[str]:
        """Identifiers passed straight to a method call that is not a setter
        (``context->GetInputShape(IDX)``, ``attrs->GetAttrPointer<int>(ATTR)``): an index or a
        selector of the query, a fact."""
        p = self.parsed
        out: set[str] = set()
        for c in calls(p, None, self.body):
            fn = c.child_by_field_name("function")
            nm = callee_name(p, c)
            if fn is None or fn.type != "field_expression" or nm.startswith("set_") or nm.startswith("Set"):
                continue
            for a in call_args(c):
                a = unparen(a)
                if a.type == "identifier":
                    out.add(p.text(a))
        return out

    def enumerations(self) -> set[str]:
        """Variables whose literal values over the function are three or more consecutive
        integers from 0 or 1 (``mode = 0 | 1 | 2 | 3``): an encoding of a case, not a size."""
        p = self.parsed
        vals: dict[str, set[int]] = {}
        other: set[str] = set()
        for n in walk(self.body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                v = n.child_by_field_name("value")
            elif n.type == "assignment_expression" and self._op(n) == "=":
                left = n.child_by_field_name("left")
                name = p.text(left) if left is not None and left.type == "identifier" else None
                v = n.child_by_field_name("right")
            else:
                continue
            if not name or v is None:
                continue
            c = const_int_value(p, unparen(v))
            if c is None:
                other.add(name)
            else:
                vals.setdefault(name, set()).add(c)
        return {k for k, vs in vals.items() if k not in other and len(vs) >= 3
                and (vs == set(range(len(vs))) or vs == set(range(1, len(vs) + 1)))}

    def output_sources(self) -> set[str]:
        """Everything that reaches something the kernel sees: the block dim, a tiling-data
        field, a workspace size (not the tiling key: see :meth:`tiling_key_sources`), by
        value or by deciding which branch assigns such a value (``if (rows * f >= cores)``)."""
        out = self.block_dim_sources() | self.tiling_data_sources()
        p = self.parsed
        branches = []
        for n in walk(self.body):
            if n.type in ("if_statement", "conditional_expression", "while_statement", "for_statement"):
                cond = n.child_by_field_name("condition")
                if cond is not None:
                    branches.append((cond, self._written(n, cond)))
        changed = True
        while changed:
            changed = False
            for cond, written in branches:
                if written & out:
                    more = self.closure(identifiers(p, cond)) - out
                    if more:
                        out |= more
                        changed = True
        return out

    def _written(self, stmt: Node, cond: Node) -> set[str]:
        """Variables assigned inside ``stmt`` outside its condition."""
        p = self.parsed
        out: set[str] = set()
        for n in walk(stmt):
            if cond.start_byte <= n.start_byte and n.end_byte <= cond.end_byte:
                continue
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    out.add(p.text(left))
            elif n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                if name:
                    out.add(name)
        return out

    def ub_size_vars(self) -> set[str]:
        """Variables receiving the UB capacity (last argument of ``GetCoreMemSize``)."""
        out = set()
        for c in calls(self.parsed, UB_SIZE_QUERIES, self.body):
            args = call_args(c)
            if args and args[-1].type == "identifier":
                out.add(self.parsed.text(args[-1]))
        return out

    def _ub_derived(self, node: Node | None, ub: set[str]) -> bool:
        return bool(ub) and bool(self.closure(identifiers(self.parsed, node)) & ub)

    def ub_divisors(self) -> set[str]:
        """Identifiers in the divisor of ``a / b`` where ``a`` derives from the UB size: what
        the UB is split by (buffer count, number of tensors per tile)."""
        ub = self.ub_size_vars()
        out: set[str] = set()
        for n in walk(self.body):
            if n.type == "binary_expression" and self._op(n) == "/" \
                    and self._ub_derived(n.child_by_field_name("left"), ub):
                out |= identifiers(self.parsed, n.child_by_field_name("right"))
        return out

    def subtracted_from_ub(self) -> set[str]:
        """Identifiers summed into the subtrahend of ``a - b`` where ``a`` derives from the UB
        size (:meth:`summands`): what the tiles do *not* get."""
        ub = self.ub_size_vars()
        out: set[str] = set()
        for n in walk(self.body):
            if n.type == "binary_expression" and self._op(n) == "-" \
                    and self._ub_derived(n.child_by_field_name("left"), ub):
                out |= self.summands(n.child_by_field_name("right"))
        return out

    def summands(self, node: Node | None, seen: set[str] | None = None) -> set[str]:
        """Identifiers added up into ``node``'s value: the terms of ``a + b - c`` (through
        casts, parentheses and the variables' own sums: ``fixed = R + x; fixed += y``), not the
        factors of a product (``rows * rowBytes`` counts rows, the sum does not hold them)."""
        p = self.parsed
        seen = set() if seen is None else seen
        n = unparen(node) if node is not None else None
        if n is None:
            return set()
        if n.type == "binary_expression" and self._op(n) in ("+", "-"):
            return self.summands(n.child_by_field_name("left"), seen) | \
                self.summands(n.child_by_field_name("right"), seen)
        if n.type == "call_expression" and callee_name(p, n).endswith("_cast") and len(call_args(n)) == 1:
            return self.summands(call_args(n)[0], seen)
        if n.type == "cast_expression":
            return self.summands(n.child_by_field_name("value"), seen)
        if n.type != "identifier" or p.text(n) in seen:
            return set()
        name = p.text(n)
        seen.add(name)
        out = {name}
        for a in walk(self.body):
            if a.type == "init_declarator" and declarator_name(p, a.child_by_field_name("declarator")) == name:
                out |= self.summands(a.child_by_field_name("value"), seen)
            elif a.type == "assignment_expression" and self._op(a) in ("=", "+=") \
                    and p.text(a.child_by_field_name("left")) == name:
                out |= self.summands(a.child_by_field_name("right"), seen)
        return out

    # -- core counts ----------------------------------------------------------------------------
    def byte_counts(self, type_sizes: set[str]) -> set[str]:
        """Identifiers counting bytes: subtracted from the UB size, or reaching the dividend of
        a division by a type size (``sizeof(T)`` or a variable holding a dtype's byte size)."""
        p = self.parsed
        out = set(self.subtracted_from_ub())
        for n in walk(self.body):
            if n.type == "binary_expression" and self._op(n) == "/":
                right = unparen(n.child_by_field_name("right"))
                if right.type == "sizeof_expression" or p.text(right) in type_sizes:
                    out |= self.summands(n.child_by_field_name("left"))
        return out

    def writes(self) -> list[tuple[str | None, Node]]:
        """``(name, value)`` of every initialised declaration and plain ``=`` assignment."""
        p = self.parsed
        out = []
        for n in walk(self.body):
            if n.type == "init_declarator":
                name, val = declarator_name(p, n.child_by_field_name("declarator")), n.child_by_field_name("value")
            elif n.type == "assignment_expression" and self._op(n) == "=":
                name, val = p.text(n.child_by_field_name("left")), n.child_by_field_name("right")
            else:
                continue
            if val is not None:
                out.append((name, val))
        return out

    def _op(self, n: Node) -> str:
        o = n.child_by_field_name("operator")
        return self.parsed.text(o) if o is not None else ""

    # -- value kinds ----------------------------------------------------------------------------
    def type_size_vars(self) -> set[str]:
        """Variables (and the constants assigned to them) that hold the byte size of the dtype
        a branch tests: every value assigned inside a branch whose condition compares with
        ``DT_*`` constants equals the byte size of each of them (at least one such branch)."""
        p = self.parsed
        verdict: dict[str, bool] = {}
        via: dict[str, set[str]] = {}
        for n in walk(self.body):
            if n.type == "init_declarator":
                name = declarator_name(p, n.child_by_field_name("declarator"))
                val = n.child_by_field_name("value")
            elif n.type == "assignment_expression" and self._op(n) == "=":
                left = n.child_by_field_name("left")
                name = p.text(left) if left is not None and left.type == "identifier" else None
                val = n.child_by_field_name("right")
            else:
                continue
            if not name or val is None:
                continue
            dtypes = _branch_dtypes(p, n)
            if dtypes is None:
                continue
            v = unparen(val)
            value = const_int_value(p, v)
            if value is None and v.type == "identifier":
                value = self.consts.get(p.text(v))
                if value is not None:
                    via.setdefault(name, set()).add(p.text(v))
            if value is None:
                verdict[name] = False
                continue
            sizes = {DTYPE_BYTES.get(d) for d in dtypes}
            ok = len(sizes) == 1 and value in sizes
            verdict[name] = verdict.get(name, True) and ok
        out = {k for k, ok in verdict.items() if ok}
        for k in list(out):
            out |= via.get(k, set())
        return out

    def killed_before_read(self, decl: Node, name: str) -> bool:
        """True when the value ``decl`` (an init_declarator) gives ``name`` is overwritten
        before anything reads it: the first later statement of the same block that mentions
        ``name`` is an unconditional ``name = e`` with ``e`` not reading it."""
        stmt = decl
        while stmt.parent is not None and stmt.parent.type != "compound_statement":
            stmt = stmt.parent
        block = stmt.parent
        if block is None:
            return False
        after = False
        p = self.parsed
        for s in block.named_children:
            if s == stmt:
                after = True
                continue
            if not after or name not in identifiers(p, s):
                continue
            if s.type == "expression_statement" and s.named_children:
                e = s.named_children[0]
                if e.type == "assignment_expression" and self._op(e) == "=":
                    left = e.child_by_field_name("left")
                    if left is not None and left.type == "identifier" and p.text(left) == name:
                        return name not in identifiers(p, e.child_by_field_name("right"))
            return False
        return False

    def reassigned(self, name: str) -> bool:
        """Whether ``name`` is written more than once (declaration included)."""
        p = self.parsed
        n_writes = 0
        for n in walk(self.body):
            if n.type == "init_declarator" and declarator_name(p, n.child_by_field_name("declarator")) == name:
                n_writes += 1
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier" and p.text(left) == name:
                    n_writes += 1
        return n_writes > 1


def queue_depth_names(p: Parsed) -> set[str]:
    """Identifiers (or the field of ``x.f``) a kernel passes as a queue's buffer count:
    the second of ``InitBuffer(queue, num, len)``."""
    out: set[str] = set()
    for c in calls(p, ["InitBuffer"], p.tree.root_node):
        args = call_args(c)
        if len(args) == 3:
            a = unparen(args[1])
            if a.type == "field_expression" and a.child_by_field_name("field") is not None:
                out.add(p.text(a.child_by_field_name("field")))
            elif a.type == "identifier":
                out.add(p.text(a))
    return out


def _branch_dtypes(p: Parsed, node: Node) -> list[str] | None:
    """The ``DT_*`` constants the nearest enclosing ``if`` condition (this node in its then
    branch) or ``case`` label compares with; None when there is none."""
    child, n = node, node.parent
    while n is not None and n.type != "function_definition":
        if n.type == "if_statement":
            cond = n.child_by_field_name("condition")
            cons = n.child_by_field_name("consequence")
            if cons is not None and cons.start_byte <= child.start_byte and child.end_byte <= cons.end_byte:
                found = _DTYPE.findall(p.text(cond)) if cond is not None else []
                return found or None
        if n.type == "case_statement":
            val = n.child_by_field_name("value")
            found = _DTYPE.findall(p.text(val)) if val is not None else []
            return found or None
        child, n = n, n.parent
    return None


def helper_returns(p: Parsed) -> dict[str, set[str]]:
    """Functions of the file -> the names their ``return`` statements read, parameters and
    locals excepted (the file's constants a call's value can come from)."""
    out: dict[str, set[str]] = {}
    for fn in walk(p.tree.root_node):
        body = fn.child_by_field_name("body") if fn.type == "function_definition" else None
        fdecl = next((d for d in walk(fn.child_by_field_name("declarator")) if d.type == "function_declarator"),
                     None) if body is not None else None
        if fdecl is None or fdecl.child_by_field_name("declarator") is None:
            continue
        local = {declarator_name(p, d.child_by_field_name("declarator")) for d in walk(fn)
                 if d.type in ("parameter_declaration", "init_declarator")}
        names = set().union(*(identifiers(p, r) for r in walk(body) if r.type == "return_statement"))
        if names - local:
            out[p.text(fdecl.child_by_field_name("declarator")).split("::")[-1]] = names - local
    return out


def identifiers(p: Parsed, node: Node | None) -> set[str]:
    """Identifiers used under ``node`` (no ``this->`` members: host tiling code has none)."""
    return _all_identifiers(p, node, this_fields=False)
