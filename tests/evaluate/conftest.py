"""Fixtures for the evaluation harness: the scale_copy fixture operator and one-edit variants."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"
ANCHOR = "uint32_t tiles ="


def edit(op: Operator, rel: str, old: str, new: str, origin: str = "test/variant") -> Operator:
    text = op.files[rel]
    assert old in text, f"fixture changed: {old!r} not in {rel}"
    return op.with_file(rel, text.replace(old, new, 1), origin=origin)


def comment_variant(op: Operator, n: int, rel: str = KERNEL) -> Operator:
    """A harmless, digest-changing edit (a numbered comment line)."""
    return op.with_file(rel, op.files[rel] + f"\n// variant {n}\n", origin=f"test/comment{n}")


@pytest.fixture(scope="session")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="session")
def cases():
    return load_op_cases(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="session")
def config() -> EvalConfig:
    return EvalConfig(seed=7, run_timeout_s=20.0, jobs=2)


@pytest.fixture(scope="session")
def evaluator(backend, config) -> Evaluator:
    return Evaluator(backend, config)
