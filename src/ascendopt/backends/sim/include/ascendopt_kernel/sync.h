// AscendOptimizer simulator: synchronisation, core identity, atomics, workspace, macros.
#pragma once
#include "ascendopt_kernel/tensor.h"
#include "ascendopt_kernel/core_role.h"

namespace AscendC {

// Source and destination pipe of a HardEvent.
constexpr ao::rt::Pipe EventSrc(HardEvent e) {
    using P = ao::rt::Pipe;
    switch (e) {
        case HardEvent::MTE2_MTE1: case HardEvent::MTE2_V: case HardEvent::MTE2_M: case HardEvent::MTE2_MTE3:
        case HardEvent::MTE2_S: case HardEvent::MTE2_FIX: return P::MTE2;
        case HardEvent::MTE1_MTE2: case HardEvent::MTE1_M: case HardEvent::MTE1_MTE3: case HardEvent::MTE1_V:
        case HardEvent::MTE1_FIX: return P::MTE1;
        case HardEvent::M_MTE1: case HardEvent::M_V: case HardEvent::M_MTE2: case HardEvent::M_FIX:
        case HardEvent::M_S: return P::M;
        case HardEvent::V_MTE2: case HardEvent::V_MTE3: case HardEvent::V_M: case HardEvent::V_V:
        case HardEvent::V_MTE1: case HardEvent::V_S: return P::V;
        case HardEvent::MTE3_V: case HardEvent::MTE3_MTE1: case HardEvent::MTE3_MTE2: case HardEvent::MTE3_S:
            return P::MTE3;
        case HardEvent::S_V: case HardEvent::S_MTE2: case HardEvent::S_MTE3: return P::S;
        case HardEvent::FIX_M: case HardEvent::FIX_MTE2: case HardEvent::FIX_S: case HardEvent::FIX_MTE3:
        case HardEvent::FIX_MTE1: case HardEvent::FIX_FIX: return P::FIX;
        default: return P::ALL;
    }
}
constexpr ao::rt::Pipe EventDst(HardEvent e) {
    using P = ao::rt::Pipe;
    switch (e) {
        case HardEvent::MTE1_MTE2: case HardEvent::V_MTE2: case HardEvent::M_MTE2: case HardEvent::MTE3_MTE2:
        case HardEvent::S_MTE2: case HardEvent::FIX_MTE2: return P::MTE2;
        case HardEvent::MTE2_MTE1: case HardEvent::M_MTE1: case HardEvent::MTE3_MTE1: case HardEvent::V_MTE1:
        case HardEvent::FIX_MTE1: return P::MTE1;
        case HardEvent::MTE1_M: case HardEvent::V_M: case HardEvent::MTE2_M: case HardEvent::FIX_M: return P::M;
        case HardEvent::MTE2_V: case HardEvent::MTE3_V: case HardEvent::M_V: case HardEvent::V_V:
        case HardEvent::MTE1_V: case HardEvent::S_V: return P::V;
        case HardEvent::V_MTE3: case HardEvent::MTE1_MTE3: case HardEvent::MTE2_MTE3: case HardEvent::S_MTE3:
        case HardEvent::FIX_MTE3: return P::MTE3;
        case HardEvent::V_S: case HardEvent::MTE2_S: case HardEvent::MTE3_S: case HardEvent::FIX_S:
        case HardEvent::M_S: return P::S;
        case HardEvent::M_FIX: case HardEvent::MTE2_FIX: case HardEvent::MTE1_FIX: case HardEvent::FIX_FIX:
            return P::FIX;
        default: return P::ALL;
    }
}
constexpr uint64_t EventKey(HardEvent e, int id) { return (uint64_t(2) << 40) | (uint64_t(e) << 8) | uint64_t(id & 0xff); }

template <HardEvent event>
__aicore__ inline void SetFlag(int32_t eventID) {
    ao::rt::SyncSet(EventSrc(event), EventDst(event), EventKey(event, eventID));
}
template <HardEvent event>
__aicore__ inline void WaitFlag(int32_t eventID) {
    ao::rt::SyncWait(EventSrc(event), EventDst(event), EventKey(event, eventID));
}
// TQueSync<src, dst>: the HardEvent flag between two pipes, with the event id as an argument
// (same flag as SetFlag<HardEvent::SRC_DST>(id)).
template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    __aicore__ inline void SetFlag(TEventID eventID) {
        ao::rt::SyncSet(ao::rt::FromPipeT(src), ao::rt::FromPipeT(dst), Key(eventID));
    }
    __aicore__ inline void WaitFlag(TEventID eventID) {
        ao::rt::SyncWait(ao::rt::FromPipeT(src), ao::rt::FromPipeT(dst), Key(eventID));
    }

private:
    static constexpr uint64_t Key(int id) {
        for (int e = 0; e < int(HardEvent::MAX); ++e)
            if (EventSrc(HardEvent(e)) == ao::rt::FromPipeT(src) && EventDst(HardEvent(e)) == ao::rt::FromPipeT(dst))
                return EventKey(HardEvent(e), id);
        return (uint64_t(3) << 40) | (uint64_t(src) << 16) | (uint64_t(dst) << 8) | uint64_t(id & 0xff);
    }
};

