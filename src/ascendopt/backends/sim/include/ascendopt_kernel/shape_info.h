// AscendOptimizer simulator: ShapeInfo and DataFormat (a tensor's shape record, AscendC docs:
// ShapeInfo, LocalTensor/GlobalTensor SetShapeInfo / GetShapeInfo, GetShapeSize). Bookkeeping
// only: the emulated APIs take their shapes from their own arguments and tilings.
#pragma once
#include <cstdint>
#include "ascendopt_kernel/types.h"

namespace AscendC {
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC };
constexpr int K_MAX_DIM = 8;

struct ShapeInfo {
    __aicore__ inline ShapeInfo() {}
    __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[],
                                const uint8_t inputOriginalShapeDim, const uint32_t inputOriginalShape[],
                                const DataFormat inputFormat)
        : shapeDim(Clamp(inputShapeDim)), originalShapeDim(Clamp(inputOriginalShapeDim)), dataFormat(inputFormat) {
        for (int i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (int i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
    }
    __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_DIM] = {};
    uint32_t originalShape[K_MAX_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;

private:
    static constexpr uint8_t Clamp(uint8_t d) { return d > K_MAX_DIM ? uint8_t(K_MAX_DIM) : d; }
};

__aicore__ inline int GetShapeSize(const ShapeInfo& shapeInfo) {
    int n = 1;
    for (int i = 0; i < shapeInfo.shapeDim; ++i) n *= int(shapeInfo.shape[i]);
    return n;
}
}  // namespace AscendC
