"""Host tiling code sees the AscendC constants the toolkit's host tiling API declares
(`using AscendC::BLOCK_CUBE;` with only tiling/tiling_api.h: uint32_t 16 and 32 on the host),
ge::TypeUtils::DataTypeToAscendString / FormatToAscendString (proto sources log with them), and
securec's memset_s through exe_graph/runtime/tiling_context.h (the toolkit's tiling_data.h includes it). cann-ops'
quant_batch_matmul_v3 and weight_quant_batch_matmul_v2 tilings use them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR

PROGRAM = r"""
#include <type_traits>
#include "tiling/tiling_api.h"
#include "graph/utils/type_utils.h"
#include "exe_graph/runtime/tiling_context.h"
using AscendC::BLOCK_CUBE;
using AscendC::ONE_BLK_SIZE;
namespace {
constexpr uint64_t kAligned = (uint64_t(37) + BLOCK_CUBE - 1) / BLOCK_CUBE * BLOCK_CUBE;
}
static_assert(kAligned == 48 && ONE_BLK_SIZE == 32 && AscendC::CUBE_MAX_SIZE == 256, "values");
static_assert(std::is_same<std::remove_const_t<decltype(BLOCK_CUBE)>, uint32_t>::value, "host type");
static_assert(std::is_same<decltype(ge::TypeUtils::DataTypeToAscendString(ge::DT_FLOAT)),
                           ge::AscendString>::value, "AscendString");
static_assert(std::is_same<decltype(ge::TypeUtils::FormatToAscendString(ge::FORMAT_ND)),
                           ge::AscendString>::value, "AscendString");
struct Info { int a[4]; };
int Clear(Info& i) { return memset_s(&i, sizeof(i), 0, sizeof(i)); }  // securec through tiling_context.h
int main() { return 0; }
"""


def test_host_constants_and_type_names(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = tmp_path / "c.cpp"
    src.write_text(PROGRAM)
    res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{INCLUDE_DIR}", str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
