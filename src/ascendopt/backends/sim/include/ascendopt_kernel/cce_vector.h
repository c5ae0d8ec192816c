// AscendOptimizer simulator: raw vector intrinsics of the A2 (dav_c220) toolchain that kernels call
// on __ubuf__ pointers: vector_dup, vcadd, vor, copy_ubuf_to_ubuf, vtranspose, set_va_reg_sb and
// scatter_vnchwconv_b8/b16/b32 with the VA0..VA7 address registers. Each one is the instruction
// behind a documented C-API call (asc_duplicate, asc_repeat_reduce_sum, asc_or, asc_copy_ub2ub,
// asc_transpose, asc_set_va_reg, asc_transto5hd_b8/b16/b32: same arguments in the same order)
// and runs through the AscendC API with the same semantics, so checks, cost and the race model
// are those of Duplicate / RepeatReduceSum / Or / DataCopy / TransDataTo5HD:
//   - a __ubuf__ pointer stands for a UB byte address (kernels form them from GetPhyAddr(), the
//     host address of those bytes: ao::k::LocalAddr); the view covers UB from that address, so
//     bounds are UB's own;
//   - vector_dup / vcadd / vor use the vector mask register as it is (the C-API forms do not set
//     it); vcadd's last argument must be 0 (the only value the C-API passes);
//   - vtranspose transposes one 16 x 16 matrix of 2-byte elements (512 bytes);
//   - set_va_reg_sb loads 8 addresses into VAn; scatter_vnchwconv_* takes its 16 destination
//     addresses from VAn, VAn+1 and its 16 sources from VAm, VAm+1.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/vector_ops.h"
#include "ascendopt_kernel/vector_misc.h"
#include "ascendopt_kernel/datacopy.h"
#include "ascendopt_kernel/transdata.h"

enum ub_addr8_t : uint8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };

namespace ao::k {

// The eight VA address registers of the current core (8 UB addresses each).
struct VaRegs {
    uint64_t a[8][8] = {};
    bool set[8] = {};
};
inline thread_local VaRegs g_va;

// A LocalTensor<T> view of UB starting at byte address `addr` (up to the end of UB).
template <typename T>
inline AscendC::LocalTensor<T> UbView(const void* p, const char* what) {
    const uint64_t addr = LocalAddr(reinterpret_cast<uint64_t>(p), ao::rt::Space::UB);
    const uint64_t cap = ao::rt::Cur().cap[int(ao::rt::Space::UB)];
    if (addr >= cap)
        ao::rt::Fail(ao::rt::ErrorKind::LocalOutOfBounds, "%s: address %llu is outside UB (%llu bytes)", what,
                     (unsigned long long)addr, (unsigned long long)cap);
    AscendC::LocalTensor<T> t;
    t.base_ = ao::rt::Cur().mem[int(ao::rt::Space::UB)];
    t.off_ = addr;
    t.size_ = uint32_t((cap - addr) / sizeof(T));
    t.buf_begin_ = 0;
    t.buf_end_ = cap;
    t.pos_ = AscendC::TPosition::VECCALC;
    return t;
}

inline void VaList(ub_addr8_t first, uint64_t out[16], const char* what) {
    int r = int(first);
    if (r > 6)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: VA%d starts no 16-address list (VA%d + VA%d)", what, r,
                     r, r + 1);
    for (int k = 0; k < 2; ++k) {
        if (!g_va.set[r + k])
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: VA%d was never set (set_va_reg_sb)", what, r + k);
        for (int i = 0; i < 8; ++i) out[8 * k + i] = g_va.a[r + k][i];
    }
}

template <typename T>
inline void ScatterVnchwconv(const char* name, ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride,
                             uint16_t srcStride, bool dstHigh = false, bool srcHigh = false) {
    uint64_t d[16], s[16];
    VaList(dst, d, name);
    VaList(src, s, name);
    TransDataRun<T>(name, d, s, AscendC::TransDataTo5HDParams(dstHigh, srcHigh, repeat, dstStride, srcStride));
}

}  // namespace ao::k

template <typename T, typename U>
__aicore__ inline void vector_dup(__ubuf__ T* dst, U scalar, uint8_t repeat, uint16_t dstBlockStride,
                                  uint16_t srcBlockStride, uint8_t dstRepeatStride, uint8_t srcRepeatStride) {
    (void)srcBlockStride;
    (void)srcRepeatStride;
    AscendC::Duplicate<T, false>(ao::k::UbView<T>(dst, "vector_dup"), T(scalar), AscendC::MASK_PLACEHOLDER, repeat,
                                 dstBlockStride, dstRepeatStride);
}

