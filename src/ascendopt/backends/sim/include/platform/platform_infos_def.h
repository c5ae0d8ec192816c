// AscendOptimizer simulator (host side): fe::PlatFormInfos, filled by the host runtime from the
// runner's SoC configuration. Tiling code treats it as opaque and reads it via PlatformAscendC.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

// The toolkit's header includes platform_info_def.h, which declares these at global scope; tiling
// libraries write unqualified string/map/vector in their own namespaces with only this header.
using std::map;
using std::string;
using std::vector;

namespace fe {

enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

// Member bodies that touch the resource map are in runtime/host_rt.cpp (see register/op_def.h).
class PlatFormInfos {
public:
    PlatFormInfos();
    PlatFormInfos(const PlatFormInfos&);
    PlatFormInfos(PlatFormInfos&&) noexcept;
    PlatFormInfos& operator=(const PlatFormInfos&);
    PlatFormInfos& operator=(PlatFormInfos&&) noexcept;
    ~PlatFormInfos();

    // CANN-style string lookups ("SoCInfo"/"ai_core_cnt", "AICoreSpec"/"ub_size", "version"/"SoC_version").
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const;
    bool GetPlatformRes(const std::string& label, std::map<std::string, std::string>& vals) const;
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    bool GetPlatformResWithLock(const std::string& label, std::map<std::string, std::string>& vals) const {
        return GetPlatformRes(label, vals);
    }
    uint32_t GetCoreNum() const { return ao_aiv_cores ? ao_aiv_cores : ao_aic_cores; }
    uint32_t GetCoreNumWithLock() const { return GetCoreNum(); }
    uint32_t GetCoreNumByType(const std::string& type) const;
    void GetLocalMemSize(const LocalMemType& type, uint64_t& size) const {
        switch (type) {
            case LocalMemType::L0_A: size = ao_l0a_bytes; break;
            case LocalMemType::L0_B: size = ao_l0b_bytes; break;
            case LocalMemType::L0_C: size = ao_l0c_bytes; break;
            case LocalMemType::L1: size = ao_l1_bytes; break;
            case LocalMemType::L2: size = ao_l2_bytes; break;
            case LocalMemType::UB: size = ao_ub_bytes; break;
            case LocalMemType::HBM: size = ao_hbm_bytes; break;
            default: size = 0;
        }
    }
    void SetCoreNumByCoreType(const std::string&) {}
    void SetPlatformRes(const std::string& label, const std::string& key, const std::string& val);

    // Filled by the host runtime (ao::host::RunTiling).
    std::string ao_soc_name;
    std::string ao_soc_version;
    uint32_t ao_aiv_cores = 0;
    uint32_t ao_aic_cores = 0;
    uint64_t ao_ub_bytes = 0;
    uint64_t ao_l1_bytes = 0;
    uint64_t ao_l0a_bytes = 0;
    uint64_t ao_l0b_bytes = 0;
    uint64_t ao_l0c_bytes = 0;
    uint64_t ao_l2_bytes = 0;
    uint64_t ao_hbm_bytes = 0;
    uint64_t ao_lib_api_workspace_bytes = 0;

private:
    std::map<std::string, std::map<std::string, std::string>> res_;
};

class OptionalInfos {};

// The platform of the tiling run in progress (PlatformAscendC(nullptr) and
// PlatformAscendCManager::GetInstance() read this one).
inline PlatFormInfos*& AoCurrentPlatform() {
    static PlatFormInfos* p = nullptr;
    return p;
}

}  // namespace fe
