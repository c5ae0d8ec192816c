// AscendOptimizer simulator: cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag).
// Clean-room implementation of the documented semantics:
//   every flag id (0..15) has a counter per core, initially 0. CrossCoreWaitFlag blocks the
//   core while its counter is 0, then decrements it. CrossCoreSetFlag<mode, pipe> is issued on
//   `pipe` (it takes effect when that pipe's earlier work is done) and increments counters once
//   every participant of a round has set the flag (runtime/core_role.h, FlagRound):
//     mode 0  the cores of the setter's type in the whole launch (all AIVs, or all AICs): an
//             all-core meeting when followed by a wait;
//     mode 1  the AIVs of one AI core (the two sub-blocks of a MIX 1:2 kernel) raise each other;
//     mode 2  an AIC raises the AIVs of its AI core; the AIVs of an AI core together raise its AIC.
//   A unified core (a kernel without a declared mixed type: cube and vector halves on one
//   emulated core, core_role.h) is its own partner in modes 1 and 2.
//   More than 16 unconsumed sets of one flag on one core is an error, as is a flag id above 15.
// Cores run one at a time (see runtime/kernel_rt.cpp); a core that waits gives its turn to the
// next runnable core, and when no core can run any more the launch fails with Deadlock.
#pragma once
#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/types.h"

namespace ao::rt {
void CrossCoreSet(int mode, Pipe pipe, uint32_t flag_id);
void CrossCoreWait(int mode, Pipe pipe, uint32_t flag_id);
}  // namespace ao::rt

namespace AscendC {
template <uint8_t modeId, pipe_t pipe>
__aicore__ inline void CrossCoreSetFlag(uint16_t flagId) {
    static_assert(modeId <= 2, "CrossCoreSetFlag: modeId is 0, 1 or 2");
    static_assert(pipe != PIPE_S && pipe != PIPE_ALL, "CrossCoreSetFlag: PIPE_S and PIPE_ALL are not supported");
    ao::rt::CrossCoreSet(modeId, ao::rt::FromPipeT(pipe), flagId);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId) {
    static_assert(modeId <= 2, "CrossCoreWaitFlag: modeId is 0, 1 or 2");
    ao::rt::CrossCoreWait(modeId, ao::rt::FromPipeT(pipe), flagId);
}
}  // namespace AscendC
