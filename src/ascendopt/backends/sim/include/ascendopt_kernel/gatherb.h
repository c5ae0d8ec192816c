// AscendOptimizer simulator: Gatherb (gathers whole 32-byte data blocks of src by byte offsets).
// Clean-room emulation of the documented semantics: repeat i moves 8 blocks; block j of repeat i
// is the 32 bytes at src + offset[i * 8 + j] (bytes, a 32-byte multiple, inside UB) and lands at
// dst + (i * dstRepStride + j * dstBlkStride) blocks (a dstBlkStride of 0 counts as 1). uint16_t /
// uint32_t on this core; src and dst may not be the same memory. Timed as a gather-class vector
// instruction of repeatTime repeats.
#pragma once
#include <vector>

#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/datacopy.h"

namespace AscendC {

template <typename T>
__aicore__ inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                               const uint8_t repeatTime, const GatherRepeatParams& repeatParams) {
    const char* name = "Gatherb";
    if constexpr (!std::is_same_v<T, uint16_t> && !std::is_same_v<T, uint32_t>)
        ao::k::AoUnsupported(name, ao::k::TypeName<T>());
    const uint32_t R = repeatTime;
    if (R == 0) return;
    ao::k::CheckLocalAligned(dst, name);
    ao::k::CheckLocalAligned(src, name);
    ao::k::CheckLocalAligned(offset, name);
    if (dst.base_ == src.base_ && dst.off_ == src.off_)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Gatherb: source and destination are the same memory");
    const uint64_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
    const uint64_t cap = ao::rt::Cur().cap[int(ao::rt::Space::UB)];
    ao::rt::Access oA = offset.Range(0, uint64_t(R) * 8, false, name);
    uint64_t dLo = ~0ull, dHi = 0, sLo = ~0ull, sHi = 0;
    std::vector<uint8_t> moved(uint64_t(R) * 8 * 32);
    for (uint32_t i = 0; i < R; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            uint64_t off = offset.Data()[i * 8 + j];
            uint64_t s = src.off_ + off;
            if (off % 32 != 0)
                ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "Gatherb: offset %llu of block %u is not 32-byte aligned",
                             (unsigned long long)off, i * 8 + j);
            if (s + 32 > cap)
                ao::rt::Fail(ao::rt::ErrorKind::LocalOutOfBounds,
                             "Gatherb: block %u at UB [%llu, %llu) is outside UB (%llu bytes)", i * 8 + j,
                             (unsigned long long)s, (unsigned long long)(s + 32), (unsigned long long)cap);
            uint64_t d = (uint64_t(i) * repeatParams.dstRepStride + j * blk) * 32;
            dLo = std::min(dLo, d);
            dHi = std::max(dHi, d + 32);
            sLo = std::min(sLo, s);
            sHi = std::max(sHi, s + 32);
            std::memcpy(&moved[(uint64_t(i) * 8 + j) * 32], src.base_ + s, 32);
        }
    ao::rt::Instr ins = ao::k::VecInstr(name, ao::rt::OpClass::VecGather, sizeof(T), R, uint64_t(R) * 256 / sizeof(T));
    ins.Add(dst.RangeBytes(dLo, dHi - dLo, true, name));
    ins.Add({ao::rt::Space::UB, sLo, sHi, false});
    ins.Add(oA);
    ao::rt::Issue(ins);
    uint8_t* D = reinterpret_cast<uint8_t*>(dst.Data());
    for (uint32_t i = 0; i < R; ++i)
        for (uint32_t j = 0; j < 8; ++j)
            std::memcpy(D + (uint64_t(i) * repeatParams.dstRepStride + j * blk) * 32, &moved[(uint64_t(i) * 8 + j) * 32],
                        32);
}

}  // namespace AscendC
