// AscendOptimizer simulator: kernel-type declarations and the core plan of a launch.
//
// Documented behaviour this follows (AscendC docs: GetBlockIdx, GetBlockNum, GetTaskRatio,
// GetSubBlockNum, CrossCoreSetFlag, "setting the kernel type"):
//   AIV_ONLY / MIX_AIV_1_0          blockDim AIVs, ratio 1
//   AIC_ONLY / MIX_AIC_1_0          blockDim AICs
//   MIX_AIC_1_1                     blockDim AICs + blockDim AIVs
//   MIX_AIC_1_2                     blockDim AICs + 2 * blockDim AIVs; on the AIVs GetBlockIdx() is
//                                   in [0, 2 * blockDim), GetSubBlockIdx() in {0, 1}, ratio 2
//   VECTORCORE / MIX_VECTOR_CORE    vector-core types of other SoCs: AIVs on this one
//   none, AICORE, MIX_AICORE        unified cores (coupled architecture: one core, both units)
#include "core_role.h"

#include <map>
#include <mutex>

#include "ascendopt_kernel/core_role.h"

namespace ao::rt {

namespace {
struct Declared {
    std::mutex mu;
    std::map<uint64_t, int> for_key;  // KERNEL_TASK_TYPE(key, type)
    int by_default = -1;              // KERNEL_TASK_TYPE_DEFAULT(type)
    int inferred = -1;                // from the APIs the kernel uses (Matmul: MIX 1:2)
};
Declared& Decls() {
    static Declared d;  // function-local: declarations run during static initialisation
    return d;
}
}  // namespace

bool DeclareKernelType(uint64_t tiling_key, int kernel_type, KernelTypeSource source) {
    Declared& d = Decls();
    std::lock_guard<std::mutex> lk(d.mu);
    switch (source) {
        case KernelTypeSource::ForKey: d.for_key[tiling_key] = kernel_type; break;
        case KernelTypeSource::Default: d.by_default = kernel_type; break;
        case KernelTypeSource::Inferred:
            // A cube-only Matmul next to a mixed one still needs the vector cores.
            if (d.inferred < 0 || kernel_type == KERNEL_TYPE_MIX_AIC_1_2) d.inferred = kernel_type;
            break;
    }
    return true;
}

const char* KernelTypeName(int t) {
    static const char* names[] = {"KERNEL_TYPE_AIV_ONLY",      "KERNEL_TYPE_AIC_ONLY",       "KERNEL_TYPE_MIX_AIV_1_0",
                                  "KERNEL_TYPE_MIX_AIC_1_0",   "KERNEL_TYPE_MIX_AIC_1_1",    "KERNEL_TYPE_MIX_AIC_1_2",
                                  "KERNEL_TYPE_AICORE",        "KERNEL_TYPE_VECTORCORE",     "KERNEL_TYPE_MIX_AICORE",
                                  "KERNEL_TYPE_MIX_VECTOR_CORE"};
    return t >= 0 && t < int(KERNEL_TYPE_MAX) ? names[t] : "unified";
}

std::string LaunchPlan::Label(int sim_idx) const {
    if (sim_idx < 0 || sim_idx >= int(cores.size())) return "block ?";
    const CoreRole& r = cores[size_t(sim_idx)];
    const char* kind = r.type == kCoreAic ? "AIC " : r.type == kCoreAiv && kernel_type >= 0 ? "AIV " : "";
    return std::string(kind) + "block " + std::to_string(r.block_idx);
}

LaunchPlan PlanLaunch(uint32_t block_dim, uint64_t tiling_key) {
    LaunchPlan plan;
    {
        Declared& d = Decls();
        std::lock_guard<std::mutex> lk(d.mu);
        auto it = d.for_key.find(tiling_key);
        plan.kernel_type = it != d.for_key.end() ? it->second : d.by_default >= 0 ? d.by_default : d.inferred;
    }
    int aic = 0, aiv = 0, ratio = 1;
    bool unified = false;
    switch (plan.kernel_type) {
        case KERNEL_TYPE_AIV_ONLY: case KERNEL_TYPE_MIX_AIV_1_0: case KERNEL_TYPE_VECTORCORE:
        case KERNEL_TYPE_MIX_VECTOR_CORE: aiv = 1; break;
        case KERNEL_TYPE_AIC_ONLY: case KERNEL_TYPE_MIX_AIC_1_0: aic = 1; break;
        case KERNEL_TYPE_MIX_AIC_1_1: aic = 1; aiv = 1; break;
        case KERNEL_TYPE_MIX_AIC_1_2: aic = 1; aiv = 1; ratio = 2; break;
        default: unified = true; plan.kernel_type = -1; break;
    }
    int n = int(block_dim);
    if (unified) {
        for (int b = 0; b < n; ++b) plan.cores.push_back({kCoreUnified, b, 0, 1, 1, b});
        return plan;
    }
    if (aic)
        for (int b = 0; b < n; ++b) plan.cores.push_back({kCoreAic, b, 0, 1, 1, b});
    if (aiv)
        for (int v = 0; v < n * ratio; ++v) plan.cores.push_back({kCoreAiv, v, v % ratio, ratio, ratio, v / ratio});
    return plan;
}

void FlagRound(const LaunchPlan& plan, int mode, int self, std::vector<int>& participants, std::vector<int>& targets) {
    participants.clear();
    targets.clear();
    const CoreRole& me = plan.cores[size_t(self)];
    const int n = int(plan.cores.size());
    if (me.type == kCoreUnified && mode != 0) {
        participants.push_back(self);
        targets.push_back(self);
        return;
    }
    for (int c = 0; c < n; ++c) {
        const CoreRole& r = plan.cores[size_t(c)];
        bool same_type = r.type == me.type, same_core = r.group == me.group;
        if (mode == 0) {
            if (same_type) participants.push_back(c), targets.push_back(c);
        } else if (mode == 1) {
            if (same_type && same_core) participants.push_back(c), targets.push_back(c);
        } else if (same_core) {  // mode 2
            if (me.type == kCoreAic) {
                if (c == self) participants.push_back(c);
                if (r.type == kCoreAiv) targets.push_back(c);
            } else {
                if (r.type == kCoreAiv) participants.push_back(c);
                if (r.type == kCoreAic) targets.push_back(c);
            }
        }
    }
}

int BarrierClassOf(const LaunchPlan& plan, int self, bool aiv_only) {
    if (!aiv_only) return 2;
    return plan.cores[size_t(self)].type == kCoreAic ? 0 : 1;
}

bool InBarrierClass(const LaunchPlan& plan, int core, int cls) {
    if (cls == 2) return true;
    bool aic = plan.cores[size_t(core)].type == kCoreAic;
    return cls == 0 ? aic : !aic;
}

}  // namespace ao::rt
