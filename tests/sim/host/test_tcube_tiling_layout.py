"""TCubeTiling's field list is the one cann-ops' tiling data is built against (49 int32 fields, ending
with BatchNum), and tiling classes are laid out as CANN's TilingDef does: a struct field at a
multiple of 8 bytes, every class padded to a multiple of 8. Both mat_mul_v3's MatmulTilingData
(TCubeTiling + 15 uint32 fields in structs of 5) and quant_batch_matmul_v3's (16 uint32, TCubeTiling,
6 uint32) are then multiples of 8 bytes, as their tilings check ('tiling data size[284] is not
aligned to 8' with unpadded structs). Host and kernel see the same layout."""

from __future__ import annotations

from .compile_run import compile_and_run

PROGRAM = r"""
#include <cstdio>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(RunInfoLike)
  TILING_DATA_FIELD_DEF(uint32_t, a); TILING_DATA_FIELD_DEF(uint32_t, b); TILING_DATA_FIELD_DEF(uint32_t, c);
  TILING_DATA_FIELD_DEF(uint32_t, d); TILING_DATA_FIELD_DEF(uint32_t, e);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(MatmulLikeTilingData)
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, matmulTiling);
  TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, l2Tile);
  TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, runInfo);
  TILING_DATA_FIELD_DEF(uint32_t, l2Flag);
  TILING_DATA_FIELD_DEF(uint32_t, baseAN); TILING_DATA_FIELD_DEF(uint32_t, baseAD);
  TILING_DATA_FIELD_DEF(uint32_t, baseBN); TILING_DATA_FIELD_DEF(uint32_t, baseBD);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(QuantLikeTilingData)
  TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, a); TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, b);
  TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, c); TILING_DATA_FIELD_DEF(uint32_t, d);
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, matmulTiling);
  TILING_DATA_FIELD_DEF_STRUCT(RunInfoLike, l2);
END_TILING_DATA_DEF;
}
int main() {
    optiling::MatmulLikeTilingData t;
    optiling::QuantLikeTilingData q;
    std::printf("%zu %zu %zu ", sizeof(optiling::RunInfoLike), q.GetDataSize(),
                reinterpret_cast<char*>(&q.matmulTiling) - reinterpret_cast<char*>(&q));
    optiling::TCubeTiling c;
    c.set_BatchNum(3);
    std::printf("%zu %zu %zu %d\n", sizeof(AscendC::tiling::TCubeTiling), c.GetDataSize(), t.GetDataSize() % 8,
                reinterpret_cast<const AscendC::tiling::TCubeTiling*>(&c)->BatchNum);
    return 0;
}
"""


def test_tcube_tiling_has_49_fields_ending_with_batch_num_in_8_byte_aligned_classes(tmp_path):
    assert compile_and_run(tmp_path, PROGRAM).split() == ["24", "304", "80", "200", "200", "0", "3"]
