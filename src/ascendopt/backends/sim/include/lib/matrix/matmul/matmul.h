// AscendOptimizer simulator: the toolkit's older path of the high-level Matmul API header
// (lib/matrix/matmul/matmul.h); the API itself is ascendopt_kernel/matmul.h.
#pragma once
#include "lib/matmul_intf.h"
