"""The fake CANN toolchain (tests/fixtures/fake_cann) as an environment, and an NPU backend on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FAKE = Path(__file__).resolve().parent.parent / "fixtures" / "fake_cann"
NPU_SCALE = FAKE / "ops" / "npu_scale"


def fake_environ(home: Path, with_driver: bool = True) -> dict[str, str]:
    """An environment with the fake toolkit installed where a real one goes
    (``$HOME/Ascend/ascend-toolkit``), its set_env.sh not sourced, npu-smi on PATH."""
    (home / "Ascend").mkdir(parents=True, exist_ok=True)
    link = home / "Ascend" / "ascend-toolkit"
    if not link.exists():
        link.symlink_to(FAKE / "ascend-toolkit")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASCEND_", "ASCENDOPT_"))}
    env["HOME"] = str(home)
    if with_driver:
        env["PATH"] = f"{FAKE / 'driver' / 'bin'}:{env.get('PATH', '')}"
    return env


@pytest.fixture
def fake_env(tmp_path) -> dict[str, str]:
    return fake_environ(tmp_path / "home")


@pytest.fixture
def cann(fake_env):
    from ascendopt.backends.npu.detect import detect

    return detect(fake_env)


@pytest.fixture
def npu(cann, tmp_path):
    from ascendopt.backends.npu.backend import NpuBackend
    from ascendopt.backends.npu.project import NpuBuilder

    builder = NpuBuilder(cann, cann.soc, cache_dir=tmp_path / "cache")
    return NpuBackend(cann, builder=builder, profile_dir=tmp_path / "profiles")
