// names: kMaxBlocks=MAX_CORES cfg_tile=TILE_ELEMS n_vec=coreNum
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
constexpr uint32_t cfg_tile = 256;
constexpr uint32_t kMaxBlocks = 1;   // 0: no limit

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t n_vec = platform.GetCoreNumAiv();
    if (kMaxBlocks != 0 && n_vec > kMaxBlocks) n_vec = kMaxBlocks;
    uint32_t perCore = (total + n_vec - 1) / n_vec;
    perCore = (perCore + 15) / 16 * 16;
    n_vec = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(cfg_tile);
    context->SetBlockDim(n_vec);
