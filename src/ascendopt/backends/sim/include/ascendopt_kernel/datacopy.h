// AscendOptimizer simulator: DataCopy / DataCopyPad between GM and on-chip buffers.
#pragma once
#include "ascendopt_kernel/sync.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;  // number of bursts
    uint16_t blockLen = 0;    // burst length, 32-byte blocks (DataCopyPad: bytes)
    uint16_t srcStride = 0;   // gap between source bursts
    uint16_t dstStride = 0;   // gap between destination bursts
    __aicore__ DataCopyParams() = default;
    __aicore__ DataCopyParams(uint16_t count, uint16_t len, uint16_t srcGap, uint16_t dstGap)
        : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap) {}
};

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;    // bytes
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    __aicore__ DataCopyExtParams() = default;
    // All five fields, as the toolkit's constructor takes them: a four-value brace list is then a
    // DataCopyParams only (DataCopyPad(gm, local, {1, len, 0, 0}) is not ambiguous).
    __aicore__ DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcGap, uint32_t dstGap, uint32_t r)
        : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap), rsv(r) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;   // elements
    uint8_t rightPadding = 0;  // elements
    T paddingValue = T(0);
    __aicore__ DataCopyPadExtParams() = default;
    __aicore__ DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    __aicore__ DataCopyPadParams() = default;
    __aicore__ DataCopyPadParams(bool pad, uint8_t left, uint8_t right, uint64_t value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

}  // namespace AscendC

namespace ao::k {

using namespace AscendC;

inline ao::rt::Pipe LocalCopyPipe(ao::rt::Space dst, ao::rt::Space src) {
    using S = ao::rt::Space;
    if (src == S::UB && dst == S::UB) return ao::rt::Pipe::V;
    if (src == S::L1 && (dst == S::L0A || dst == S::L0B || dst == S::BT)) return ao::rt::Pipe::MTE1;
    if (src == S::UB && dst == S::L1) return ao::rt::Pipe::MTE3;
    if (src == S::L1 && dst == S::UB) return ao::rt::Pipe::MTE1;
    if (src == S::L0C) return ao::rt::Pipe::FIX;
    return ao::rt::Pipe::V;
}

template <typename T>
inline void CheckLocalAligned(const LocalTensor<T>& t, const char* what) {
    if (t.off_ % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "%s: %s address %llu is not 32-byte aligned", what,
                     ao::rt::SpaceName(t.Space()), (unsigned long long)t.off_);
}

// Combines `bytes` of source data into GM under the current atomic mode.
void AtomicStore(uint8_t* gm, const uint8_t* src, uint64_t bytes);

inline void StoreGm(uint8_t* gm, const uint8_t* src, uint64_t bytes) {
    if (ao::rt::Cur().atomic_mode != 0) AtomicStore(gm, src, bytes);
    else std::memcpy(gm, src, bytes);
}

// GM -> local: `count` bursts of `len` bytes; GM gap `gmGap` bytes, local row pitch `pitch` bytes.
// Left/right padding (bytes) are written around each local row when pad is set. A row that does
// not end on a 32-byte boundary is completed with dummy elements up to it (the documented
// DataCopyPad GM->UB fill): copies of the row's first element when there is no left/right
// padding, else the padding value when pad is set (unspecified values otherwise: left as they were).
template <typename T>
void GmToLocal(const char* what, const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count,
               uint64_t len, uint64_t gmGap, uint64_t pitch, uint64_t leftPad = 0, uint64_t rightPad = 0,
               const T* padValue = nullptr) {
    CheckLocalAligned(dst, what);
    if (count == 0 || len == 0) return;
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.addr_);
    uint64_t gspan = uint64_t(count - 1) * (len + gmGap) + len;
    ao::rt::CheckGm(g, gspan, what, false);
    const uint64_t used = leftPad + len + rightPad;
    const uint64_t dummy = (used + 31) / 32 * 32 - used;
    uint64_t lspan = uint64_t(count - 1) * pitch + used + dummy;
    ao::rt::Instr ins;
    ins.name = what;
    ins.pipe = ao::rt::Pipe::MTE2;
    ins.cls = ao::rt::OpClass::CopyIn;
    ins.dtype_bytes = sizeof(T);
    ins.bytes = uint64_t(count) * len;
    ins.bursts = count;
    ins.burst_bytes = len;
    ins.gm_addr = reinterpret_cast<uint64_t>(g);
    ins.l2_policy = src.L2Policy();
    ins.Add(dst.RangeBytes(0, lspan, true, what));
    ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + gspan, false});
    ao::rt::Issue(ins);
    const uint8_t* gd = ao::rt::GmData(g);  // GM as the API reaches it (gm_guard.cpp)
    uint8_t* l = reinterpret_cast<uint8_t*>(dst.Data());
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t* row = l + uint64_t(i) * pitch;
        if (padValue != nullptr) {
            for (uint64_t b = 0; b < leftPad / sizeof(T); ++b) std::memcpy(row + b * sizeof(T), padValue, sizeof(T));
            uint8_t* tail = row + leftPad + len;
            for (uint64_t b = 0; b < rightPad / sizeof(T); ++b) std::memcpy(tail + b * sizeof(T), padValue, sizeof(T));
        }
        std::memcpy(row + leftPad, gd + uint64_t(i) * (len + gmGap), len);
        const uint8_t* fill = leftPad == 0 && rightPad == 0 ? row : reinterpret_cast<const uint8_t*>(padValue);
        if (fill != nullptr && len >= sizeof(T))
            for (uint64_t b = 0; b + sizeof(T) <= dummy; b += sizeof(T)) std::memcpy(row + used + b, fill, sizeof(T));
    }
}

