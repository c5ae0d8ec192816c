"""Knob slots: one host build serves every value of a tiling program's integer knobs.

Stage II candidates differ from each other only in integer literals of the host tiling
program. Recompiling the host object for each of them costs most of an evaluation on the
simulator, although the programs differ in data, not in code. A :class:`HostSlots` attached
to such a candidate says: "these host files are this parameterized source, with these
values in its slots". The parameterized source has ``AO_KNOB_SLOT(i, <literal>)`` where the
literal knob ``i`` was; it compiles once, and each run receives the values (environment
variable :data:`ENV_VAR`, read by the runtime at first use, so namespace-scope constants
work too). A slot keeps the literal's type (``decltype``), so arithmetic is unchanged.

The candidate's own sources stay the truth: :meth:`HostSlots.matches` re-renders the
parameterized files with the values and requires them to equal the candidate's files
byte for byte, and the builder falls back to compiling the literal sources whenever that
fails or the parameterized source does not compile (a knob in a ``constexpr`` context, for
instance). A slotted ``constexpr`` declaration is written ``AO_KNOB_CONSTEXPR`` (a ``const``).
Only plain decimal literals whose value and default fit a signed 32-bit int are
slotted; anything else is written literally into the parameterized source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

ENV_VAR = "AO_KNOB_SLOTS"
#: The macro a slot is written as; defined by ``ascendopt_host/knob_slot.h``.
MACRO = "AO_KNOB_SLOT"
SLOT_HEADER = "ascendopt_host/knob_slot.h"
#: Stands for ``constexpr`` in a declaration whose initializer is a slot (defined as ``const``).
CONSTEXPR = "AO_KNOB_CONSTEXPR"
_CONSTEXPR_TOKEN = re.compile(r"\b" + CONSTEXPR + r"\b")
_LITERAL = re.compile(r"(0|[1-9][0-9]*)([uUlL]{0,3})")
_SLOT = re.compile(MACRO + r"\((\d+), ([^)]*)\)")
_INT_MAX = 2**31 - 1


def slottable(text: str, value: int) -> bool:
    """True when the literal ``text`` may become a slot that also takes ``value``."""
    m = _LITERAL.fullmatch(text.strip())
    return bool(m) and int(m.group(1)) <= _INT_MAX and 0 <= value <= _INT_MAX


def render_literal(text: str, value: int) -> str:
    """What a literal knob with original ``text`` is written as for ``value`` (suffix kept)."""
    m = _LITERAL.fullmatch(text.strip())
    assert m is not None
    return text if int(m.group(1)) == value else f"{value}{m.group(2)}"


def slot_text(index: int, text: str) -> str:
    return f"{MACRO}({index}, {text.strip()})"


@dataclass(frozen=True)
class HostSlots:
    """The parameterized host files of a candidate and the values of their slots.

    Attributes:
        files: Relative path -> parameterized text, for every host file (slotted or not).
        values: Value of slot ``i`` at index ``i``.
    """

    files: Mapping[str, str]
    values: tuple[int, ...]

    @staticmethod
    def make(files: Mapping[str, str], values: list[int] | tuple[int, ...]) -> "HostSlots":
        return HostSlots(MappingProxyType(dict(sorted(files.items()))), tuple(int(v) for v in values))

    def render(self) -> dict[str, str]:
        """The literal host files these slots stand for."""

        def sub(m: re.Match) -> str:
            return render_literal(m.group(2), self.values[int(m.group(1))])

        return {rel: _CONSTEXPR_TOKEN.sub("constexpr", _SLOT.sub(sub, text)) for rel, text in self.files.items()}

    def matches(self, host_files: Mapping[str, str]) -> bool:
        """True when rendering gives exactly ``host_files`` (and uses every slot index)."""
        used = {int(m.group(1)) for text in self.files.values() for m in _SLOT.finditer(text)}
        if used != set(range(len(self.values))):
            return False
        try:
            return self.render() == dict(host_files)
        except (IndexError, AssertionError):
            return False

    def env_value(self) -> str:
        return ",".join(str(v) for v in self.values)

    def __reduce__(self):  # MappingProxyType does not pickle
        return (HostSlots.make, (dict(self.files), self.values))


__all__ = ["CONSTEXPR", "ENV_VAR", "MACRO", "SLOT_HEADER", "HostSlots", "render_literal", "slot_text", "slottable"]
