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
#include "ascendopt_kernel/intrinsics.h"
#include "ascendopt_kernel/init.h"
#include "ascendopt_kernel/copy.h"
#include "ascendopt_kernel/gather_mask.h"
#include "ascendopt_kernel/vector_misc.h"
#include "ascendopt_kernel/broadcast.h"
#include "ascendopt_kernel/vector_math_ext.h"
#include "ascendopt_kernel/transdata.h"
#include "ascendopt_kernel/sort.h"
#include "ascendopt_kernel/tensor_expr.h"
#include "ascendopt_kernel/select_bytes.h"
#include "ascendopt_kernel/sum_arange.h"
#include "ascendopt_kernel/mean.h"
#include "ascendopt_kernel/cce_vector.h"
#include "ascendopt_kernel/softmax.h"
#include "ascendopt_kernel/softmax_grad.h"
#include "ascendopt_kernel/softmax_flash.h"
#include "ascendopt_kernel/scalar_cast.h"
#include "ascendopt_kernel/gatherb.h"
#include "ascendopt_kernel/cross_core.h"
#include "ascendopt_kernel/stack_buffer.h"
#include "ascendopt_kernel/impl_ptr_forms.h"
#include "ascendopt_kernel/slice_copy.h"
#include "ascendopt_kernel/utils_constants.h"
#include "ascendopt_kernel/utils_structs.h"
#include "ascendopt_kernel/event_sync.h"
#include "ascendopt_kernel/block_local.h"
#include "ascendopt_kernel/cce_copy_align.h"

// Names the device toolchain declares at global scope (kernels call them unqualified without
// `using namespace AscendC`).
using AscendC::GetTPipePtr;
