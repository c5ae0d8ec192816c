// AscendOptimizer simulator (host side).
#pragma once
#include "graph/types.h"
#include "graph/ascend_string.h"
