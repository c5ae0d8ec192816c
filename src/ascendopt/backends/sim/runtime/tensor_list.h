// AscendOptimizer simulator: the GM image of a tensor list, the kernel argument of an OpDef
// DYNAMIC parameter (the layout AscendC's ListTensorDesc parses, see
// include/ascendopt_kernel/list_tensor.h). In 64-bit little-endian words:
//
//   word 0                 ptrOffset: byte offset from the start to the data-pointer array
//   per tensor i, in order one word: dim (low 32 bits) | i (high 32 bits), then dim words of shape
//   then                   one data address per tensor, in order
//
// Kernels that walk this image themselves (word 0, then the address array) read the same thing.
#pragma once
#include <cstdint>
#include <vector>

namespace ao::rt {

struct ListEntry {
    const uint8_t* data = nullptr;  // the tensor's own GM allocation
    std::vector<int64_t> shape;
};

inline std::vector<uint64_t> TensorListImage(const std::vector<ListEntry>& tensors) {
    uint64_t descs = 1;
    for (const ListEntry& t : tensors) descs += 1 + t.shape.size();
    std::vector<uint64_t> w;
    w.reserve(descs + tensors.size());
    w.push_back(descs * sizeof(uint64_t));
    for (size_t i = 0; i < tensors.size(); ++i) {
        w.push_back(uint64_t(uint32_t(tensors[i].shape.size())) | (uint64_t(uint32_t(i)) << 32));
        for (int64_t d : tensors[i].shape) w.push_back(uint64_t(d));
    }
    for (const ListEntry& t : tensors) w.push_back(reinterpret_cast<uint64_t>(t.data));
    return w;
}

}  // namespace ao::rt
