// AscendOptimizer simulator (host side).
#pragma once
#include "tiling/tiling_api.h"
