"""The transform interface (both directions of an optimization) and the edit helpers
transforms share.

An optimization strong AscendC kernels carry may have two transforms
(:mod:`ascendopt.transforms.registry`): a *motif* removes it (rewind, which learns what it is
worth) and a *rewrite* puts it in (Stage I). Each is a matcher (:meth:`Transform.find`: the
sites of an operator, each named with file, line and a label) and a rewriter
(:meth:`Transform.apply`: the operator rewritten at one site). Both work on the real syntax tree
through the C++ analysis layer (:mod:`ascendopt.cxx`); a rewriter edits byte spans of the
original text, so everything it does not touch stays byte-identical.

A rewrite is only a proposal: rewind keeps a de-optimization only when the backend says it
still builds, stays correct, adds no hazard and is measurably slower
(:mod:`ascendopt.evaluate.verdict`); Stage I keeps an optimization only when it is correct and
faster. A transform therefore need not prove its rewrite correct, but the optimization must say
which mechanism it acts on (``mechanism``) and what its absence costs on the pipes
(``bottleneck``): the experience bank is built from these statements plus the measured profiles.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from tree_sitter import Node

from ascendopt.cxx import syntax
from ascendopt.cxx.parse import Parsed, parse
from ascendopt.operator import Operator


class MotifError(ValueError):
    """A site does not belong to the operator (stale site, wrong motif)."""


@dataclass(frozen=True)
class Site:
    """One place where a motif applies.

    Attributes:
        motif: The motif's registry name.
        file: Relative source path (``op_kernel/x.cpp``).
        line: 1-based line of the site in the original text.
        label: What was found, for people (``TQue inQueueX depth BUFFER_NUM=2``).
        start: Byte offset of the site's anchor node in the original text.
        end: End byte of the anchor node.
        detail: Motif-specific data the rewriter needs (e.g. a knob id), as text.
    """

    motif: str
    file: str
    line: int
    label: str
    start: int
    end: int
    detail: str = ""

    def to_dict(self) -> dict:
        return {"motif": self.motif, "file": self.file, "line": self.line, "label": self.label,
                "start": self.start, "end": self.end, "detail": self.detail}


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``[start, end)`` of ``file`` by ``text`` (an insertion when start == end)."""

    file: str
    start: int
    end: int
    text: str


class Transform(abc.ABC):
    """A source transform of one optimization: find its sites, rewrite one site. A
    :class:`Motif` removes the optimization (rewind); a :class:`Rewrite` puts it in (Stage I).

    The facts below are the optimization's (:class:`~ascendopt.transforms.registry.Optimization`,
    stated once per optimization and copied onto the class when it names it as
    ``optimization``); they go into every experience the transform yields.

    Class attributes:
        name: Registry key (``double_buffer``), unique per direction.
        optimization: The optimization this transform removes or applies.
        family: Canonical family of the optimization (:data:`ascendopt.transforms.families.FAMILIES`).
        title: The optimization, in the optimizing direction (``Double-buffer the copy queues``).
        mechanism: Why the optimization pays, in one or two sentences.
        bottleneck: What its absence costs on the pipes (the symptom a profile shows).
        scope: ``kernel`` or ``host``: which side the rewrite edits.
        anchors: Node types the transform's sites are anchored on (empty: it reads the
            operator its own way); the Stage I proposer uses them to skip a transform whose
            anchors a kernel does not contain.
    """

    name: ClassVar[str]
    optimization: ClassVar[Any] = None
    family: ClassVar[str]
    title: ClassVar[str]
    mechanism: ClassVar[str]
    bottleneck: ClassVar[str]
    scope: ClassVar[str] = "kernel"
    anchors: ClassVar[tuple[str, ...]] = ()
    #: ``deoptimize`` (rewind) or ``optimize`` (Stage I); the origin prefix follows from it.
    direction: ClassVar[str] = "deoptimize"

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        opt = cls.__dict__.get("optimization")
        if opt is not None:
            cls.family, cls.title, cls.mechanism = opt.family, opt.title, opt.mechanism
            cls.bottleneck, cls.scope = opt.bottleneck, opt.scope

    @property
    def origin(self) -> str:
        return f"{'rewind' if self.direction == 'deoptimize' else 'stage1'}/{self.name}"

    @abc.abstractmethod
    def find(self, op: Operator) -> list[Site]:
        """Every site of ``op`` where the transform applies, in source order."""

    @abc.abstractmethod
    def edits(self, op: Operator, site: Site) -> list[Edit]:
        """The byte edits that rewrite ``op`` at ``site`` (a site from :meth:`find` on this same
        operator)."""

    def apply(self, op: Operator, site: Site) -> Operator:
        """``op`` rewritten at ``site``; origin ``rewind/<name>`` (``stage1/<name>`` for an
        optimizing transform).

        Raises:
            MotifError: The site is not one of this transform's sites in ``op``.
        """
        if site.motif != self.name or site.file not in op.files:
            raise MotifError(f"{self.name}: site {site.label!r} ({site.file}:{site.line}) is not in {op.name}")
        return apply_edits(op, self.edits(op, site), origin=self.origin)

    def explain(self, cand: Operator, site: Site) -> tuple["Transform", Site]:
        """What rewind records and distills for ``cand`` (this transform's :meth:`apply` at
        ``site``): the transform whose stated facts (family, title, mechanism, bottleneck)
        describe it, and the site as named. A fixed transform is its own description; a motif
        whose rewrites are proposals (the LLM rewinder) returns one description per candidate."""
        return self, site

    def site(self, p: Parsed, node: Node, label: str, detail: str = "") -> Site:
        """A site anchored at ``node`` of parsed file ``p``."""
        return Site(self.name, p.file, p.line(node.start_byte), label, node.start_byte, node.end_byte, detail)


