// AscendOptimizer simulator (runtime-private): the cores a launch starts and who meets whom.
// The kernel type comes from the kernel's declarations (ascendopt_kernel/core_role.h); the plan
// lists every emulated core of the launch: AICs first (block i is AI core i), then the AIVs
// (block v belongs to AI core v / ratio, sub-block v % ratio). See core_role.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ao::rt {

struct CoreRole {
    int8_t type = 0;        // kCoreUnified, kCoreAic or kCoreAiv
    int32_t block_idx = 0;  // what GetBlockIdx() returns
    int32_t sub_idx = 0;    // GetSubBlockIdx()
    int32_t sub_num = 1;    // GetSubBlockNum()
    int32_t ratio = 1;      // GetTaskRatio()
    int32_t group = 0;      // the AI core (AIC + its AIVs) this core belongs to
};

struct LaunchPlan {
    int kernel_type = -1;  // KernelMetaType, -1 when the kernel declares none (unified cores)
    std::vector<CoreRole> cores;
    // "block 3" (unified) or "AIV block 3" / "AIC block 1", for messages.
    std::string Label(int sim_idx) const;
};

// The cores a launch of block_dim logical cores starts for this tiling key.
LaunchPlan PlanLaunch(uint32_t block_dim, uint64_t tiling_key);
// The name of a KernelMetaType value ("KERNEL_TYPE_MIX_AIC_1_2"), or "unified".
const char* KernelTypeName(int kernel_type);

// CrossCoreSetFlag<mode> by core `self`: once every core of `participants` has set the flag (one
// round), the flag counter of every core of `targets` goes up by one.
//   mode 0: the cores of self's type in the whole launch;
//   mode 1: the cores of self's type in self's AI core (the two AIVs of a 1:2 kernel);
//   mode 2: an AIC raises the AIVs of its AI core; the AIVs of an AI core together raise its AIC.
// A unified core (both halves on one core) is its own partner in modes 1 and 2.
void FlagRound(const LaunchPlan& plan, int mode, int self, std::vector<int>& participants, std::vector<int>& targets);

// SyncAll barrier classes: 0 the AICs, 1 the AIVs (and unified cores), 2 every core.
int BarrierClassOf(const LaunchPlan& plan, int self, bool aiv_only);
bool InBarrierClass(const LaunchPlan& plan, int core, int cls);

}  // namespace ao::rt
