"""The kernel build includes an operator's tiling headers for their structs; a host class
declared there may take `matmul_tiling::MatmulApiTilingBase&` (quant_batch_matmul_v3's
InitTilingData). tiling/tiling_api.h declares the Matmul tiling classes on both sides (defined on
the host only), so such a header compiles in kernel mode too; before, it did not."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR

HEADER_USE = r"""
#include "tiling/tiling_api.h"
struct QuantLikeTiling {
    int InitTilingData(matmul_tiling::MatmulApiTilingBase& mm, bool fallback = false);
    int Batch(matmul_tiling::BatchMatmulTiling* bmm);
};
int main() { return 0; }
"""


@pytest.mark.parametrize("kernel_side", [True, False])
def test_tiling_classes_declared_on_both_sides(tmp_path, kernel_side):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = tmp_path / "use.cpp"
    src.write_text(("#define ASCENDOPT_KERNEL_SIDE 1\n" if kernel_side else "") + HEADER_USE)
    res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{INCLUDE_DIR}", str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
