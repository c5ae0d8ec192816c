"""Build-side pieces of fast turnaround: the host PCH is really used, and a host-only change
recompiles only host objects (kernels are reused)."""

from __future__ import annotations

import subprocess

from .conftest import HOST, KERNEL


def test_host_pch_is_used(backend, base):
    builder = backend.builder
    pch = builder.host_prelude()
    assert pch is not None and pch.with_suffix(".h.gch").exists()
    src = builder._materialize(base) / HOST
    cmd = builder.host_compile_cmd(src, src.with_suffix(".o.check"))
    out = subprocess.run([*cmd, "-H", "-Winvalid-pch"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"! {pch}.gch" in out.stderr  # `!`: g++ loaded the precompiled header
    assert "invalid" not in out.stderr


def test_host_change_reuses_kernel_object(backend, base):
    builder = backend.builder
    dtypes = {"x": "float", "y": "float"}
    assert builder.build(base, dtypes).ok
    kernels = set((builder.cache_dir / "kernel").iterdir())
    hosts = set((builder.cache_dir / "host").iterdir())
    host_change = base.with_file(HOST, base.files[HOST] + "\n// host change\n")
    assert builder.build(host_change, dtypes).ok
    assert set((builder.cache_dir / "kernel").iterdir()) == kernels
    assert len(set((builder.cache_dir / "host").iterdir()) - hosts) == 1
    kernel_change = base.with_file(KERNEL, base.files[KERNEL] + "\n// kernel change\n")
    assert builder.build(kernel_change, dtypes).ok
    assert len(set((builder.cache_dir / "kernel").iterdir()) - kernels) == 1
