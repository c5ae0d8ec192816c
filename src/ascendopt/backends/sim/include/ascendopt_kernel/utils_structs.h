// AscendOptimizer simulator: parameter structs of library APIs that kernels declare and pass
// around even where the simulator does not provide the API itself (DropOutShapeInfo of DropOut:
// height, source width and mask width in elements). Clean-room, from the documented fields.
#pragma once
#include <cstdint>

#include "ascendopt_kernel/types.h"

namespace AscendC {

struct DropOutShapeInfo {
    __aicore__ DropOutShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

}  // namespace AscendC
