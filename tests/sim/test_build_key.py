import shutil

from ascendopt.backends.sim import build as build_mod
from ascendopt.backends.sim.build import SimBuilder


def test_toolchain_key_follows_an_edited_emulation_header(tmp_path, monkeypatch):
    # regression: the key was computed once per process, so a long-running process kept storing
    # objects built from edited headers under the old key and poisoned the shared cache
    inc, rt = tmp_path / "include", tmp_path / "runtime"
    shutil.copytree(build_mod.INCLUDE_DIR, inc)
    shutil.copytree(build_mod.RUNTIME_DIR, rt)
    monkeypatch.setattr(build_mod, "INCLUDE_DIR", inc)
    monkeypatch.setattr(build_mod, "RUNTIME_DIR", rt)
    b = SimBuilder(cache_dir=tmp_path / "cache")
    first = b.toolchain_key
    assert b.toolchain_key == first
    header = next(inc.rglob("*.h"))
    header.write_text(header.read_text() + "\n// edited\n")
    assert b.toolchain_key != first
