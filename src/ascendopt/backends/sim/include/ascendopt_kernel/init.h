// AscendOptimizer simulator: InitGlobalMemory / InitOutput (fill `size` elements of a GM tensor
// with one value). Clean-room emulation.
//
// The library fills a UB scratch block with Duplicate and copies it out repeatedly; the emulation
// issues that work as one vector fill (one repeat per 256 bytes of the scratch block) and one
// MTE3 copy-out of the whole range, so the cost follows the same DMA and vector models as
// Duplicate + DataCopy. The scratch block is library-internal, so it is not a UB access of the
// kernel's buffers. The GM range is checked like any write; the kernel must order later reads
// of it (MTE3 -> MTE2 flag, or SyncAll across cores) as on the device.
#pragma once
#include "ascendopt_kernel/datacopy.h"

namespace ao::k {

template <typename T>
inline void FillGm(const char* name, const GlobalTensor<T>& gm, uint64_t size, T value) {
    if (size == 0) return;
    uint8_t* g = reinterpret_cast<uint8_t*>(gm.addr_);
    uint64_t bytes = size * sizeof(T);
    ao::rt::CheckGm(g, bytes, name);
    // Scratch block: up to 16 KiB of UB, reused for every chunk.
    uint64_t scratch = bytes < 16384 ? (bytes + 31) / 32 * 32 : 16384;
    ao::rt::Instr fill = VecInstr(name, ao::rt::OpClass::VecElementwise, sizeof(T),
                                  uint32_t((scratch + ONE_REPEAT_BYTE_SIZE - 1) / ONE_REPEAT_BYTE_SIZE),
                                  scratch / sizeof(T));
    ao::rt::Issue(fill);
    ao::rt::Instr out;
    out.name = name;
    out.pipe = ao::rt::Pipe::MTE3;
    out.cls = ao::rt::OpClass::CopyOut;
    out.dtype_bytes = sizeof(T);
    out.bytes = bytes;
    out.bursts = uint32_t((bytes + scratch - 1) / scratch);
    out.burst_bytes = scratch;
    out.gm_addr = reinterpret_cast<uint64_t>(g);
    out.Add({ao::rt::Space::GM, out.gm_addr, out.gm_addr + bytes, true});
    ao::rt::Issue(out);
    uint8_t* gd = ao::rt::GmData(g);  // GM as the API reaches it (gm_guard.cpp)
    for (uint64_t i = 0; i < size; ++i) StoreGm(gd + i * sizeof(T), reinterpret_cast<const uint8_t*>(&value), sizeof(T));
}

}  // namespace ao::k

namespace AscendC {

template <typename T>
__aicore__ inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value) {
    ao::k::FillGm("InitGlobalMemory", gmWorkspaceAddr, size, value);
}
template <typename T>
__aicore__ inline void InitOutput(GlobalTensor<T> gm, uint64_t size, ao::k::AoId<T> value = T(0)) {
    ao::k::FillGm("InitOutput", gm, size, value);
}

}  // namespace AscendC
