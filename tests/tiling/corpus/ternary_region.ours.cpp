// the same program as ternary_region.theirs.cpp with the names ops/ use
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = platform.GetCoreNumAiv();
    // # evolve_tiling_block_start
    uint32_t maxCoreNum = 8;
    uint32_t ubReserveBytes = 1024;
    uint32_t bufferNum = 2;
    // # evolve_tiling_block_end
    coreNum = coreNum > maxCoreNum ? maxCoreNum : coreNum;
    uint32_t perCore = (total + coreNum - 1) / coreNum;
    perCore = (perCore + 15) / 16 * 16;
    coreNum = (total + perCore - 1) / perCore;
    uint32_t tileLength = static_cast<uint32_t>((ubSize - ubReserveBytes) / bufferNum / 3 / sizeof(uint16_t)) / 16 * 16;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(tileLength < perCore ? tileLength : perCore);
    context->SetBlockDim(coreNum);
