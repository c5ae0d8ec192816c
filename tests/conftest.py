"""Shared fixtures: one simulator backend (and build cache) per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_OPS = Path(__file__).resolve().parent / "fixtures" / "ops"


@pytest.fixture(scope="session")
def sim_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("aocache")


@pytest.fixture(scope="session")
def backend(sim_cache) -> SimBackend:
    return SimBackend(builder=SimBuilder(cache_dir=sim_cache))
