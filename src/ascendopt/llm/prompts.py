"""Prompt templates, one file per role: ``prompts/<role>.md``.

A template file is Markdown split into sections by lines that are exactly ``## <name>``
(``## system``, ``## user``, ``## repair``, ...); text before the first such line is a
comment for maintainers and is never sent. Placeholders are ``{name}`` (a lowercase
identifier in braces); :func:`render` substitutes them in one pass, so braces inside the
values (C++ code) are left alone, and a placeholder without a value is an error.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Mapping

_SECTION = re.compile(r"^## ([a-z_]+)\s*$", re.M)
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class PromptError(KeyError):
    """No such template or section, or a placeholder without a value."""

    def __str__(self) -> str:
        return str(self.args[0])


@lru_cache(maxsize=None)
def sections(role: str) -> dict[str, str]:
    """The sections of ``prompts/<role>.md`` (name -> template text, stripped)."""
    try:
        text = resources.files("ascendopt.llm").joinpath("prompts", f"{role}.md").read_text()
    except FileNotFoundError as e:
        raise PromptError(f"no prompt template for role {role!r} (prompts/{role}.md)") from e
    parts = _SECTION.split(text)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def placeholders(role: str, section: str) -> set[str]:
    """The placeholder names a section uses."""
    return set(_PLACEHOLDER.findall(_section(role, section)))


def _section(role: str, section: str) -> str:
    s = sections(role)
    if section not in s:
        raise PromptError(f"prompts/{role}.md has no section '## {section}' (has: {', '.join(s)})")
    return s[section]


def render(role: str, section: str, values: Mapping[str, object]) -> str:
    """The section with every ``{name}`` replaced by ``str(values[name])``.

    Raises:
        PromptError: Unknown role or section, or a placeholder missing from ``values``.
    """
    tmpl = _section(role, section)
    missing = sorted(set(_PLACEHOLDER.findall(tmpl)) - set(values))
    if missing:
        raise PromptError(f"prompts/{role}.md '## {section}': no value for {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), tmpl)


def messages(role: str, values: Mapping[str, object], user: str = "user") -> list[dict[str, str]]:
    """``[system, user]`` chat messages from the role's ``system`` section and its ``user``
    (or the named) section."""
    return [{"role": "system", "content": render(role, "system", values)},
            {"role": "user", "content": render(role, user, values)}]
