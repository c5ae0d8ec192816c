"""Header-only libraries that repository tiling code includes come from installed packages:
`<nlohmann/json.hpp>` from PyPI's nlohmann-json (a project dependency), on the host include
path after the simulator's headers, and in the toolchain key."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ascendopt.backends.sim import host_packages
from ascendopt.backends.sim.build import INCLUDE_DIR, SimBuilder

PROGRAM = r"""
#include <cstdio>
#include <nlohmann/json.hpp>
int main() {
    const char* info = R"({"block_dim": {"CORE_NUM": 24}, "binary_mode_flag": true, "sizes": [3, 5]})";
    if (!nlohmann::json::accept(info)) return 1;
    nlohmann::json j = nlohmann::json::parse(info);
    int cores = j["block_dim"]["CORE_NUM"].get<int>();
    bool flag = j.contains("binary_mode_flag") && j["binary_mode_flag"].get<bool>();
    std::printf("%d %d %d\n", cores, int(flag), int(j["sizes"].size()));
    return 0;
}
"""


def test_nlohmann_json_compiles_in_host_code(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    if not host_packages.include_dirs():
        pytest.skip("the nlohmann-json package is not installed (pip install nlohmann-json)")
    b = SimBuilder(cache_dir=tmp_path / "cache", host_pch=False)
    cmd = b.host_compile_cmd(tmp_path / "j.cpp", tmp_path / "j.o")
    inc = str(host_packages.include_dirs()[0])
    assert cmd[cmd.index(inc) - 1] == "-idirafter" and cmd.index(inc) > cmd.index(str(INCLUDE_DIR))
    (tmp_path / "j.cpp").write_text(PROGRAM)
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    subprocess.run(["g++", str(tmp_path / "j.o"), "-o", str(tmp_path / "j")], check=True)
    assert subprocess.run([str(tmp_path / "j")], capture_output=True, text=True).stdout.split() == ["24", "1", "2"]
    assert "nlohmann-json==" in host_packages.describe()
