// AscendOptimizer simulator: the fields of SoftMaxTiling (the documented order; every field a
// uint32_t), one list for the kernel struct (softmax.h) and the host tiling class
// optiling::SoftMaxTiling (ascendopt_host/softmax_tiling.h): the host's bytes read back here.
#pragma once
#define AO_SOFTMAX_TILING_FIELDS(X)                                                                 \
    X(srcM) X(srcK) X(srcSize) X(outMaxM) X(outMaxK) X(outMaxSize) X(splitM) X(splitK) X(splitSize) \
    X(reduceM) X(reduceK) X(reduceSize) X(rangeM) X(tailM) X(tailSplitSize) X(tailReduceSize)

#include <cstdint>

// The simulator's SoftMax-family tiling plan, one for the host tiling functions
// (ascendopt_host/softmax_tiling.h) and the kernel-side ones (softmax_flash.h): the values of the
// fields above, in their order, for m rows of k columns. A row needs `copies` widened float rows
// plus one 32-byte reduction block each; rows go in chunks of splitM that fit
// `localWorkSpaceBytes` (at least one row): rangeM whole chunks and a tail of tailM rows.
namespace ao::softmax {
struct Plan {
    uint32_t v[16] = {};
};
constexpr uint64_t RowBytes(uint64_t k, uint32_t copies) { return copies * (k * 4 + 32); }
constexpr Plan MakePlan(uint64_t m, uint64_t k, uint32_t dataTypeSize, uint64_t localWorkSpaceBytes, uint32_t copies) {
    Plan p{};
    if (m == 0 || k == 0 || dataTypeSize == 0) return p;
    uint64_t split = localWorkSpaceBytes / RowBytes(k, copies);
    split = split < 1 ? 1 : split > m ? m : split;
    const uint64_t block = 32 / dataTypeSize, red = 8, tail = m % split;
    const uint64_t vals[16] = {m,         k,     m * k,    m,          block,     m * block, split, k,
                               split * k, split, red,      split * red, m / split, tail,      tail * k, tail * red};
    for (int i = 0; i < 16; ++i) p.v[i] = uint32_t(vals[i]);
    return p;
}
}  // namespace ao::softmax
