// AscendOptimizer simulator: TransDataTo5HD (vector-unit transpose of 16 data blocks per repeat,
// NCHW -> NC1HWC0 or plain matrix transposes), in every documented call form plus the
// TransDataTo5HDImpl form kernels call with __ubuf__ pointer lists. Clean-room emulation of the
// documented semantics:
//   - each repeat reads 16 source blocks of 32 bytes (srcList[i]) and writes 16 destination blocks
//     (dstList[j]); the 16 sources form a 16 x E matrix (row i = block i) that is transposed and
//     laid out row after row over the destination blocks: b16 dst block j = element j of every
//     source; b32 dst blocks 2j / 2j+1 = element j of sources 0-7 / 8-15; b8 uses one half of each
//     source block (srcHighHalf) and fills one half of each destination block (dstHighHalf);
//   - repeat r adds r * repStride blocks to every address, except that with repeatTimes == 1 the
//     single repeat already starts one stride further (the documented offset rule); repeatTimes 0
//     is a no-op;
//   - every address is a UB byte address, 32-byte aligned; the whole repeat is read before it is
//     written.
// Timed as one vector instruction of repeatTimes repeats (VecElementwise, like Copy).
#pragma once
#include <algorithm>
#include <vector>

#include "ascendopt_kernel/vector_core.h"

namespace AscendC {

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    __aicore__ TransDataTo5HDParams() = default;
    __aicore__ TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                    const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace ao::k {

// Byte ranges of the blocks an instruction touches, merged into at most `keep` ranges (the
// smallest gaps closed first) so that the race checker sees them within an instruction's
// access slots.
inline void AddBlockRanges(ao::rt::Instr& ins, std::vector<std::pair<uint64_t, uint64_t>>& r, bool write,
                           size_t keep) {
    if (r.empty()) return;
    std::sort(r.begin(), r.end());
    std::vector<std::pair<uint64_t, uint64_t>> m;
    for (const auto& x : r) {
        if (!m.empty() && x.first <= m.back().second) m.back().second = std::max(m.back().second, x.second);
        else m.push_back(x);
    }
    while (m.size() > keep) {
        size_t best = 0;
        for (size_t i = 1; i + 1 < m.size(); ++i)
            if (m[i + 1].first - m[i].second < m[best + 1].first - m[best].second) best = i;
        m[best].second = m[best + 1].second;
        m.erase(m.begin() + long(best) + 1);
    }
    for (const auto& x : m) ins.Add({ao::rt::Space::UB, x.first, x.second, write});
}

// Owning-buffer bounds of the blocks when the lists were given as LocalTensors.
struct BlockBounds {
    uint64_t begin[16];
    uint64_t end[16];
};

template <typename T>
inline void TransDataRun(const char* name, const uint64_t dstIn[16], const uint64_t srcIn[16],
                         const AscendC::TransDataTo5HDParams& p, const BlockBounds* dstB = nullptr,
                         const BlockBounds* srcB = nullptr) {
    uint64_t dstAddr[16], srcAddr[16];  // UB byte addresses (the lists hold GetPhyAddr values)
    for (int i = 0; i < 16; ++i) {
        dstAddr[i] = LocalAddr(dstIn[i], ao::rt::Space::UB);
        srcAddr[i] = LocalAddr(srcIn[i], ao::rt::Space::UB);
    }
    constexpr uint32_t es = sizeof(T);
    if constexpr (es != 1 && es != 2 && es != 4) AoUnsupported(name, TypeName<T>());
    const uint32_t R = p.repeatTimes;
    if (R == 0) return;  // documented no-op
    const uint64_t cap = ao::rt::Cur().cap[int(ao::rt::Space::UB)];
    uint8_t* ub = ao::rt::Cur().mem[int(ao::rt::Space::UB)];
    auto at = [&](uint32_t r, uint16_t stride, uint64_t base) {
        return base + uint64_t(R == 1 ? 1 : r) * stride * 32u;
    };
    // Checks first: alignment of the lists, every block inside UB (or its tensor's buffer).
    std::vector<std::pair<uint64_t, uint64_t>> rd, wr;
    for (int i = 0; i < 16; ++i) {
        if (srcAddr[i] % 32 != 0 || dstAddr[i] % 32 != 0)
            ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "%s: %s address %llu of list entry %d is not 32-byte aligned",
                         name, srcAddr[i] % 32 ? "source" : "destination",
                         (unsigned long long)(srcAddr[i] % 32 ? srcAddr[i] : dstAddr[i]), i);
    }
    for (uint32_t r = 0; r < R; ++r)
        for (int i = 0; i < 16; ++i) {
            uint64_t s = at(r, p.srcRepStride, srcAddr[i]), d = at(r, p.dstRepStride, dstAddr[i]);
            uint64_t sLo = srcB ? srcB->begin[i] : 0, sHi = srcB ? std::min(srcB->end[i], cap) : cap;
            uint64_t dLo = dstB ? dstB->begin[i] : 0, dHi = dstB ? std::min(dstB->end[i], cap) : cap;
            if (s < sLo || s + 32 > sHi || d < dLo || d + 32 > dHi) {
                bool src = s < sLo || s + 32 > sHi;
                ao::rt::Fail(ao::rt::ErrorKind::LocalOutOfBounds,
                             "%s: repeat %u %s block %d at UB [%llu, %llu) is outside %s [%llu, %llu)", name, r,
                             src ? "source" : "destination", i, (unsigned long long)(src ? s : d),
                             (unsigned long long)((src ? s : d) + 32), (src ? srcB : dstB) ? "its buffer" : "UB",
                             (unsigned long long)(src ? sLo : dLo), (unsigned long long)(src ? sHi : dHi));
            }
            rd.push_back({s, s + 32});
            wr.push_back({d, d + 32});
        }
    ao::rt::Instr ins = VecInstr(name, ao::rt::OpClass::VecElementwise, es, R, uint64_t(R) * 512 / es);
    AddBlockRanges(ins, wr, true, 2);
    AddBlockRanges(ins, rd, false, 2);
    ao::rt::Issue(ins);
    // Row i of the source matrix is block i (E elements; b8: one 16-byte half); the transposed
    // matrix is written row after row over the destination blocks (b8: into one half each).
    const uint32_t E = es == 1 ? 16 : 32 / es;
    const uint32_t srcOff = es == 1 && p.srcHighHalf ? 16 : 0;
    const uint32_t dstOff = es == 1 && p.dstHighHalf ? 16 : 0;
    const uint32_t perDst = es == 1 ? 16 : 32 / es;  // elements of a transposed row per dst block
    for (uint32_t r = 0; r < R; ++r) {
        T tmp[16 * 16];
        for (uint32_t i = 0; i < 16; ++i) {
            const T* s = reinterpret_cast<const T*>(ub + at(r, p.srcRepStride, srcAddr[i]) + srcOff);
            for (uint32_t j = 0; j < E; ++j) tmp[j * 16 + i] = s[j];  // transposed: E rows of 16
        }
        for (uint32_t k = 0; k < E * 16; ++k) {
            uint32_t blk = k / perDst, pos = k % perDst;
            T* d = reinterpret_cast<T*>(ub + at(r, p.dstRepStride, dstAddr[blk]) + dstOff);
            d[pos] = tmp[k];
        }
    }
}

template <typename T>
inline void TensorBlocks(const AscendC::LocalTensor<T> (&l)[16], uint64_t addr[16], BlockBounds& b,
                         const char* name) {
    for (int i = 0; i < 16; ++i) {
        if (l[i].Space() != ao::rt::Space::UB)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: list entry %d is a %s tensor, not UB", name, i,
                         ao::rt::SpaceName(l[i].Space()));
        l[i].CheckBytes(l[i].off_, l[i].off_, name);  // allocated
        addr[i] = l[i].off_;
        b.begin[i] = l[i].buf_begin_;
        b.end[i] = l[i].buf_end_;
    }
}

}  // namespace ao::k

