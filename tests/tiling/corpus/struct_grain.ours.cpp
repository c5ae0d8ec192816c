// the same program as struct_grain.theirs.cpp with the names ops/ use
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
struct TilingKnobs {
    static constexpr uint32_t maxCoreNum = 4;
    static constexpr uint32_t tileLength = 512;
    static constexpr uint32_t minElemsPerCore = 4096;
};

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t usedCores = (total + TilingKnobs::minElemsPerCore - 1) / TilingKnobs::minElemsPerCore;
    usedCores = std::min(usedCores, coreNum);
    usedCores = std::min(usedCores, TilingKnobs::maxCoreNum);
    usedCores = usedCores > 0 ? usedCores : 1;
    uint32_t perCore = (total + usedCores - 1) / usedCores;
    perCore = (perCore + 15) / 16 * 16;
    usedCores = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(TilingKnobs::tileLength);
    context->SetBlockDim(usedCores);