// local -> GM: `count` bursts of `len` bytes; local row pitch `pitch` bytes, GM gap `gmGap` bytes.
template <typename T>
void LocalToGm(const char* what, const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
               uint64_t len, uint64_t pitch, uint64_t gmGap) {
    CheckLocalAligned(src, what);
    if (count == 0 || len == 0) return;
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.addr_);
    uint64_t gspan = uint64_t(count - 1) * (len + gmGap) + len;
    ao::rt::CheckGm(g, gspan, what);
    uint64_t lspan = uint64_t(count - 1) * pitch + len;
    ao::rt::Instr ins;
    ins.name = what;
    ins.pipe = ao::rt::Pipe::MTE3;
    ins.cls = ao::rt::OpClass::CopyOut;
    ins.dtype_bytes = sizeof(T);
    ins.bytes = uint64_t(count) * len;
    ins.bursts = count;
    ins.burst_bytes = len;
    ins.gm_addr = reinterpret_cast<uint64_t>(g);
    ins.l2_policy = dst.L2Policy();
    ins.Add(src.RangeBytes(0, lspan, false, what));
    ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + gspan, true});
    ao::rt::Issue(ins);
    const uint8_t* l = reinterpret_cast<const uint8_t*>(src.Data());
    for (uint32_t i = 0; i < count; ++i)
        StoreGm(ao::rt::GmData(g) + uint64_t(i) * (len + gmGap), l + uint64_t(i) * pitch, len);
}

// local -> local: `count` bursts of `len` bytes with source/destination pitches.
template <typename T>
void LocalToLocal(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                  uint64_t len, uint64_t srcPitch, uint64_t dstPitch) {
    CheckLocalAligned(dst, what);
    CheckLocalAligned(src, what);
    if (count == 0 || len == 0) return;
    ao::rt::Instr ins;
    ins.name = what;
    ins.pipe = LocalCopyPipe(dst.Space(), src.Space());
    ins.cls = ao::rt::OpClass::CopyLocal;
    ins.dtype_bytes = sizeof(T);
    ins.bytes = uint64_t(count) * len;
    ins.bursts = count;
    ins.burst_bytes = len;
    ins.repeats = uint32_t((ins.bytes + 255) / 256);
    ins.Add(dst.RangeBytes(0, uint64_t(count - 1) * dstPitch + len, true, what));
    ins.Add(src.RangeBytes(0, uint64_t(count - 1) * srcPitch + len, false, what));
    ao::rt::Issue(ins);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.Data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.Data());
    for (uint32_t i = 0; i < count; ++i) std::memmove(d + uint64_t(i) * dstPitch, s + uint64_t(i) * srcPitch, len);
}

