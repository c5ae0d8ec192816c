"""Helpers for Stage I rewrite tests: the rewind tests' ``check`` fixture and ``load``."""

from ..rewind.conftest import check, load  # noqa: F401