template <pipe_t pipe = PIPE_ALL>
__aicore__ inline void PipeBarrier() {
    ao::rt::Barrier(ao::rt::FromPipeT(pipe));
}

__aicore__ inline int64_t GetBlockIdx() { return ao::rt::Cur().block_idx; }
__aicore__ inline int64_t GetBlockNum() { return ao::rt::Cur().block_num; }
int64_t GetSystemCycle();

// SyncAll<true>: every AIV of the launch (the cores of the caller's type); SyncAll<false>: every
// core, AIC and AIV.
template <bool isAIVOnly = true>
__aicore__ inline void SyncAll() { ao::rt::SyncAllCores(isAIVOnly); }
template <bool isAIVOnly = true>
__aicore__ inline void SyncAll(const GlobalTensor<int32_t>&, const LocalTensor<int32_t>&, int32_t = 0) {
    ao::rt::SyncAllCores(isAIVOnly);
}

template <typename T>
__aicore__ inline void SetAtomicAdd() { ao::rt::Cur().atomic_mode = 1; ao::rt::Cur().atomic_dtype = int(ao::rt::DTypeOf<T>()); }
template <typename T>
__aicore__ inline void SetAtomicMax() { ao::rt::Cur().atomic_mode = 2; ao::rt::Cur().atomic_dtype = int(ao::rt::DTypeOf<T>()); }
template <typename T>
__aicore__ inline void SetAtomicMin() { ao::rt::Cur().atomic_mode = 3; ao::rt::Cur().atomic_dtype = int(ao::rt::DTypeOf<T>()); }
__aicore__ inline void SetAtomicNone() { ao::rt::Cur().atomic_mode = 0; }
template <typename T>
__aicore__ inline void SetAtomicType() { ao::rt::Cur().atomic_dtype = int(ao::rt::DTypeOf<T>()); }

__aicore__ inline GM_ADDR GetSysWorkSpacePtr() { return ao::rt::Cur().workspace; }
__aicore__ inline void SetSysWorkspace(GM_ADDR ws) { ao::rt::Cur().workspace = ws; }
__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR ws) {
    return ws == nullptr ? nullptr : ws + ao::rt::SysWorkspaceSize();
}

// Kernel printf: AscendC::printf / PRINTF print through the runner with the block index.
template <typename... Args>
__aicore__ inline void printf(const char* fmt, Args... args) { ao::rt::Printf(fmt, args...); }
template <typename... Args>
__aicore__ inline void PRINTF(const char* fmt, Args... args) { ao::rt::Printf(fmt, args...); }
// InitDump(mixFlag, [dumpStartAddr,] gmLen) sets up the tensor-dump buffer; on Atlas A2 it has no
// effect (the runtime sets that buffer up), as here.
__aicore__ inline void InitDump(bool, uint32_t) {}
__aicore__ inline void InitDump(bool, GM_ADDR, uint32_t) {}

