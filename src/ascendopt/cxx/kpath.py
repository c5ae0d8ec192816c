"""The kernel's call path: the functions a ``__global__`` entry reaches.

:mod:`ascendopt.cxx.scope` follows calls to methods of the *same* class; a kernel entry calls
methods of an object (``KernelX<T> op; op.Init(...); op.Process();``, also on a temporary
``K<T>(args).exec()``) and methods of member objects of other classes (``helper.exec(...)``).
This module resolves those calls over every parsed kernel file (a class may be defined in a
header of the operator), by the declared type of the receiver, and walks them transitively.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, of_type, unparen
from ascendopt.cxx.scope import Ctx, make_ctx, parameters, type_of
from ascendopt.cxx.syntax import (base_name, call_args, callee_name, function_defs, function_name, function_of, identifiers,
                                  is_method_call, method_receiver, own_calls)


def class_of_name(type_text: str) -> str:
    """The class a type names: ``const ns::K<T, U>&`` -> ``K``."""
    t = type_text.split("<")[0]
    for w in ("const", "volatile", "typename", "&", "*"):
        t = t.replace(w, " ")
    return t.strip().split("::")[-1].strip()


@dataclass
class Program:
    """The parsed kernel files of one operator."""

    files: list[Parsed]
    _memo: dict = field(default_factory=dict, repr=False)

    def ctx(self, p: Parsed, fn: Node) -> Ctx:
        """The context of ``fn`` (one per function)."""
        key = ("ctx", fn.id)
        if key not in self._memo:
            self._memo[key] = make_ctx(p, fn)
        return self._memo[key]

    def entries(self) -> list[Ctx]:
        """``__global__`` functions (the kernel entries), as contexts."""
        out = []
        for p in self.files:
            for fn in function_defs(p):
                body = fn.child_by_field_name("body")
                head = fn.parent if fn.parent is not None and fn.parent.type == "linkage_specification" else fn
                start = max(p.src.rfind(b";", 0, head.start_byte), p.src.rfind(b"}", 0, head.start_byte), 0)
                if b"__global__" in p.src[min(start, head.start_byte):body.start_byte]:
                    out.append(self.ctx(p, fn))
        return out

    def classes(self, name: str) -> list[tuple[Parsed, Node]]:
        """Class definitions named ``name`` (all specializations), in every file."""
        out = []
        for p in self.files:
            for n in of_type(p, "class_specifier", "struct_specifier"):
                nm = n.child_by_field_name("name")
                if nm is not None and n.child_by_field_name("body") is not None \
                        and class_of_name(p.text(nm)) == name:
                    out.append((p, n))
        return out

    def methods_of(self, name: str, method: str) -> list[Ctx]:
        """Contexts of ``method`` in every class named ``name``."""
        key = ("methods", name, method)
        if key not in self._memo:
            self._memo[key] = self._methods_of(name, method)
        return self._memo[key]

    def _methods_of(self, name: str, method: str) -> list[Ctx]:
        out = []
        for p, cls in self.classes(name):
            for fn in function_defs(p):
                if function_name(p, fn) != method:
                    continue
                c = self.ctx(p, fn)
                if c.cls is not None and c.cls.id == cls.id:
                    out.append(c)
        return out

    def free_function(self, name: str) -> Ctx | None:
        key = ("free", name)
        if key not in self._memo:
            self._memo[key] = None
            for p in self.files:
                for fn in function_defs(p):
                    if function_name(p, fn) == name and self.ctx(p, fn).cls is None:
                        self._memo[key] = self.ctx(p, fn)
                        break
                if self._memo[key] is not None:
                    break
        return self._memo[key]

    def callees(self, ctx: Ctx, root: Node) -> Iterator[tuple[Node, Ctx]]:
        """(call, callee context) for calls under ``root`` (in ``ctx``) this program defines."""
        key = ("callees", ctx.fn.id, root.id)
        if key not in self._memo:
            self._memo[key] = [(c, callee) for c in own_calls(root) for callee in self.resolve(ctx, c)
                               if callee.fn.id != ctx.fn.id]
        yield from self._memo[key]

    def resolve(self, ctx: Ctx, call: Node) -> list[Ctx]:
        """The definitions a call may run: a method of the same class, a free function, or a
        method of the receiver's declared class (every specialization)."""
        name = callee_name(ctx.p, call).removeprefix("template ").strip()
        if not is_method_call(call) or method_receiver(call).type == "this":
            m = ctx.methods.get(name)
            if m is not None:
                return [ctx.callee_ctx(m)]
            if is_method_call(call):
                return []
            f = self.free_function(name)
            return [f] if f is not None else []
        recv = unparen(method_receiver(call))
        cls = None
        if recv.type == "identifier" or (recv.type == "field_expression"
                                         and recv.child_by_field_name("argument").type == "this"):
            nm = ctx.p.text(recv.child_by_field_name("field") if recv.type == "field_expression" else recv)
            t = type_of(ctx, nm, call.start_byte)
            cls = class_of_name(t) if t else None
        elif recv.type == "call_expression":  # a temporary K<T>(args)
            fn = recv.child_by_field_name("function")
            cls = class_of_name(ctx.p.text(fn)) if fn is not None else None
        return self.methods_of(cls, name) if cls else []

    def reach(self, starts: list[Ctx]) -> list[Ctx]:
        """Every function reached from ``starts`` (them included), each once."""
        seen: dict[int, Ctx] = {}
        todo = list(starts)
        while todo:
            c = todo.pop()
            if c.fn.id in seen:
                continue
            seen[c.fn.id] = c
            body = c.fn.child_by_field_name("body")
            if body is not None:
                todo.extend(callee for _, callee in self.callees(c, body))
        return list(seen.values())

    def gm_sources(self) -> dict[str, str]:
        """GlobalTensor name -> the name of the class of tensors bound to the same GM argument
        (``xGm.SetGlobalBuffer((__gm__ T*)x + off)`` and ``yGm.SetGlobalBuffer((__gm__ T*)x)``
        both view ``x``): tensors that may overlap share one name."""
        if "gm" in self._memo:
            return self._memo["gm"]
        edges: list[tuple[str, str]] = []
        for p in self.files:
            for call in of_type(p, "call_expression"):
                if callee_name(p, call) != "SetGlobalBuffer" or not call_args(call):
                    continue
                recv = base_name(p, method_receiver(call))
                fn = function_of(call)
                if recv is None or fn is None:
                    continue
                prms = {declarator_name(p, d.child_by_field_name("declarator")) for d in parameters(fn)}
                edges += [(recv, f"@{a}") for a in identifiers(p, call_args(call)[0]) if a in prms]
        classes: dict[str, set[str]] = {}
        for a, b in edges:
            merged = classes.get(a, {a}) | classes.get(b, {b})
            for x in merged:
                classes[x] = merged
        self._memo["gm"] = {k: min(x for x in v if not x.startswith("@")) for k, v in classes.items()
                            if not k.startswith("@")}
        return self._memo["gm"]

    def call_sites(self, ctxs: list[Ctx], target: Node) -> list[tuple[Ctx, Node]]:
        """Calls to function ``target`` from the functions ``ctxs``."""
        out = []
        for c in ctxs:
            body = c.fn.child_by_field_name("body")
            if body is None:
                continue
            out.extend((c, call) for call, callee in self.callees(c, body) if callee.fn.id == target.id)
        return out
