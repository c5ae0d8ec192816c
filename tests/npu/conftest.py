"""The fake CANN toolchain (tests/fixtures/fake_cann) as an environment, and an NPU backend on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FAKE = Path(__file__).resolve().parent.parent / "fixtures" / "fake_cann"
NPU_SCALE = FAKE / "ops" / "npu_scale"


def fake_environ(home: Path, with_driver: bool = True, with_simulator: bool = True) -> dict[str, str]:
    """An environment with the fake toolkit installed where a real one goes
    (``$HOME/Ascend/ascend-toolkit``), its set_env.sh not sourced, npu-smi on PATH (without
    the driver: no npu-smi, no device). ``with_simulator=False``: a toolkit without
    ``tools/simulator`` (every other entry links to the fake one)."""
    (home / "Ascend").mkdir(parents=True, exist_ok=True)
    link = home / "Ascend" / "ascend-toolkit"
    if not link.exists() and with_simulator:
        link.symlink_to(FAKE / "ascend-toolkit")
    elif not link.exists():
        (link / "latest").mkdir(parents=True)
        (link / "set_env.sh").symlink_to(FAKE / "ascend-toolkit" / "set_env.sh")
        for entry in (FAKE / "ascend-toolkit" / "latest").iterdir():
            if entry.name != "tools":
                (link / "latest" / entry.name).symlink_to(entry)
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


@pytest.fixture
def npu_sim(tmp_path):
    """An NPU backend in simulator mode on a machine with the toolkit and no device."""
    from ascendopt.backends.npu.backend import NpuBackend
    from ascendopt.backends.npu.detect import detect
    from ascendopt.backends.npu.project import NpuBuilder

    cann = detect(fake_environ(tmp_path / "home", with_driver=False))
    builder = NpuBuilder(cann, "Ascend910B2", cache_dir=tmp_path / "cache")
    return NpuBackend(cann, builder=builder, profile_dir=tmp_path / "profiles", mode="simulator", soc="Ascend910B2")
