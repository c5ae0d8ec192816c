// AscendOptimizer simulator: clean-room emulation of the AscendC kernel API for g++.
#pragma once
#include <cstdio>
#include "ascendopt_kernel/types.h"
#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/tensor.h"
#include "ascendopt_kernel/sync.h"
#include "ascendopt_kernel/datacopy.h"
#include "ascendopt_kernel/vector.h"
#include "ascendopt_kernel/cube.h"
#include "ascendopt_kernel/tcube_tiling.h"  // the device build sees kernel_tiling.h's structs everywhere
#include "ascendopt_kernel/list_tensor.h"

// Names the device toolchain declares at global scope (kernels call them unqualified without
// `using namespace AscendC`).
using AscendC::GetTPipePtr;
