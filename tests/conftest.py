"""Shared fixtures: one simulator backend (and build cache) per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    """Without a sandbox here (no bubblewrap, or no user namespaces), the rest of the suite
    still runs unconfined; ``tests/sandbox`` then fails loudly and says why."""
    from ascendopt import sandbox

    support = sandbox.probe()
    if not support.available:
        sandbox.configure(sandbox.Sandbox(allow_unsafe=True))
        print(f"\nWARNING: sandbox unavailable ({support.reason}); tests run candidates unconfined, "
              "tests/sandbox will fail")


def usable_cores() -> int:
    """CPUs this process may run on, bounded by a cgroup CPU quota (a container limited to 2
    cores may still see every CPU of the host in its affinity mask)."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = cgroup_cpu_quota()
    return max(1, min(n, quota) if quota else n)


def cgroup_cpu_quota() -> int:
    """Whole CPUs the cgroup's quota allows (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_*``), 0: none."""
    v2 = _read("/sys/fs/cgroup/cpu.max").split()
    v1 = [_read(f"/sys/fs/cgroup/cpu/cpu.cfs_{f}_us").strip() for f in ("quota", "period")]
    for quota, period in (v2[:2] if len(v2) >= 2 else ("", ""), v1):
        if quota.lstrip("-").isdigit() and period.isdigit() and int(quota) > 0 and int(period) > 0:
            return max(1, int(quota) // int(period))
    return 0


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (pyproject's addopts): one test worker per usable core. Each worker has its
    own session fixtures (simulator backend and build cache)."""
    return usable_cores()


FIXTURE_OPS = Path(__file__).resolve().parent / "fixtures" / "ops"


@pytest.fixture(scope="session")
def sim_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("aocache")


@pytest.fixture(scope="session")
def backend(sim_cache) -> SimBackend:
    return SimBackend(builder=SimBuilder(cache_dir=sim_cache))


#: A kernel compile without the compiler's automatic synchronisation (the toolkit adds
#: --cce-auto-sync unless the operator's CMake says this: oprepo.AUTO_SYNC_DEFAULT).
CMAKE_AUTO_SYNC_OFF = "add_ops_compile_options(ALL OPTIONS --cce-auto-sync=off)\n"


@pytest.fixture(scope="session")
def no_auto_sync(tmp_path_factory):
    """``no_auto_sync(op_dir) -> Operator``: the operator of ``op_dir`` loaded from a copy (made
    once per session) whose CMakeLists.txt builds its kernel with ``--cce-auto-sync=off``, as
    some cann-ops operators are: a conflict of the scalar pipe with V/MTE2/MTE3 that nothing
    orders is then a race (with the default option the compiler's inserted flags order it)."""
    import shutil

    from ascendopt.operator import Operator

    made: dict[Path, Path] = {}

    def load(op_dir: str | Path) -> Operator:
        src = Path(op_dir).resolve()
        if src not in made:
            dest = tmp_path_factory.mktemp("no_auto_sync") / src.name
            shutil.copytree(src, dest)
            (dest / "CMakeLists.txt").write_text(CMAKE_AUTO_SYNC_OFF)
            made[src] = dest
        op = Operator.load(made[src])
        assert not op.auto_sync
        return op

    return load
