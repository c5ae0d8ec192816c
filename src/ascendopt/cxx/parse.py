"""Parsing AscendC sources with tree-sitter-cpp, once per content.

AscendC's function/space qualifiers (``__aicore__``, ``__global__``, ``__gm__``, ...) are not
C++ the grammar knows; they are blanked with spaces of equal length before parsing, so every
byte offset the tree reports is an offset into the original (UTF-8 encoded) text.

:func:`parse` keeps the trees of the most recent files in a cache keyed by the file's name
and the SHA-256 digest of its text: the motifs, the Stage I rewrites, retrieval and the knob
extractor all ask for the same files of the same operator, and a parsed file is immutable
(:class:`Parsed` is frozen, nothing edits a tree), so they share one tree per content.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser, Tree

_QUALIFIERS = re.compile(rb"\b(?:__aicore__|__global__|__gm__|__inline__|__ubuf__|__cbuf__|__ca__|__cb__|__cc__)\b")
INT_TYPES = frozenset({
    "int", "unsigned", "signed", "long", "short", "size_t", "ssize_t", "auto",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
})
_NUM = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)$")


@lru_cache(maxsize=1)
def language() -> Language:
    return Language(tree_sitter_cpp.language())


def blank_qualifiers(src: bytes) -> bytes:
    """Replaces AscendC qualifiers with spaces of equal length (offsets stay valid)."""
    return _QUALIFIERS.sub(lambda m: b" " * len(m.group(0)), src)


@dataclass(frozen=True)
class Parsed:
    """One parsed file: the original bytes and the tree of the blanked copy.

    ``facts`` holds what analyses computed once for this content (:func:`of_type`'s node index,
    the function table of :func:`ascendopt.cxx.syntax.functions`): the file is immutable, so
    every reader of the same cached :class:`Parsed` shares them.
    """

    file: str
    src: bytes
    tree: Tree
    facts: dict = field(default_factory=dict, compare=False, repr=False)

    def text(self, node: Node) -> str:
        return self.src[node.start_byte:node.end_byte].decode(errors="replace")

    def line(self, byte: int) -> int:
        return self.src.count(b"\n", 0, byte) + 1


#: Parsed files kept (an operator has a handful; rewind and Stage I revisit a few operators).
CACHE_SIZE = 256
_cache: OrderedDict[tuple[str, str], Parsed] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def parse(file: str, text: str) -> Parsed:
    """``text`` (the contents of ``file``) parsed; the same object for the same name and text."""
    src = text.encode()
    key = (file, hashlib.sha256(src).hexdigest())
    with _lock:
        got = _cache.get(key)
        if got is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
            return got
    parsed = Parsed(file, src, Parser(language()).parse(blank_qualifiers(src)))
    with _lock:
        _stats["misses"] += 1
        _cache[key] = parsed
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return parsed


def cache_info() -> dict[str, int]:
    """Hits, misses and the number of files held."""
    with _lock:
        return {**_stats, "size": len(_cache)}


def clear_cache() -> None:
    with _lock:
        _cache.clear()
        _stats.update(hits=0, misses=0)


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def of_type(p: Parsed, *types: str) -> list[Node]:
    """The nodes of ``p`` of the given types, in pre-order (the order :func:`walk` visits them).
    One walk of the file indexes every node type; later calls read the index."""
    index = p.facts.get("by_type")
    if index is None:
        index = {}
        for n in walk(p.tree.root_node):
            index.setdefault(n.type, []).append(n)
        p.facts["by_type"] = index
    if len(types) == 1:
        return index.get(types[0], [])
    return sorted((n for t in types for n in index.get(t, [])), key=lambda n: (n.start_byte, -n.end_byte))


def int_literal(text: str) -> tuple[int, str] | None:
    """Parses a C++ integer literal (``1024``, ``2u``, ``0x10UL``) -> (value, suffix)."""
    m = _NUM.match(text.replace("'", ""))
    if not m:
        return None
    body = m.group(1)
    if len(body) > 1 and body[0] == "0" and body[1] in "xX":
        return int(body, 16), m.group(2)
    if len(body) > 1 and body[0] == "0" and body[1] in "bB":
        return int(body[2:], 2), m.group(2)
    if len(body) > 1 and body[0] == "0":
        return int(body, 8), m.group(2)
    return int(body), m.group(2)


def const_int_value(p: Parsed, node: Node) -> int | None:
    """Value of an integer expression made only of literals (``8 * 1024``, ``(1 << 12)``), else None."""
    t = node.type
    if t == "number_literal":
        r = int_literal(p.text(node))
        return None if r is None else r[0]
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return const_int_value(p, inner[0]) if len(inner) == 1 else None
    if t == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is None or right is None or op is None:
            return None
        a, b = const_int_value(p, left), const_int_value(p, right)
        if a is None or b is None:
            return None
        o = p.text(op)
        try:
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                    "/": lambda: a // b, "%": lambda: a % b, "<<": lambda: a << b, ">>": lambda: a >> b}[o]()
        except (KeyError, ZeroDivisionError, ValueError):
            return None
    return None


def is_int_type(p: Parsed, type_node: Node | None) -> bool:
    if type_node is None:
        return False
    return p.text(type_node).split("::")[-1].strip() in INT_TYPES


def declarator_name(p: Parsed, node: Node | None) -> str | None:
    """Identifier a declarator declares, through pointer, init and reference declarators at
    any depth (``x``, ``*x``, ``x = v``, ``T& x``, ``T& x = v``, ``T&& x``; a reference
    declarator's identifier is an unnamed child)."""
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return p.text(node)
        if node.type == "qualified_identifier":
            return p.text(node).split("::")[-1]
        if node.type == "reference_declarator":
            inner = [c for c in node.named_children if c.type != "comment"]
            node = inner[-1] if inner else None
        else:
            node = node.child_by_field_name("declarator") or node.child_by_field_name("name")
    return None




def unparen(node: Node) -> Node:
    """``node`` without enclosing parentheses (comments inside them ignored)."""
    while node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            break
        node = inner[0]
    return node