namespace AscendC {

// Address lists (GetPhyAddr values of UB tensors).
template <typename T>
__aicore__ inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE],
                                      uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                                      const TransDataTo5HDParams& nchwconvParams) {
    ao::k::TransDataRun<T>("TransDataTo5HD", dstList, srcList, nchwconvParams);
}

// LocalTensor lists.
template <typename T>
__aicore__ inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                                      const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                                      const TransDataTo5HDParams& nchwconvParams) {
    uint64_t d[16], s[16];
    ao::k::BlockBounds db, sb;
    ao::k::TensorBlocks(dstList, d, db, "TransDataTo5HD");
    ao::k::TensorBlocks(srcList, s, sb, "TransDataTo5HD");
    ao::k::TransDataRun<T>("TransDataTo5HD", d, s, nchwconvParams, &db, &sb);
}

// uint64_t tensors holding the 16 addresses each; T is the data type moved.
template <typename T>
__aicore__ inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                                      const TransDataTo5HDParams& nchwconvParams) {
    uint64_t d[16], s[16];
    dst.CheckBytes(dst.off_, dst.off_ + 16 * sizeof(uint64_t), "TransDataTo5HD");
    src.CheckBytes(src.off_, src.off_ + 16 * sizeof(uint64_t), "TransDataTo5HD");
    for (int i = 0; i < 16; ++i) {
        d[i] = dst.Data()[i];
        s[i] = src.Data()[i];
    }
    ao::k::TransDataRun<T>("TransDataTo5HD", d, s, nchwconvParams);
}

// The form with UB pointer lists (each pointer's value is its UB address, as GetPhyAddr gives).
template <typename T>
__aicore__ inline void TransDataTo5HDImpl(__ubuf__ T* dstList[NCHW_CONV_ADDR_LIST_SIZE],
                                          __ubuf__ T* srcList[NCHW_CONV_ADDR_LIST_SIZE],
                                          const TransDataTo5HDParams& nchwconvParams) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {
        d[i] = reinterpret_cast<uint64_t>(dstList[i]);
        s[i] = reinterpret_cast<uint64_t>(srcList[i]);
    }
    ao::k::TransDataRun<T>("TransDataTo5HD", d, s, nchwconvParams);
}
template <typename T>
__aicore__ inline void TransDataTo5HDImpl(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE],
                                          uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                                          const TransDataTo5HDParams& nchwconvParams) {
    ao::k::TransDataRun<T>("TransDataTo5HD", dstList, srcList, nchwconvParams);
}

}  // namespace AscendC
