// names: LIMIT=maxCoreNum slack=ubReserveBytes depth=bufferNum n_vec=coreNum ub=ubSize cap=tileLength
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t n_vec = platform.GetCoreNumAiv();
    // # evolve_tiling_block_start
    uint32_t LIMIT = 8;
    uint32_t slack = 1024;
    uint32_t depth = 2;
    // # evolve_tiling_block_end
    n_vec = n_vec > LIMIT ? LIMIT : n_vec;
    uint32_t perCore = (total + n_vec - 1) / n_vec;
    perCore = (perCore + 15) / 16 * 16;
    n_vec = (total + perCore - 1) / perCore;
    uint32_t cap = static_cast<uint32_t>((ub - slack) / depth / 3 / sizeof(uint16_t)) / 16 * 16;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(cap < perCore ? cap : perCore);
    context->SetBlockDim(n_vec);
