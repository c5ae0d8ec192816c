// AscendOptimizer simulator: the fields of SoftMaxTiling (the documented order; every field a
// uint32_t), one list for the kernel struct (softmax.h) and the host tiling class
// optiling::SoftMaxTiling (ascendopt_host/softmax_tiling.h): the host's bytes read back here.
#pragma once
#define AO_SOFTMAX_TILING_FIELDS(X)                                                                 \
    X(srcM) X(srcK) X(srcSize) X(outMaxM) X(outMaxK) X(outMaxSize) X(splitM) X(splitK) X(splitSize) \
    X(reduceM) X(reduceK) X(reduceSize) X(rangeM) X(tailM) X(tailSplitSize) X(tailReduceSize)
