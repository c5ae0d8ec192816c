"""SetDataPtr binds a tiling object to a buffer, as CANN's TilingDef keeps its data there: set_
calls (also on a nested struct's fields) write through, and GetDataSize brings the buffer up to
date with fields assigned directly (quant_batch_matmul_v3 binds its tiling data to the raw tiling
buffer and never calls SaveToBuffer)."""

from __future__ import annotations

from .compile_run import compile_and_run

PROGRAM = r"""
#include <cstdio>
#include <cstring>
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(InnerLike)
  TILING_DATA_FIELD_DEF(uint32_t, x);
  TILING_DATA_FIELD_DEF(uint32_t, y);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(OuterLike)
  TILING_DATA_FIELD_DEF(uint32_t, a);
  TILING_DATA_FIELD_DEF_STRUCT(InnerLike, inner);
  TILING_DATA_FIELD_DEF(uint32_t, b);
END_TILING_DATA_DEF;
}
int main() {
    alignas(8) unsigned char raw[64];
    std::memset(raw, 0xff, sizeof(raw));
    optiling::OuterLike t;
    t.SetDataPtr(raw);
    t.set_a(7);
    t.inner.set_y(9);
    t.b = 11;  // not through set_: the buffer has it after GetDataSize
    uint32_t before[6], after[6];
    std::memcpy(before, raw, 24);
    size_t n = t.GetDataSize();
    std::memcpy(after, raw, 24);
    std::printf("%zu %u %u %u %u %u\n", n, before[0], before[3], before[4], after[4], after[3]);
    return 0;
}
"""


def test_set_data_ptr_writes_through(tmp_path):
    out = compile_and_run(tmp_path, PROGRAM).split()
    # a at 0, inner at 8 (x 8, y 12), b at 16: 24 bytes. a and inner.y are in the buffer at once,
    # b once GetDataSize ran.
    assert out == ["24", "7", "9", "0", "11", "9"], out
