// AscendOptimizer simulator: the toolkit's older path of the Matmul tiling declarations
// (lib/matrix/matmul/tiling.h): TCubeTiling and the MatmulConfig helpers.
#pragma once
#include "kernel_tiling/kernel_tiling.h"
#include "ascendopt_kernel/matmul_config.h"
