// AscendOptimizer simulator: element-size and per-block / per-repeat constants that the toolkit's
// kernel headers declare in namespace AscendC and kernels use unqualified (B32_BYTE_SIZE,
// B32_DATA_NUM_PER_BLOCK, B32_DATA_NUM_PER_REPEAT, ...). Values follow from a 32-byte block and a
// 256-byte repeat. The ones other emulation headers already declare are not repeated here.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ascendopt_kernel/types.h"

namespace AscendC {

const int32_t FULL_MASK_LEN = 128;
const int32_t HALF_MASK_LEN = 64;
const int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1;
const int32_t VREDUCE_PER_REP_OUTPUT = 2;
const uint8_t B64_BYTE_SIZE = 8;
const uint8_t B32_BYTE_SIZE = 4;
const uint8_t B16_BYTE_SIZE = 2;
const uint8_t B8_BYTE_SIZE = 1;
const uint8_t B32_DATA_NUM_PER_BLOCK = 8;
const uint8_t B16_DATA_NUM_PER_BLOCK = 16;
const int32_t B16_DATA_NUM_PER_REPEAT = 128;
const int32_t B32_DATA_NUM_PER_REPEAT = 64;
const int32_t VA_REG_ARRAY_LEN = 8;
const uint32_t HALF_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
const uint32_t FLOAT_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
const uint32_t MAX_REPEAT_FLOAT_SIZE = FLOAT_REPEAT_SIZE * MAX_REPEAT_TIMES;
const uint32_t MAX_REPEAT_HALF_SIZE = HALF_REPEAT_SIZE * MAX_REPEAT_TIMES;
// Bytes of the workspace the system reserves ahead of the user's (GetUserWorkspace): 16 MiB on
// Atlas A2 (the SoC file's lib_api_workspace_bytes is what the runtime uses).
constexpr size_t RESERVED_WORKSPACE = 16 * 1024 * 1024;

}  // namespace AscendC
