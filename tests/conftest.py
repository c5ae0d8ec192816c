"""Shared fixtures: one simulator backend (and build cache) per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    """Without a sandbox here (no bubblewrap, or no user namespaces), the rest of the suite
    still runs unconfined; ``tests/sandbox`` then fails loudly and says why."""
    from ascendopt.backends.sim import sandbox

    support = sandbox.probe()
    if not support.available:
        sandbox.configure(sandbox.Sandbox(allow_unsafe=True))
        print(f"\nWARNING: sandbox unavailable ({support.reason}); tests run candidates unconfined, "
              "tests/sandbox will fail")
FIXTURE_OPS = Path(__file__).resolve().parent / "fixtures" / "ops"


@pytest.fixture(scope="session")
def sim_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("aocache")


@pytest.fixture(scope="session")
def backend(sim_cache) -> SimBackend:
    return SimBackend(builder=SimBuilder(cache_dir=sim_cache))
