"""End-to-end: the basic-API matmul operator (ops/level3/matmul_custom) passes all its cases on sim."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
OP = ROOT / "ops" / "level3" / "matmul_custom"


def test_matmul_custom_all_cases():
    exe = shutil.which("ascendopt")
    if exe is None:
        pytest.skip("ascendopt CLI not installed")
    res = subprocess.run([exe, "run", str(OP), "--json"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    report = json.loads(res.stdout)
    bad = [c for c in report["cases"] if c["status"] != "ok"]
    assert not bad, bad
    assert report["passed"] == len(report["cases"]) >= 6
    multi = [c for c in report["cases"] if "multicore" in c["name"]]
    assert multi and multi[0]["block_dim"] > 1