template <typename T>
__aicore__ inline void vcadd(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dstRepeatStride,
                             uint16_t srcBlockStride, uint16_t srcRepeatStride, int mode) {
    if (mode != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "vcadd: mode %d is not emulated (only 0, as asc_repeat_reduce_sum "
                     "passes)", mode);
    AscendC::RepeatReduceSum<T, false>(ao::k::UbView<T>(dst, "vcadd"), ao::k::UbView<T>(src, "vcadd"), repeat,
                                       int32_t(AscendC::MASK_PLACEHOLDER), 0, srcBlockStride, dstRepeatStride,
                                       srcRepeatStride);
}

template <typename T>
__aicore__ inline void vor(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint8_t repeat, uint8_t dstBlockStride,
                           uint8_t src0BlockStride, uint8_t src1BlockStride, uint8_t dstRepeatStride,
                           uint8_t src0RepeatStride, uint8_t src1RepeatStride) {
    AscendC::Or<T, false>(ao::k::UbView<T>(dst, "vor"), ao::k::UbView<T>(src0, "vor"), ao::k::UbView<T>(src1, "vor"),
                          AscendC::MASK_PLACEHOLDER, repeat,
                          AscendC::BinaryRepeatParams(dstBlockStride, src0BlockStride, src1BlockStride, dstRepeatStride,
                                                      src0RepeatStride, src1RepeatStride));
}

template <typename T>
__aicore__ inline void copy_ubuf_to_ubuf(__ubuf__ T* dst, __ubuf__ T* src, uint8_t sid, uint16_t nBurst,
                                         uint16_t lenBurst, uint16_t srcGap, uint16_t dstGap) {
    (void)sid;
    AscendC::DataCopy(ao::k::UbView<T>(dst, "copy_ubuf_to_ubuf"), ao::k::UbView<T>(src, "copy_ubuf_to_ubuf"),
                      AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap));
}

// One 16 x 16 transpose of 2-byte elements.
template <typename T>
__aicore__ inline void vtranspose(__ubuf__ T* dst, __ubuf__ T* src) {
    static_assert(sizeof(T) == 2, "vtranspose moves 16 x 16 two-byte elements");
    const char* name = "vtranspose";
    AscendC::LocalTensor<T> d = ao::k::UbView<T>(dst, name), s = ao::k::UbView<T>(src, name);
    ao::k::CheckLocalAligned(d, name);
    ao::k::CheckLocalAligned(s, name);
    ao::rt::Instr ins = ao::k::VecInstr(name, ao::rt::OpClass::VecElementwise, 2, 2, 256);
    ins.Add(d.Range(0, 256, true, name));
    ins.Add(s.Range(0, 256, false, name));
    ao::rt::Issue(ins);
    T tmp[256];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) tmp[j * 16 + i] = s.Data()[i * 16 + j];
    for (int k = 0; k < 256; ++k) d.Data()[k] = tmp[k];
}

template <typename A>
__aicore__ inline void set_va_reg_sb(ub_addr8_t reg, A* addrs) {
    for (int i = 0; i < 8; ++i) ao::k::g_va.a[int(reg)][i] = uint64_t(addrs[i]);
    ao::k::g_va.set[int(reg)] = true;
}

__aicore__ inline void scatter_vnchwconv_b16(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride,
                                             uint16_t srcStride) {
    ao::k::ScatterVnchwconv<uint16_t>("scatter_vnchwconv_b16", dst, src, repeat, dstStride, srcStride);
}
__aicore__ inline void scatter_vnchwconv_b32(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride,
                                             uint16_t srcStride) {
    ao::k::ScatterVnchwconv<uint32_t>("scatter_vnchwconv_b32", dst, src, repeat, dstStride, srcStride);
}
__aicore__ inline void scatter_vnchwconv_b8(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride,
                                            uint16_t srcStride, bool dstHighHalf, bool srcHighHalf) {
    ao::k::ScatterVnchwconv<uint8_t>("scatter_vnchwconv_b8", dst, src, repeat, dstStride, srcStride, dstHighHalf,
                                     srcHighHalf);
}

// vconv_s42f16(dst, src, repeat, dstBlockStride, srcBlockStride, dstRepeatStride, srcRepeatStride):
// int4 -> half conversion (asc_int42half). Tensors of int4b_t are not emulated (types.h): a kernel
// reaching it stops with Unsupported instead of reading nibbles the simulator does not lay out.
__aicore__ inline void vconv_s42f16(__ubuf__ half*, __ubuf__ int4b_t*, uint8_t, uint16_t, uint16_t, uint16_t,
                                    uint16_t) {
    ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "vconv_s42f16: int4b_t data (4-bit integers) are not emulated");
}
