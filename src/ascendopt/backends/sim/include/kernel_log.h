// AscendOptimizer simulator: the toolkit's internal header kernel_log.h, which kernels include
// directly. The emulation declares everything it provides through kernel_operator.h.
#pragma once
#include "kernel_operator.h"