class Motif(Transform):
    """A de-optimizing transform (rewind): its sites are where the optimization is present."""

    direction: ClassVar[str] = "deoptimize"


class Rewrite(Transform):
    """An optimizing transform (Stage I): its sites are where the optimization is missing."""

    direction: ClassVar[str] = "optimize"


def apply_edits(op: Operator, edits: Iterable[Edit], origin: str) -> Operator:
    """``op`` with the byte edits applied (right to left per file; overlapping edits refused)."""
    by_file: dict[str, list[Edit]] = {}
    for e in edits:
        by_file.setdefault(e.file, []).append(e)
    if not by_file:
        raise MotifError("no edits")
    files = dict(op.files)
    for rel, es in by_file.items():
        src = files[rel].encode()
        last = len(src)
        for e in sorted(es, key=lambda e: (e.start, e.end), reverse=True):
            if e.end > last or e.start > e.end:
                raise MotifError(f"overlapping or inverted edits in {rel} at byte {e.start}")
            src = src[:e.start] + e.text.encode() + src[e.end:]
            last = e.start
        files[rel] = src.decode()
    return Operator(op.name, files, op.root, op.digest, origin)


# ----------------------------------------------------------------------------- parsing and edits
def kernel_parsed(op: Operator) -> list[Parsed]:
    """Parsed op_kernel sources (.cpp and headers), kernel entry file first."""
    entry = op.kernel_file
    rels = [entry] + [k for k in op.kernel_files() if k != entry]
    return [parse(k, op.files[k]) for k in rels]


def host_parsed(op: Operator) -> list[Parsed]:
    return [parse(k, op.files[k]) for k in op.host_files()]


def line_indent(p: Parsed, byte: int) -> str:
    """Leading whitespace of the line holding ``byte``."""
    start = p.src.rfind(b"\n", 0, byte) + 1
    end = start
    while end < len(p.src) and p.src[end:end + 1] in (b" ", b"\t"):
        end += 1
    return p.src[start:end].decode()


def line_start(p: Parsed, byte: int) -> int:
    return p.src.rfind(b"\n", 0, byte) + 1


def line_end(p: Parsed, byte: int) -> int:
    """Offset just past the newline ending the line holding ``byte``."""
    nl = p.src.find(b"\n", byte)
    return len(p.src) if nl < 0 else nl + 1


def insert_after_statement(p: Parsed, stmt: Node, code_lines: list[str]) -> Edit:
    """Insert ``code_lines`` on new lines after ``stmt``, at its indentation."""
    ind = line_indent(p, stmt.start_byte)
    at = line_end(p, stmt.end_byte - 1)
    return Edit(p.file, at, at, "".join(f"{ind}{c}\n" for c in code_lines))


def insert_before_statement(p: Parsed, stmt: Node, code_lines: list[str]) -> Edit:
    ind = line_indent(p, stmt.start_byte)
    at = line_start(p, stmt.start_byte)
    return Edit(p.file, at, at, "".join(f"{ind}{c}\n" for c in code_lines))


def body_start_insert(p: Parsed, body: Node, code_lines: list[str]) -> Edit:
    """Insert ``code_lines`` as the first statements of a compound statement."""
    first = next((c for c in body.named_children if c.type != "comment"), None)
    if first is not None:
        return insert_before_statement(p, first, code_lines)
    ind = line_indent(p, body.start_byte) + "    "
    at = body.start_byte + 1
    return Edit(p.file, at, at, "\n" + "".join(f"{ind}{c}\n" for c in code_lines))


def find_node(p: Parsed, start: int, end: int, type_: str | None = None) -> Node:
    """The node spanning exactly ``[start, end)`` (of ``type_`` when given).

    Raises:
        MotifError: No such node (the site is stale).
    """
    node = syntax.find_node(p, start, end, type_)
    if node is None:
        raise MotifError(f"{p.file}: no {type_ or 'node'} at bytes {start}-{end}")
    return node


def remove_statement(p: Parsed, stmt: Node) -> Edit:
    """Deletes ``stmt``: its whole line(s) when nothing else is on them, else just its bytes."""
    ls, le = line_start(p, stmt.start_byte), line_end(p, stmt.end_byte - 1)
    before = p.src[ls:stmt.start_byte].strip()
    after = p.src[stmt.end_byte:le].strip()
    if not before and (not after or after.startswith(b"//")):
        return Edit(p.file, ls, le, "")
    return Edit(p.file, stmt.start_byte, stmt.end_byte, "")


def replace_with_lines(p: Parsed, stmt: Node, code_lines: list[str]) -> Edit:
    """Replaces ``stmt`` by ``code_lines`` at its indentation (whole lines when ``stmt`` starts
    its line and ends it, else inline, joined by spaces)."""
    ls, le = line_start(p, stmt.start_byte), line_end(p, stmt.end_byte - 1)
    if not p.src[ls:stmt.start_byte].strip() and not p.src[stmt.end_byte:le].strip():
        ind = p.src[ls:stmt.start_byte].decode()
        return Edit(p.file, ls, le, "".join(f"{ind}{c}\n" for c in code_lines))
    return Edit(p.file, stmt.start_byte, stmt.end_byte, " ".join(code_lines))


def replace_statement(p: Parsed, stmt: Node, lines: list[str], comment: str = "") -> Edit:
    """Replace ``stmt`` by ``{ lines }`` at its indentation (a comment on the opening brace)."""
    ind = line_indent(p, stmt.start_byte)
    head = "{" + (f"  // {comment}" if comment else "")
    body = "".join(f"{ind}    {ln}\n" for ln in lines)
    return Edit(p.file, stmt.start_byte, stmt.end_byte, f"{head}\n{body}{ind}}}")
