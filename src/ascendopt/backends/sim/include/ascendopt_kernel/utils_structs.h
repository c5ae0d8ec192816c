// AscendOptimizer simulator: parameter structs of library APIs that kernels declare and pass
// around even where the simulator does not provide the API itself (DropOutShapeInfo of DropOut:
// height, source width and mask width in elements; ReduceLastND; AntiQuantShapeInfo and the
// AscendAntiQuant forms, which fail as Unsupported). Clean-room, from the documented fields.
#pragma once
#include <cstdint>

#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/tensor.h"
#include "ascendopt_kernel/types.h"

namespace AscendC {

struct DropOutShapeInfo {
    __aicore__ DropOutShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

// The row / column counts of the last-axis reduction the softmax family performs (source as
// given and as padded, destination).
struct ReduceLastND {
    uint32_t originalSrcM;
    uint32_t originalSrcK;
    uint32_t srcM;
    uint32_t srcK;
    uint32_t dstM;
    uint32_t dstK;
};

// AscendAntiQuant's shapes of its offset and scale tensors (0: taken from the tensors).
struct AntiQuantShapeInfo {
    uint32_t offsetHeight{0};
    uint32_t offsetWidth{0};
    uint32_t scaleHeight{0};
    uint32_t scaleWidth{0};
};

// AscendAntiQuant (dst = (src + offset) * scale, int8 / int4 source): not emulated. Its forms are
// declared so that kernels naming it compile; a kernel that calls one stops with Unsupported.
template <typename InputDataType, typename OutputDataType, bool isTranspose, typename... Args>
__aicore__ inline void AscendAntiQuant(const LocalTensor<OutputDataType>&, const LocalTensor<InputDataType>&,
                                       Args&&...) {
    ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "AscendAntiQuant is not emulated");
}

}  // namespace AscendC
