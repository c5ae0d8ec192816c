// AscendOptimizer simulator (host side).
#pragma once
#include "ascendopt_host/gert.h"
#include "securec.h"  // as the toolkit's exe_graph/runtime/tiling_data.h does (tiling code calls memset_s with it)