template <typename T>
uint64_t CountBytes(const char* what, uint32_t count) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (bytes % 32 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned,
                     "%s: %u elements x %u bytes = %llu bytes is not a multiple of 32 bytes "
                     "(use DataCopyPad for unaligned lengths)",
                     what, count, unsigned(sizeof(T)), (unsigned long long)bytes);
    return bytes;
}

}  // namespace ao::k

namespace AscendC {

// ---- count form ----
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
    uint64_t bytes = ao::k::CountBytes<T>("DataCopy(GM->local)", count);
    ao::k::GmToLocal("DataCopy", dst, src, 1, bytes, 0, bytes);
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    uint64_t bytes = ao::k::CountBytes<T>("DataCopy(local->GM)", count);
    ao::k::LocalToGm("DataCopy", dst, src, 1, bytes, bytes, 0);
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    uint64_t bytes = ao::k::CountBytes<T>("DataCopy(local->local)", count);
    ao::k::LocalToLocal("DataCopy", dst, src, 1, bytes, bytes, bytes);
}

// ---- DataCopyParams form: lengths and gaps in 32-byte blocks ----
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
    uint64_t len = uint64_t(p.blockLen) * 32;
    ao::k::GmToLocal("DataCopy", dst, src, p.blockCount, len, uint64_t(p.srcStride) * 32,
                     len + uint64_t(p.dstStride) * 32);
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
    uint64_t len = uint64_t(p.blockLen) * 32;
    ao::k::LocalToGm("DataCopy", dst, src, p.blockCount, len, len + uint64_t(p.srcStride) * 32,
                     uint64_t(p.dstStride) * 32);
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
    uint64_t len = uint64_t(p.blockLen) * 32;
    ao::k::LocalToLocal("DataCopy", dst, src, p.blockCount, len, len + uint64_t(p.srcStride) * 32,
                        len + uint64_t(p.dstStride) * 32);
}

// ---- DataCopyPad: byte-granular lengths; GM gaps in bytes, local gaps in 32-byte blocks ----
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
    uint64_t left = uint64_t(pad.leftPadding) * sizeof(T), right = uint64_t(pad.rightPadding) * sizeof(T);
    if (left > 32 || right > 32)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "DataCopyPad: padding exceeds 32 bytes");
    uint64_t row = (left + p.blockLen + right + 31) / 32 * 32;
    ao::k::GmToLocal("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride,
                     row + uint64_t(p.dstStride) * 32, left, right, pad.isPad ? &pad.paddingValue : nullptr);
}
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyParams& p, const DataCopyPadParams& pad) {
    T value;
    uint64_t raw = pad.paddingValue;
    std::memcpy(&value, &raw, sizeof(T) < 8 ? sizeof(T) : 8);
    DataCopyPadExtParams<T> ext(pad.isPad, pad.leftPadding, pad.rightPadding, value);
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), ext);
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
    uint64_t row = (uint64_t(p.blockLen) + 31) / 32 * 32;
    ao::k::LocalToGm("DataCopyPad", dst, src, p.blockCount, p.blockLen, row + uint64_t(p.srcStride) * 32, p.dstStride);
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0));
}
// local -> local DataCopyPad (UB -> UB): lengths in bytes, gaps in 32-byte blocks.
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                                   const DataCopyPadExtParams<T>&) {
    uint64_t row = (uint64_t(p.blockLen) + 31) / 32 * 32;
    ao::k::LocalToLocal("DataCopyPad", dst, src, p.blockCount, p.blockLen, row + uint64_t(p.srcStride) * 32,
                        row + uint64_t(p.dstStride) * 32);
}

}  // namespace AscendC
