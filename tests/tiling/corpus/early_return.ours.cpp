// the same program as early_return.theirs.cpp with the names ops/ use
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
constexpr uint32_t TILE_ELEMS = 2048;
constexpr uint32_t MAX_CORES = 6;

static uint32_t ClampCores(uint32_t coreNum)
{
    if (coreNum > MAX_CORES) {
        return MAX_CORES;
    }
    return coreNum;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t usedCores = ClampCores(platform.GetCoreNumAiv());
    uint32_t perCore = (total + usedCores - 1) / usedCores;
    perCore = (perCore + 15) / 16 * 16;
    usedCores = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(TILE_ELEMS);
    context->SetBlockDim(usedCores);
