"""A strict unified-diff applier for LLM answers (no ``patch`` binary).

Strict on content, tolerant on positions: every context and removed line of a hunk must
equal the file's line (trailing whitespace ignored), hunks apply in order and may not
overlap; the ``@@ -l,s +l,s @@`` numbers only say where to start looking (the nearest
exact match wins, as GNU patch's offset search; no fuzz), and their counts are not checked
(models miscount them; the body's line prefixes delimit a hunk). A blank line inside a hunk
is an empty context line. Only files under the allowed prefixes (``op_kernel/``,
``op_host/``) with a source suffix may change or be created; deleting or renaming files is
refused.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Mapping

from ascendopt.operator import SOURCE_SUFFIXES

ALLOWED_PREFIXES = ("op_kernel/", "op_host/")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ValueError):
    """The diff is malformed, touches a forbidden path, or does not match the files."""


def check_path(path: str, allowed: tuple[str, ...] = ALLOWED_PREFIXES) -> str:
    """The normalised relative path if it may be edited.

    Raises:
        PatchError: Absolute, escaping (``..``), outside ``allowed``, or not a source file.
    """
    p = path.strip()
    if not p or p.startswith("/") or "\\" in p or ".." in p.split("/"):
        raise PatchError(f"path {path!r} is not a plain relative path")
    p = posixpath.normpath(p)
    if not p.startswith(allowed):
        raise PatchError(f"path {p!r} is outside {' and '.join(allowed)} (only those may change)")
    if not p.endswith(SOURCE_SUFFIXES):
        raise PatchError(f"path {p!r} is not a source file ({', '.join(SOURCE_SUFFIXES)})")
    return p


@dataclass
class Hunk:
    old_start: int
    lines: list[tuple[str, str]] = field(default_factory=list)  # (' ' | '-' | '+', text)

    @property
    def old(self) -> list[str]:
        return [t for k, t in self.lines if k != "+"]


@dataclass
class FilePatch:
    old_path: str | None  # None: a new file
    new_path: str
    hunks: list[Hunk] = field(default_factory=list)


def _strip_prefix(p: str, allowed: tuple[str, ...]) -> str | None:
    p = p.split("\t")[0].strip()
    if p == "/dev/null":
        return None
    if p[:2] in ("a/", "b/") and p[2:].startswith(allowed):
        p = p[2:]
    return p


def parse_diff(text: str, allowed: tuple[str, ...] = ALLOWED_PREFIXES) -> list[FilePatch]:
    """The file patches of a unified diff.

    Raises:
        PatchError: No file headers, a ``---`` without ``+++``, a hunk outside a file, a line
            that is not part of a hunk, a deletion or rename, or a forbidden path.
    """
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    out: list[FilePatch] = []
    cur: FilePatch | None = None
    hunk: Hunk | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old = _strip_prefix(line[4:], allowed)
            new = _strip_prefix(lines[i + 1][4:], allowed)
            if new is None:
                raise PatchError(f"the diff deletes {old}; deleting files is not allowed")
            new = check_path(new, allowed)
            if old is not None and check_path(old, allowed) != new:
                raise PatchError(f"the diff renames {old} to {new}; renaming files is not allowed")
            cur, hunk = FilePatch(old and new, new), None
            out.append(cur)
            i += 2
            continue
        m = _HUNK.match(line)
        if m:
            if cur is None:
                raise PatchError(f"line {i + 1}: hunk before any '--- a/FILE' / '+++ b/FILE' header")
            hunk = Hunk(int(m.group(1)))
            cur.hunks.append(hunk)
        elif hunk is not None and (line[:1] in (" ", "-", "+") or line == ""):
            hunk.lines.append((line[:1] or "=", line[1:]))  # "=": a blank line (context, or a separator)
        elif hunk is not None and line.startswith("\\"):
            pass  # "\ No newline at end of file"
        elif cur is None and hunk is None and (line.startswith(("diff ", "index ")) or not line.strip()):
            pass  # git preamble
        elif line.startswith(("diff ", "index ", "new file mode", "similarity", "old mode", "new mode")):
            hunk = None
        else:
            raise PatchError(f"line {i + 1} is not part of a unified diff: {line[:80]!r}")
        i += 1
    if not out:
        raise PatchError("no '--- a/FILE' / '+++ b/FILE' header: not a unified diff")
    for fp in out:
        for h in fp.hunks:
            while h.lines and h.lines[-1][0] == "=":
                h.lines.pop()  # blank lines after a hunk separate, they do not anchor
            h.lines = [(" " if k == "=" else k, t) for k, t in h.lines]
        if not fp.hunks:
            raise PatchError(f"{fp.new_path}: no hunks")
        if fp.old_path is None and any(k != "+" for h in fp.hunks for k, _ in h.lines):
            raise PatchError(f"{fp.new_path}: a new file may only add lines")
    return out


def _same(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _apply_file(text: str, fp: FilePatch) -> str:
    lines = text.splitlines()
    trailing_nl = text.endswith("\n") or not text
    cursor = 0
    for n, h in enumerate(fp.hunks, 1):
        old = h.old
        want = max(0, h.old_start - 1)
        if not old:
            pos = min(max(want, cursor), len(lines))
        else:
            cands = [p for p in range(cursor, len(lines) - len(old) + 1)
                     if all(_same(lines[p + j], old[j]) for j in range(len(old)))]
            if not cands:
                raise PatchError(f"{fp.new_path}: hunk {n} (@@ -{h.old_start}) does not match the file "
                                 f"(context or removed lines differ)")
            pos = min(cands, key=lambda p: (abs(p - want), p))
        new: list[str] = []
        j = pos
        for kind, t in h.lines:
            if kind == " ":
                new.append(lines[j])
                j += 1
            elif kind == "-":
                j += 1
            else:
                new.append(t)
        lines[pos:j] = new
        cursor = pos + len(new)
    return "\n".join(lines) + ("\n" if trailing_nl and lines else "")


def apply_diff(files: Mapping[str, str], diff: str, allowed: tuple[str, ...] = ALLOWED_PREFIXES) -> dict[str, str]:
    """``files`` (relative path -> text) with the diff applied; the input is not modified.

    Raises:
        PatchError: See :func:`parse_diff`; also a patched file that does not exist, a new
            file that already exists, a hunk that does not match, a diff that changes nothing.
    """
    out = dict(files)
    for fp in parse_diff(diff, allowed):
        if fp.old_path is None:
            if fp.new_path in out:
                raise PatchError(f"{fp.new_path}: the diff creates it, but it exists")
            out[fp.new_path] = _apply_file("", fp)
        else:
            if fp.new_path not in out:
                raise PatchError(f"{fp.new_path}: no such file in the operator")
            out[fp.new_path] = _apply_file(out[fp.new_path], fp)
    if out == dict(files):
        raise PatchError("the diff changes nothing")
    return out
