// AscendOptimizer simulator: CANN's kernel_tiling/kernel_tiling.h, which the toolchain generates
// with the kernel-side tiling structs. Here the op's own tiling headers are already included
// by the kernel wrapper, so this only has to exist (and be includable from host code too).
#pragma once
#include <cstddef>
#include <cstdint>
#include "ascendopt_kernel/tcube_tiling.h"
