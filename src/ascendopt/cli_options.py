"""Option checks shared by the CLI's commands (a bad value is a usage error, exit 2)."""

from __future__ import annotations

import typer


def positive(value: float) -> float:
    """Option callback: a number that must be above zero (a timeout)."""
    if value <= 0:
        raise typer.BadParameter(f"{value:g} is not above 0")
    return value
