// AscendOptimizer simulator: declarations of the Matmul tiling classes (ascendopt_host/matmul_tiling.h)
// for translation units that name them without using them: the kernel build includes operators'
// tiling headers for their structs, and host classes declared there take
// `matmul_tiling::MatmulApiTilingBase&` parameters (quant_batch_matmul_v3's InitTilingData).
// The definitions stay host-only.
#pragma once

namespace matmul_tiling {
class MatmulApiTilingBase;
class MatmulApiTiling;
class MultiCoreMatmulTiling;
class BatchMatmulTiling;
}  // namespace matmul_tiling
