// the same program as if_sentinel.theirs.cpp with the names ops/ use
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
constexpr uint32_t TILE_ELEMS = 256;
constexpr uint32_t MAX_CORES = 1;   // 0: no limit

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = platform.GetCoreNumAiv();
    if (MAX_CORES != 0 && coreNum > MAX_CORES) coreNum = MAX_CORES;
    uint32_t perCore = (total + coreNum - 1) / coreNum;
    perCore = (perCore + 15) / 16 * 16;
    coreNum = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(TILE_ELEMS);
    context->SetBlockDim(coreNum);