__aicore__ inline float ToFloat(const bfloat16_t& v) { return float(v); }
__aicore__ inline bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }

// Scalar helpers.
// Scalar Ceil over mixed integer types (kernels call Ceil(int32_t, int64_t)); the result has the
// first argument's type. Arithmetic arguments only (the vector Ceil(dst, src, ...) stays apart);
// the trailing empty pack lets a kernel's own Ceil<T>(T, T) or Ceil<T1, T2>(T1, T2) win.
template <typename T, typename U, typename... None,
          std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U> && sizeof...(None) == 0, int> = 0>
__aicore__ inline T Ceil(T a, U b, None...) { return T((a + T(b) - 1) / T(b)); }
// AlignUp / DivCeil (mixed argument types): intrinsics.h.
// Mixed argument types (the result has the first one's type). The trailing (empty) pack makes it
// less specialized than any two-parameter template, so a kernel's own CeilDiv<T>(T, T) or
// CeilDiv<T1, T2>(T1, T2) wins without ambiguity.
template <typename T, typename U, typename... None>
__aicore__ inline T CeilDiv(T a, U b, None...) { return T((a + T(b) - 1) / T(b)); }

__aicore__ inline void Trap() { ao::rt::Fail(ao::rt::ErrorKind::AssertFailed, "trap() called by the kernel"); }

}  // namespace AscendC

// Tiling data and tiling keys.
namespace ao::rt {
void CopyTiling(void* dst, const void* src, uint64_t bytes, uint64_t expected);
}
#ifndef ASCENDOPT_TILING_STRUCT
#define ASCENDOPT_TILING_STRUCT AoNoTilingStruct
struct AoNoTilingStruct { uint8_t unused; };
#endif
#define GET_TILING_DATA(name, ptr) \
    ASCENDOPT_TILING_STRUCT name;  \
    ::ao::rt::CopyTiling(&name, (ptr), sizeof(name), sizeof(name))
#define GET_TILING_DATA_WITH_STRUCT(type, name, ptr) \
    type name;                                       \
    ::ao::rt::CopyTiling(&name, (ptr), sizeof(name), sizeof(name))
#define GET_TILING_DATA_MEMBER(type, member, name, ptr)                                   \
    decltype(type::member) name;                                                          \
    ::ao::rt::CopyTiling(&name, (ptr) + offsetof(type, member), sizeof(name), sizeof(name))
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, name, ptr) \
    const type* name = reinterpret_cast<const type*>(ptr)
#define TILING_KEY_IS(k) (::ao::rt::Cur().tiling_key == uint64_t(k))
// KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE: core_role.h
#define REGISTER_TILING_DEFAULT(t)
#define REGISTER_TILING_FOR_TILINGKEY(k, t)
// ASSERT is a CPU-debug check that the device build compiles away: real kernels rely on that
// (a missing ';' before it, names it uses that only resolve in CPU-debug builds), so here it
// expands to nothing too. `assert` stays active, as it is on the device by default.
#define ASSERT(...)
#undef assert
// The device assert also takes a printf-style message after the condition (ignored here).
#define assert(x, ...)                                                                                 \
    ((x) ? (void)0                                                                                    \
         : ::ao::rt::Fail(::ao::rt::ErrorKind::AssertFailed, "assert(%s) failed at %s:%d", #x, __FILE__, \
                          __LINE__))
#define ASSERT_MSG(...)
// kernel_log.h's ASCENDC_ASSERT(cond, behavior) and KERNEL_LOG(level, fmt, ...): the device build
// (not CPU debug) defines both to nothing, so neither the condition nor the log's level name
// (KERNEL_ERROR, a CPU-debug enumerator) is compiled.
#define ASCENDC_ASSERT(cond, behavior)
#define KERNEL_LOG(level, format, ...)
// Core-type guards, GetSubBlockIdx / GetTaskRation and kernel types: core_role.h
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
