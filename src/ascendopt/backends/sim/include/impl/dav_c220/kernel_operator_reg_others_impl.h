// AscendOptimizer simulator: the toolkit's internal header impl/dav_c220/kernel_operator_reg_others_impl.h, which kernels include
// directly. The emulation declares everything it provides through kernel_operator.h.
#pragma once
#include "kernel_operator.h"
