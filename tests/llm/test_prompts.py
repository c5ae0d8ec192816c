"""Prompt templates: one file per role, sections, placeholders, one-pass rendering."""

from __future__ import annotations

import re

import pytest

from ascendopt.llm.config import ROLES
from ascendopt.llm.prompts import PromptError, messages, placeholders, render, sections


@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_a_template_that_renders(role):
    s = sections(role)
    assert {"system", "user"} <= set(s)
    for name in s:
        values = {p: f"<{p}>" for p in placeholders(role, name)}
        text = render(role, name, values)
        assert not re.search(r"\{[a-z_][a-z0-9_]*\}", text)  # all placeholders filled
        for p in values:
            assert f"<{p}>" in text


def test_values_with_braces_are_left_alone():
    vals = {p: "{x} { int a = 1; } {families}" for p in placeholders("diagnoser", "user") | placeholders("diagnoser", "system")}
    msgs = messages("diagnoser", vals)
    assert "{families}" in msgs[1]["content"]  # substituted once, not re-scanned


def test_missing_value_and_unknown_section():
    with pytest.raises(PromptError, match="no value for"):
        render("refiner", "user", {})
    with pytest.raises(PromptError, match="no section"):
        render("refiner", "nope", {})
    with pytest.raises(PromptError, match="no prompt template"):
        sections("nobody")


def test_prompts_are_package_data():
    import tomllib
    from pathlib import Path

    py = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "llm/prompts/*.md" in py["tool"]["setuptools"]["package-data"]["ascendopt"]
