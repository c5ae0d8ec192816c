// names: knobs=tiling_cfg LIMIT=MAX_CORE_NUM CHUNK=TILE_LENGTH n_vec=coreNum per_blk=perCore
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
namespace knobs {
constexpr uint32_t LIMIT = 8;
constexpr uint32_t CHUNK = 1024;
}  // namespace knobs

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t n_vec = std::min<uint32_t>(platform.GetCoreNumAiv(), knobs::LIMIT);
    uint32_t per_blk = (total + n_vec - 1) / n_vec;
    per_blk = (per_blk + 15) / 16 * 16;
    n_vec = (total + per_blk - 1) / per_blk;
    tiling.set_totalLength(total);
    tiling.set_perCore(per_blk);
    tiling.set_tileLength(knobs::CHUNK);
    context->SetBlockDim(n_vec);
