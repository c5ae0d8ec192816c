// AscendOptimizer simulator (host side).
#pragma once
#include "ascendopt_host/gert.h"
#include "exe_graph/runtime/tiling_data.h"  // as the toolkit's does
