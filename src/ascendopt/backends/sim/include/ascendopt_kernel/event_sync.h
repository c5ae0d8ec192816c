// AscendOptimizer simulator: the AIC/AIV event forms of the cross-core flags (cross_core.h):
//   NotifyEvent<pipe>(id)         = CrossCoreSetFlag<2, pipe>(id)  (an AIC raises its AIVs, or
//                                   the AIVs of an AI core raise its AIC);
//   WaitEvent<pipe = PIPE_S>(id)  = CrossCoreWaitFlag<0, pipe>(id);
//   wait_flag_dev(id)             = the instruction behind that wait, issued by the scalar unit;
//   ffts_cross_core_sync(pipe, c) = the instruction behind CrossCoreSetFlag (mode, id packed in c).
// Also the A2 (dav_c220) kernel constants kernels name unqualified: TOTAL_UB_SIZE (UB bytes of
// the architecture the kernel headers emulate: 192 KiB on A2; the SoC file's ub_bytes is what
// the run checks against) and TOTAL_L1_SIZE (512 KiB), the SyncAll flag ids, DEFAULT_DATA_COPY_NBURST / DEFAULT_DATA_COPY_STRIDE (1 and 0, the
// DataCopyParams defaults) and PRELOAD(n), an instruction-prefetch hint with no effect on results.
#pragma once
#include "ascendopt_kernel/cross_core.h"

namespace AscendC {
template <pipe_t pipe>
__aicore__ inline void NotifyEvent(uint16_t flagId) {
    CrossCoreSetFlag<2, pipe>(flagId);
}
template <pipe_t pipe = PIPE_S>
__aicore__ inline void WaitEvent(uint16_t flagId) {
    CrossCoreWaitFlag<0, pipe>(flagId);
}

constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = 512 * 1024;
// The flag ids the toolkit's SyncAll reserves (kernels reuse them for their own AIC/AIV meetings).
constexpr uint16_t SYNC_AIC_FLAG = 11;
constexpr uint16_t SYNC_AIV_FLAG = 12;
constexpr uint16_t SYNC_AIC_AIV_FLAG = 13;
constexpr uint16_t SYNC_AIV_ONLY_ALL = 14;
constexpr uint8_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint8_t DEFAULT_DATA_COPY_STRIDE = 0;
}  // namespace AscendC

__aicore__ inline void wait_flag_dev(int64_t flagId) {
    AscendC::CrossCoreWaitFlag<0, PIPE_S>(uint16_t(flagId));
}
// ffts_cross_core_sync(pipe, config): the instruction behind CrossCoreSetFlag, with mode and
// flag id packed in `config` as the toolkit packs them: bit 0 set, the mode in bits 4-5, the flag
// id in bits 8-11.
__aicore__ inline void ffts_cross_core_sync(pipe_t pipe, uint64_t config) {
    const int mode = int((config >> 4) & 0x3);
    if (mode > 2)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "ffts_cross_core_sync: mode %d (config 0x%llx) is not 0, 1 or 2",
                     mode, (unsigned long long)config);
    ao::rt::CrossCoreSet(mode, ao::rt::FromPipeT(pipe), uint32_t((config >> 8) & 0xf));
}

#ifndef PRELOAD
#define PRELOAD(n) ((void)(n))
#endif
