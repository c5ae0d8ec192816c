// AscendOptimizer simulator: the A2 (dav_c220) intrinsics behind DataCopyPad that kernels call on
// raw pointers: copy_gm_to_ubuf_align_b8/b16/b32 and copy_ubuf_to_gm_align_b8/b16/b32 (element
// size 1, 2, 4 bytes). Arguments, in order: dst, src, sid (unused), nBurst (rows), lenBurst
// (bytes per row), left/right padding (elements, GM -> UB only: UB rows are padded to 32 bytes),
// srcGap and dstGap (GM gaps in bytes, UB gaps in 32-byte blocks), as DataCopyPad's
// DataCopyExtParams and DataCopyPadExtParams take them. Each runs as that DataCopyPad, so its
// checks, cost and race model are the API's; the padding area is not written (the intrinsic's
// pad value comes from a register no API here sets).
#pragma once
#include "ascendopt_kernel/cce_vector.h"
#include "ascendopt_kernel/datacopy.h"

namespace ao::k {
template <typename T>
inline AscendC::GlobalTensor<T> GmView(void* p) {
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(p));
    return g;
}

template <typename T>
inline void CopyGmToUbAlign(const char* name, void* dst, void* src, uint16_t nBurst, uint32_t lenBurst,
                            uint8_t left, uint8_t right, uint32_t srcGap, uint32_t dstGap) {
    (void)name;
    AscendC::DataCopyPad(UbView<T>(dst, name), GmView<T>(src), AscendC::DataCopyExtParams(nBurst, lenBurst, srcGap,
                                                                                          dstGap, 0),
                         AscendC::DataCopyPadExtParams<T>(false, left, right, T(0)));
}

template <typename T>
inline void CopyUbToGmAlign(const char* name, void* dst, void* src, uint16_t nBurst, uint32_t lenBurst,
                            uint32_t srcGap, uint32_t dstGap) {
    AscendC::DataCopyPad(GmView<T>(dst), UbView<T>(src, name),
                         AscendC::DataCopyExtParams(nBurst, lenBurst, srcGap, dstGap, 0));
}
}  // namespace ao::k

#define AO_COPY_ALIGN(BITS, T)                                                                                  \
    __aicore__ inline void copy_gm_to_ubuf_align_b##BITS(void* dst, void* src, uint8_t sid, uint16_t nBurst,      \
                                                         uint32_t lenBurst, uint8_t left, uint8_t right,          \
                                                         uint32_t srcGap, uint32_t dstGap) {                      \
        (void)sid;                                                                                              \
        ao::k::CopyGmToUbAlign<T>("copy_gm_to_ubuf_align_b" #BITS, dst, src, nBurst, lenBurst, left, right,     \
                                  srcGap, dstGap);                                                              \
    }                                                                                                           \
    __aicore__ inline void copy_ubuf_to_gm_align_b##BITS(void* dst, void* src, uint8_t sid, uint16_t nBurst,      \
                                                         uint32_t lenBurst, uint8_t left, uint8_t right,          \
                                                         uint32_t srcGap, uint32_t dstGap) {                      \
        (void)sid, (void)left, (void)right;                                                                     \
        ao::k::CopyUbToGmAlign<T>("copy_ubuf_to_gm_align_b" #BITS, dst, src, nBurst, lenBurst, srcGap, dstGap);   \
    }
AO_COPY_ALIGN(8, uint8_t)
AO_COPY_ALIGN(16, uint16_t)
AO_COPY_ALIGN(32, uint32_t)
#undef AO_COPY_ALIGN
