// AscendOptimizer simulator (host side): high-level API tiling entry header. The matmul
// tiling API comes from ascendopt_host/matmul_tiling.h (the SoftMax family's from ascendopt_host/softmax_tiling.h); this pulls in what tiling
// code usually expects from it.
#pragma once
#include "graph/types.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "kernel_tiling/kernel_tiling.h"
// Get{Sigmoid,Tanh,Mean}MaxMinTmpSize: self-contained, so also in the kernel build, where tiling
// headers that call them from inline host helpers are included for their structs.
#include "ascendopt_host/math_tmp_size.h"
#include "ascendopt_host/matmul_tiling_types.h"  // matmul_tiling::PlatformInfo & co., likewise
#include "ascendopt_host/matmul_tiling_fwd.h"  // the tiling classes, declared only (also kernel side)
#ifndef ASCENDOPT_KERNEL_SIDE
#include "ascendopt_host/matmul_tiling.h"  // matmul_tiling::MatmulApiTiling & co., optiling::TCubeTiling
#include "ascendopt_host/softmax_tiling.h"  // optiling::SoftMaxTiling, SoftMax*TilingFunc, Get*TmpSize
#include "ascendopt_host/ascendc_constants.h"  // AscendC::BLOCK_CUBE, ONE_BLK_SIZE on the host
#endif
