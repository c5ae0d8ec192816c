// AscendOptimizer simulator (host side): high-level API tiling entry header. The matmul /
// softmax tiling helpers (TCubeTiling & co.) are not emulated; this pulls in what tiling
// code usually expects from it.
#pragma once
#include "graph/types.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
