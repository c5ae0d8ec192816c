"""The evolvable tiling template: which host function and which byte region may change.

If a host file carries ``// # evolve_tiling_block_start`` ... ``// # evolve_tiling_block_end``
markers, the text between the two marker lines is the region. Otherwise the region is
synthesized: the tiling function named by the OpDef (``.SetTiling(optiling::TilingFunc)`` or
``IMPL_OP_OPTILING(Op).Tiling(fn)``) is located with tree-sitter and its body (between the
braces) becomes the region; :meth:`TilingTemplate.with_markers` writes the markers in when a
caller (e.g. an LLM mutator) wants them in the source.

All offsets are UTF-8 byte offsets into the file's text, as tree-sitter reports them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from ascendopt.cxx.parse import Parsed, declarator_name, parse, walk
from ascendopt.operator import Operator, _strip_comments

MARK_START = "// # evolve_tiling_block_start"
MARK_END = "// # evolve_tiling_block_end"
_SET_TILING = re.compile(r"\.\s*SetTiling\s*\(\s*([\w:]+)\s*\)")
_IMPL_TILING = re.compile(r"\bIMPL_OP_OPTILING\s*\(\s*\w+\s*\)\s*\.\s*Tiling\s*\(\s*([\w:]+)\s*[,)]")


class TemplateError(ValueError):
    """No tiling function could be located in the operator's host sources."""


@dataclass(frozen=True)
class TilingTemplate:
    """Where an operator's tiling logic lives.

    Attributes:
        file: Host file (relative path) defining the tiling function.
        function: The tiling function's name (``TilingFunc``).
        func_start / func_end: Byte span of the whole function definition.
        body_start / body_end: Byte span of the function body's interior (inside the braces).
        region_start / region_end: Byte span of the evolvable region (marker lines excluded).
        synthesized: True when the source has no markers and the region is the whole body.
    """

    file: str
    function: str
    func_start: int
    func_end: int
    body_start: int
    body_end: int
    region_start: int
    region_end: int
    synthesized: bool

    def region_text(self, op: Operator) -> str:
        return op.files[self.file].encode()[self.region_start:self.region_end].decode()

    def with_region(self, op: Operator, text: str, origin: str = "stage2/llm") -> Operator:
        """Returns a new Operator whose region is replaced by ``text`` (rest byte-identical)."""
        src = op.files[self.file].encode()
        new = src[:self.region_start] + text.encode() + src[self.region_end:]
        return op.with_file(self.file, new.decode(), origin)

    def with_markers(self, op: Operator) -> Operator:
        """Returns ``op`` with explicit markers around the region (no-op if already marked)."""
        if not self.synthesized:
            return op
        src = op.files[self.file].encode()
        start = f"\n    {MARK_START}\n".encode()
        end = f"\n    {MARK_END}\n".encode()
        new = src[:self.region_start] + start + src[self.region_start:self.region_end] + end + src[self.region_end:]
        return op.with_file(self.file, new.decode(), "stage2/markers")


def tiling_function_names(op: Operator) -> list[str]:
    """Names registered as tiling functions by the OpDef / IMPL_OP_OPTILING, in source order."""
    names: list[str] = []
    for rel in op.host_files():
        text = _strip_comments(op.files[rel])
        for rx in (_SET_TILING, _IMPL_TILING):
            for m in rx.finditer(text):
                n = m.group(1).split("::")[-1]
                if n not in names:
                    names.append(n)
    return names


def _function_name(p: Parsed, fn: Node) -> str | None:
    return declarator_name(p, fn.child_by_field_name("declarator"))


def _takes_tiling_context(p: Parsed, fn: Node) -> bool:
    decl = fn.child_by_field_name("declarator")
    return decl is not None and "TilingContext" in p.text(decl)


def find_function(p: Parsed, names: list[str]) -> Node | None:
    """The function definition named in ``names`` (first match), else one taking a TilingContext."""
    fns = [n for n in walk(p.tree.root_node) if n.type == "function_definition"]
    for name in names:
        for fn in fns:
            if _function_name(p, fn) == name:
                return fn
    if not names:
        for fn in fns:
            if _takes_tiling_context(p, fn):
                return fn
    return None


def _marker_region(src: bytes) -> tuple[int, int] | None:
    s = src.find(MARK_START.encode())
    if s < 0:
        return None
    e = src.find(MARK_END.encode(), s)
    if e < 0:
        return None
    start = src.find(b"\n", s)
    start = len(src) if start < 0 else start + 1
    end = src.rfind(b"\n", 0, e) + 1
    return (start, max(start, end))


def find_template(op: Operator, parsed: dict[str, Parsed] | None = None) -> TilingTemplate:
    """Locates the tiling function and its evolvable region.

    Raises:
        TemplateError: no tiling function found in any host .cpp file.
    """
    names = tiling_function_names(op)
    parsed = parsed if parsed is not None else {}
    hosts = [f for f in op.host_files() if f.endswith((".cpp", ".cc", ".cxx"))]
    hosts += [f for f in op.host_files() if f not in hosts]
    for rel in hosts:
        p = parsed.get(rel) or parse(rel, op.files[rel])
        parsed[rel] = p
        fn = find_function(p, names)
        if fn is None:
            continue
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        b0, b1 = body.start_byte + 1, body.end_byte - 1
        marked = _marker_region(p.src)
        if marked:  # markers win, even around a helper the tiling function calls
            r0, r1, synth = marked[0], marked[1], False
        else:
            r0, r1, synth = b0, b1, True
        return TilingTemplate(rel, _function_name(p, fn) or "?", fn.start_byte, fn.end_byte, b0, b1, r0, r1, synth)
    raise TemplateError(f"{op.root}: no tiling function found (looked for {names or 'a TilingContext* function'})")
