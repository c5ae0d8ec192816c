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
from .common import load, run, variant

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


@pytest.mark.parametrize("name", ["stale_cleaned", "dirty_read_cleaned", "other_line", "entire_cleaned",
                                  "reference_read"])  # GlobalTensor::operator(): its use is unknown
def test_cleaned_or_unrelated_lines_are_quiet(exe, name):
    res = scenario(exe, name)
    assert "ascendopt-warning" not in res.stderr, res.stderr


@pytest.mark.parametrize("clean", [False, True])
def test_another_cores_unclean_write_is_a_warning(backend, clean):
    """Block 0 rewrites y[0] through its data cache, SyncAll, block 1 reads y[0]: without block 0's
    DataCacheCleanAndInvalid the line is still only in block 0's cache (the masked_select_v3
    pattern cleans it before its SyncAll)."""
    op, cases = load("timing_lab")
    rr = run(backend, variant(op, "op_kernel/timing_lab.cpp", XCORE=2 if clean else 1), cases["t1core"])
    kinds = [w["kind"] for w in rr.warnings]
    assert kinds == ([] if clean else ["dcache_dirty"]), rr.warnings
    if not clean:
        assert "core 0" in rr.warnings[0]["message"], rr.warnings
