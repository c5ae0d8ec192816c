// AscendOptimizer simulator: the matmul tiling structure as the kernel sees it
// (AscendC::tiling::TCubeTiling, also exported at global scope as CANN's generated
// kernel_tiling.h does). Every field is an int32_t; the order is the documented one, so the
// bytes written by the host class optiling::TCubeTiling (ascendopt_host/matmul_tiling.h, same
// fields in the same order) read back field by field here. Plain C++: host and kernel
// translation units both include it.
// The list ends with BatchNum (49 fields, cann-ops is built against CANN 8.1.RC1; the newest
// asc-devkit header appends mxTypePara). Like every tiling class (register/tilingdata_base.h) it
// is 8-byte aligned and padded: 200 bytes, so tiling data holding it stays a multiple of 8 bytes
// (mat_mul_v3 and quant_batch_matmul_v3 check: 'tiling data size ... is not aligned to 8').
#pragma once
#include <cstdint>

// One list of the fields for both sides: X(name).
#define AO_TCUBE_TILING_FIELDS(X)                                                                    \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM)       \
    X(baseN) X(baseK) X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength)               \
    X(iterateOrder) X(shareMode) X(shareL1Size) X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN)   \
    X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb) X(depthAL1CacheUB) X(depthBL1CacheUB)        \
    X(dbL0A) X(dbL0B) X(dbL0C) X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) X(ALayoutInfoG)      \
    X(ALayoutInfoD) X(BLayoutInfoB) X(BLayoutInfoS) X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD)  \
    X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG) X(CLayoutInfoS2) X(BatchNum)

namespace AscendC {
namespace tiling {
#define AO_TCUBE_KERNEL_FIELD(name) int32_t name = 0;
struct alignas(8) TCubeTiling {  // as the host class (tilingdata_base.h): 8-aligned, 200 bytes
    AO_TCUBE_TILING_FIELDS(AO_TCUBE_KERNEL_FIELD)
};
#undef AO_TCUBE_KERNEL_FIELD
}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::TCubeTiling;
