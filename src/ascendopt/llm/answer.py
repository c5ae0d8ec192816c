"""Strict parsing of a rewriter's answer.

An answer is accepted in exactly two shapes, each with exactly one fenced code block:

* a whole file: the fence line names the language and the path,
  e.g. ```` ```cpp op_kernel/abs_custom.cpp ````;
* a unified diff: ```` ```diff ```` (or ```` ```patch ````).

The first non-empty line of the answer (outside the block) is its summary; if it names one of
:data:`ascendopt.transforms.families.FAMILIES` (``family: pipeline_overlap -- ...``) that is the
answer's family, else ``other``. Anything else (no block, two blocks, an unclosed block, a fence
without a path, a path outside ``op_kernel/``/``op_host/``) is refused with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from ascendopt.llm.patch import PatchError, apply_diff, check_path
from ascendopt.transforms.families import FAMILIES


_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(.*?)\s*$")


class AnswerError(ValueError):
    """The answer is not in an accepted shape, or does not apply (message = the reason)."""


@dataclass
class Answer:
    """A parsed answer.

    Attributes:
        kind: ``file`` or ``diff``.
        body: The block's text (the file, or the diff).
        path: For ``file``: the (checked) path it replaces or creates.
        family: A family of :data:`FAMILIES` (``other`` when the first line names none).
        summary: The first line (without a ``family:`` prefix), at most 200 characters.
    """

    kind: str
    body: str
    path: str
    family: str
    summary: str

    def apply(self, files: Mapping[str, str]) -> dict[str, str]:
        """``files`` with this answer applied.

        Raises:
            AnswerError: The diff does not apply, or the answer changes nothing.
        """
        if self.kind == "diff":
            try:
                return apply_diff(files, self.body)
            except PatchError as e:
                raise AnswerError(f"the diff does not apply: {e}") from e
        text = self.body if self.body.endswith("\n") else self.body + "\n"
        if files.get(self.path) == text:
            raise AnswerError(f"the answer's {self.path} is identical to the current file")
        out = dict(files)
        out[self.path] = text
        return out


def family_of(line: str) -> str:
    """The first family name the line mentions (as a whole word), else ``other``."""
    low = line.lower()
    found = [(m.start(), f) for f in FAMILIES if f != "other" for m in [re.search(rf"\b{f}\b", low)] if m]
    return min(found)[1] if found else "other"


def parse_answer(text: str) -> Answer:
    """Parses an answer strictly (see the module docstring).

    Raises:
        AnswerError: With the reason the answer is refused.
    """
    lines = text.splitlines()
    blocks: list[tuple[str, list[str]]] = []
    first = ""
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            if not blocks and not first and lines[i].strip():
                first = lines[i].strip()
            i += 1
            continue
        fence, info = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and not lines[j].strip().strip(fence[0])):
            j += 1
        if j == len(lines):
            raise AnswerError(f"the code block opened on line {i + 1} is never closed (answer cut off?)")
        blocks.append((info, lines[i + 1:j]))
        i = j + 1
    if not blocks:
        raise AnswerError("no fenced code block (expected one whole file or one ```diff block)")
    if len(blocks) > 1:
        raise AnswerError(f"{len(blocks)} code blocks (expected exactly one)")
    info, body_lines = blocks[0]
    body = "\n".join(body_lines) + "\n"
    summary = re.sub(r"^\W*family\s*[:=]\s*\w+\W*", "", first, flags=re.I).strip() or first
    family = family_of(first)
    words = info.split()
    if words and words[0].lower() in ("diff", "patch", "udiff"):
        if len(words) > 1:
            raise AnswerError(f"the diff fence line names more than 'diff': {info!r}")
        return Answer("diff", body, "", family, summary[:200])
    if len(words) < 1 or "/" not in words[-1]:
        raise AnswerError(f"the fence line {info!r} names no file path (expected e.g. ```cpp op_kernel/x.cpp)")
    try:
        path = check_path(words[-1])
    except PatchError as e:
        raise AnswerError(str(e)) from e
    if not body.strip():
        raise AnswerError(f"the block for {path} is empty")
    return Answer("file", body, path, family, summary[:200])
