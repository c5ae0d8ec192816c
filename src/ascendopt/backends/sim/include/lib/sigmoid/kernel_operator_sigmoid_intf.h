// AscendOptimizer simulator: the math library API header (the APIs are in kernel_operator.h).
#pragma once
#include "kernel_operator.h"
