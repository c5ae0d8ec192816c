"""What the data cache does on the device that the emulation's one copy of GM does not
(asc-devkit 缓存一致性.md, DataCacheCleanAndInvalid.md): a scalar read may hit a line this
core's DMA overwrote since the line was cached (``dcache_stale``); a DMA does not see a line the
scalar unit wrote and did not clean, and that line's write-back later overwrites what a DMA
wrote (``dcache_dirty``). DataCacheCleanAndInvalid on the line (or the whole cache) cures both.
Warnings, as for races: the emulated results are right, the device's would not be."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..unit_build import assert_hazard, unit_exe

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return unit_exe(HERE / "dcache_unit.cpp", tmp_path_factory.mktemp("dcache"))


def scenario(exe: Path, name: str) -> subprocess.CompletedProcess:
    res = subprocess.run([str(exe), "fail", name], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


@pytest.mark.parametrize("name,kind", [
    ("stale", "dcache_stale"),            # GetValue, DMA writes the line, GetValue again
    ("dirty_read", "dcache_dirty"),       # SetValue, then a DMA reads the line
    ("dirty_write", "dcache_dirty"),      # SetValue, then a DMA writes the line
])
def test_missing_clean_is_a_warning(exe, name, kind):
    res = scenario(exe, name)
    assert_hazard(res, kind)
    assert res.stderr.count("ascendopt-warning") == 1, res.stderr


@pytest.mark.parametrize("name", ["stale_cleaned", "dirty_read_cleaned", "other_line", "entire_cleaned"])
def test_cleaned_or_unrelated_lines_are_quiet(exe, name):
    res = scenario(exe, name)
    assert "ascendopt-warning" not in res.stderr, res.stderr
