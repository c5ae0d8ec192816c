// names: Cfg=TilingKnobs kMaxBlocks=maxCoreNum kTile=tileLength kMinShare=minElemsPerCore n_vec=coreNum want=usedCores
#include "naive_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

namespace optiling {
struct Cfg {
    static constexpr uint32_t kMaxBlocks = 4;
    static constexpr uint32_t kTile = 512;
    static constexpr uint32_t kMinShare = 4096;
};

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NaiveAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t n_vec = platform.GetCoreNumAiv();
    uint32_t want = (total + Cfg::kMinShare - 1) / Cfg::kMinShare;
    want = std::min(want, n_vec);
    want = std::min(want, Cfg::kMaxBlocks);
    want = want > 0 ? want : 1;
    uint32_t perCore = (total + want - 1) / want;
    perCore = (perCore + 15) / 16 * 16;
    want = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(Cfg::kTile);
    context->SetBlockDim(want);
