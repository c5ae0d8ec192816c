// the same program as min_namespace.theirs.cpp with the names ops/ use
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
namespace tiling_cfg {
constexpr uint32_t MAX_CORE_NUM = 8;
constexpr uint32_t TILE_LENGTH = 1024;
}  // namespace tiling_cfg

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = std::min<uint32_t>(platform.GetCoreNumAiv(), tiling_cfg::MAX_CORE_NUM);
    uint32_t perCore = (total + coreNum - 1) / coreNum;
    perCore = (perCore + 15) / 16 * 16;
    coreNum = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(tiling_cfg::TILE_LENGTH);
    context->SetBlockDim(coreNum);
