"""Operator collections: ``own`` (this project's ``ops/``) or any directory of operators.

An operator directory is one holding both ``op_host/`` and ``op_kernel/``; a suite directory
is searched recursively for them (sorted, so the order is stable).
"""

from __future__ import annotations

from pathlib import Path

#: The project's own corpus (``ops/`` beside ``src/`` in a checkout).
OWN_OPS = Path(__file__).resolve().parents[2] / "ops"


class SuiteError(ValueError):
    """Unknown suite name or a path with no operators."""


def is_operator_dir(path: Path) -> bool:
    return (path / "op_host").is_dir() and (path / "op_kernel").is_dir()


def operator_dirs(root: Path) -> list[Path]:
    """Every operator directory under ``root`` (``root`` itself when it is one)."""
    if is_operator_dir(root):
        return [root]
    return sorted(p.parent for p in root.rglob("op_kernel") if p.is_dir() and is_operator_dir(p.parent))


def resolve_suite(name: str) -> list[Path]:
    """The operator directories of suite ``name`` (``own`` or a directory).

    Raises:
        SuiteError: Unknown name, or no operators found.
    """
    root = OWN_OPS if name == "own" else Path(name)
    if name == "own" and not root.is_dir():
        raise SuiteError(f"suite 'own' needs the project's ops/ directory ({root} is missing: run from a checkout)")
    if not root.is_dir():
        raise SuiteError(f"unknown suite {name!r}: not 'own' and not a directory")
    dirs = operator_dirs(root)
    if not dirs:
        raise SuiteError(f"suite {name!r}: no operator directories (op_host/ + op_kernel/) under {root}")
    return dirs
