// AscendOptimizer simulator: cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag).
// Clean-room implementation of the documented semantics:
//   every flag id (0..15) has a counter per core, initially 0. CrossCoreWaitFlag blocks the
//   core while its counter is 0, then decrements it. CrossCoreSetFlag<mode, pipe> is issued on
//   `pipe` (it takes effect when that pipe's earlier work is done) and increments counters:
//     mode 0  all cores of the launch: once every core has set the flag (one round), the counter
//             of every core goes up by one (an all-core barrier when followed by a wait);
//     mode 1  the vector sub-cores of one AI core: the simulator runs one vector sub-core per
//             block (GetSubBlockNum() == 1), so the block's own counter goes up;
//     mode 2  cube <-> vector inside one AI core: cube and vector work of a block run on one
//             emulated core in program order, so the block's own counter goes up.
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
