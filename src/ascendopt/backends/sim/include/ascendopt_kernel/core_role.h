// AscendOptimizer simulator: kernel types and the role of each emulated core (AIC / AIV).
//
// Clean-room emulation of the documented behaviour of the separated ("split") architecture of
// Atlas A2 (AscendC docs: GetBlockIdx, GetBlockNum, GetSubBlockIdx, GetSubBlockNum,
// GetTaskRatio, "setting the kernel type" KERNEL_TASK_TYPE / KERNEL_TASK_TYPE_DEFAULT):
//   - a kernel type (KernelMetaType) says which cores a launch of blockDim logical AI cores
//     starts: AIV only, AIC only, or both with AIC:AIV = 1:1 or 1:2 (MIX);
//   - GetBlockNum() is blockDim on every core; GetBlockIdx() is in [0, blockDim) on an AIC and in
//     [0, ratio * blockDim) on an AIV, ratio = GetTaskRatio() (2 on the AIVs of a 1:2 kernel);
//   - GetSubBlockIdx() tells the AIVs of one AI core apart (0 or 1), GetSubBlockNum() counts them;
//   - ASCEND_IS_AIC / ASCEND_IS_AIV select the code of each half; g_coreType names the core type.
// The device compiler fixes the type at compile time: from the declaration (per tiling key, or the
// default), or from what the kernel uses -- the high-level Matmul API is MIX 1:2 unless
// ASCENDC_CUBE_ONLY is defined before lib/matmul_intf.h. Declarations are recorded here when the
// runner starts (a static member each declaration instantiates), whether or not the code path that
// holds them runs, as the compiler sees them.
//
// A kernel that declares nothing and uses no Matmul object keeps the simulator's unified core
// (core type MIX here): cube and vector halves of a block run on one emulated core in program order,
// both guards are true, and g_coreType reads AIV.
#pragma once
#include "ascendopt_kernel/runtime.h"

// Kernel types, as the toolkit's kernel headers declare them (global scope).
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};

namespace ao::rt {
// Core types (Core::core_type), numbered as AscendC's MIX / AIC / AIV constants.
constexpr int8_t kCoreUnified = 0;
constexpr int8_t kCoreAic = 1;
constexpr int8_t kCoreAiv = 2;

// How a kernel type was learnt; a stronger source wins for a tiling key.
enum class KernelTypeSource : uint8_t { Inferred = 1, Default = 2, ForKey = 3 };
// Records a kernel-type declaration (called while the runner starts). Returns true.
bool DeclareKernelType(uint64_t tiling_key, int kernel_type, KernelTypeSource source);

template <uint64_t Key, int Type, KernelTypeSource Source>
struct KernelTypeDecl {
    static inline const bool registered = DeclareKernelType(Key, Type, Source);
};
}  // namespace ao::rt

#undef KERNEL_TASK_TYPE_DEFAULT
#undef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE_DEFAULT(t) \
    (void)::ao::rt::KernelTypeDecl<0, int(t), ::ao::rt::KernelTypeSource::Default>::registered
#define KERNEL_TASK_TYPE(k, t) \
    (void)::ao::rt::KernelTypeDecl<uint64_t(k), int(t), ::ao::rt::KernelTypeSource::ForKey>::registered

namespace AscendC {
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;

__aicore__ inline int64_t GetSubBlockIdx() { return ao::rt::Cur().sub_block_idx; }
__aicore__ inline int64_t GetSubBlockNum() { return ao::rt::Cur().sub_block_num; }
__aicore__ inline int64_t GetTaskRatio() { return ao::rt::Cur().task_ratio; }
__aicore__ inline int64_t GetTaskRation() { return ao::rt::Cur().task_ratio; }
}  // namespace AscendC

namespace ao::k {
// g_coreType read as a value: AIC on a cube core, AIV on a vector core and on the unified core.
struct CoreTypeVar {
    constexpr CoreTypeVar() = default;
    operator int32_t() const { return ao::rt::Cur().core_type == ao::rt::kCoreAic ? AscendC::AIC : AscendC::AIV; }
};
}  // namespace ao::k
namespace AscendC {
inline constexpr ao::k::CoreTypeVar g_coreType{};
}  // namespace AscendC

#define ASCEND_IS_AIV (::ao::rt::Cur().core_type != ::ao::rt::kCoreAic)
#define ASCEND_IS_AIC (::ao::rt::Cur().core_type != ::ao::rt::kCoreAiv)
#define ASCEND_IS_NOT_AIV (::ao::rt::Cur().core_type == ::ao::rt::kCoreAic)
#define ASCEND_IS_NOT_AIC (::ao::rt::Cur().core_type == ::ao::rt::kCoreAiv)
