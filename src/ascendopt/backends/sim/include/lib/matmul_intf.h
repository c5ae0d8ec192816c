// AscendOptimizer simulator: the high-level Matmul API entry header (kernel side).
#pragma once
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "ascendopt_kernel/matmul.h"
// Cube-only Matmul (ASCENDC_CUBE_ONLY defined before this header): the kernel runs on AICs alone.
#undef AO_MATMUL_KERNEL_TYPE
#ifdef ASCENDC_CUBE_ONLY
#define AO_MATMUL_KERNEL_TYPE KERNEL_TYPE_AIC_ONLY
#else
#define AO_MATMUL_KERNEL_TYPE KERNEL_TYPE_MIX_AIC_1_2
#endif
namespace ao::k {
template <class T>
struct MmKernelType {
    static constexpr int value = int(AO_MATMUL_KERNEL_TYPE);
};
}  // namespace ao::k
