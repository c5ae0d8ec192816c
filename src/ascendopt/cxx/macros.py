"""Function-like macros the operator's own sources define, and what their uses expand to.

tree-sitter keeps a ``#define`` body as raw text and a use (``PROCESS_TILE(x, n);``) as a
call, so a loop written inside a macro is invisible to the node queries. This module reads the
definitions of a file (:func:`function_macros`), expands one use with its arguments
substituted token-wise (:func:`expand`; ``#``/``##`` and nested macros are left as text) and
parses the expansion as the body of a function, so the loops inside are ordinary nodes of
another :class:`~ascendopt.cxx.parse.Parsed` (:func:`macro_loops`). Offsets in an expansion
are offsets into the expansion's own text; an edit must target the macro's definition or its
use in the original file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, parse, walk
from ascendopt.cxx.syntax import LOOPS, call_args, callee_name

_WRAP_HEAD = "void __ao_macro_expansion__() {\n"


@dataclass(frozen=True)
class Macro:
    """``#define name(params) body`` (line continuations removed)."""

    name: str
    params: tuple[str, ...]
    body: str
    node: Node


def function_macros(p: Parsed) -> dict[str, Macro]:
    """The function-like macros ``p`` defines, by name (the last definition wins)."""
    out: dict[str, Macro] = {}
    for n in walk(p.tree.root_node):
        if n.type != "preproc_function_def":
            continue
        name, params, value = (n.child_by_field_name(f) for f in ("name", "parameters", "value"))
        if name is None or params is None:
            continue
        names = tuple(p.text(c) for c in params.named_children if c.type == "identifier")
        body = "" if value is None else re.sub(r"\\\r?\n", "\n", p.text(value)).strip()
        out[p.text(name)] = Macro(p.text(name), names, body, n)
    return out


def expand(p: Parsed, call: Node, macros: dict[str, Macro]) -> Parsed | None:
    """The use ``call`` of one of ``macros`` expanded and parsed as the body of a function
    (file name ``<file>#<macro>@<line>``); None when ``call`` is no use of them or its
    argument count does not match."""
    m = macros.get(callee_name(p, call))
    if m is None:
        return None
    args = [p.text(a) for a in call_args(call)]
    if len(args) != len(m.params):
        return None
    subst = dict(zip(m.params, args))
    body = re.sub(r"\b[A-Za-z_]\w*\b", lambda t: subst.get(t.group(0), t.group(0)), m.body)
    return parse(f"{p.file}#{m.name}@{p.line(call.start_byte)}", f"{_WRAP_HEAD}{body};\n}}\n")


def macro_loops(p: Parsed) -> Iterator[tuple[Node, Parsed, Node]]:
    """(use, expansion, loop) for every loop inside the expansion of every use, in ``p``, of a
    function-like macro ``p`` defines."""
    macros = {k: m for k, m in function_macros(p).items() if any(w in m.body for w in ("for", "while", "do"))}
    if not macros:
        return
    for n in walk(p.tree.root_node):
        if n.type == "call_expression" and callee_name(p, n) in macros:
            x = expand(p, n, macros)
            if x is None:
                continue
            for loop in walk(x.tree.root_node):
                if loop.type in LOOPS:
                    yield n, x, loop
