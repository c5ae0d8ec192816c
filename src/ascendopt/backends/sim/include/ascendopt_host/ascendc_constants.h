// AscendOptimizer simulator (host side): the AscendC constants the toolkit's host tiling API
// headers declare for host code (namespace AscendC; on the host BLOCK_CUBE and ONE_BLK_SIZE are
// uint32_t): the fractal side of the cube unit in elements and the byte size of one data
// block. Matmul tiling code writes `using AscendC::BLOCK_CUBE;` with only tiling/tiling_api.h.
// The kernel side has its own (ascendopt_kernel/types.h); this is included on the host only.
#pragma once
#include <cstdint>

namespace AscendC {
constexpr uint32_t BLOCK_CUBE = 16;
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr int32_t CUBE_MAX_SIZE = 256;
}  // namespace AscendC
