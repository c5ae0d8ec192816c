// AscendOptimizer simulator: the high-level Matmul API entry header (kernel side).
#pragma once
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "ascendopt_kernel/matmul.h"
