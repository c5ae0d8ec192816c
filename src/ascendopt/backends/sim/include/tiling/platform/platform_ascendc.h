// AscendOptimizer simulator (host side): platform_ascendc::PlatformAscendC over the runner's
// SoC configuration.
#pragma once
#include <cstdint>
#include <string>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND310P,
    ASCEND310B,
    ASCEND950,
    ASCEND910_55,
    AS31XM1,
    ASCEND031,
    ASCEND035,
    ASCEND310,
    ASCEND610,
    ASCEND610Lite,
    ASCEND910_93,
    BS9SX1A,
    BS9SX2A,
    HI3796CV300CS,
    HI3796CV300ES,
    MC61AM21A,
    MC62CM12A,
    SD3403,
    KIRINX90,
    KIRIN9030,
    RESERVED_VERSION = 99999
};

enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

// Maps a SoC name ("Ascend910B", "Ascend910B3", "Ascend910_9391", "ascend310p") to the family.
// Defined in runtime/host_rt.cpp, like the members below that touch std strings.
SocVersion AoSocVersionFromName(const std::string& name);

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}

    // On AIC/AIV-separated SoCs this is the vector core count.
    uint32_t GetCoreNum() const {
        const fe::PlatFormInfos* p = Info();
        return p->ao_aiv_cores ? p->ao_aiv_cores : p->ao_aic_cores;
    }
    uint32_t GetCoreNumAic() const { return Info()->ao_aic_cores; }
    uint32_t GetCoreNumAiv() const { return Info()->ao_aiv_cores; }
    uint32_t GetCoreNumVector() const { return 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ratio = aivCoreNum / aicCoreNum;
        if (ratio == 0) return sliceNum;
        return (sliceNum + ratio - 1) / ratio;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }
    uint32_t GetLibApiWorkSpaceSize() const { return static_cast<uint32_t>(Info()->ao_lib_api_workspace_bytes); }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        const fe::PlatFormInfos* p = Info();
        switch (memType) {
            case CoreMemType::UB: size = p->ao_ub_bytes > reserved_ ? p->ao_ub_bytes - reserved_ : 0; break;
            case CoreMemType::L1: size = p->ao_l1_bytes; break;
            case CoreMemType::L0_A: size = p->ao_l0a_bytes; break;
            case CoreMemType::L0_B: size = p->ao_l0b_bytes; break;
            case CoreMemType::L0_C: size = p->ao_l0c_bytes; break;
            case CoreMemType::L2: size = p->ao_l2_bytes; break;
            case CoreMemType::HBM: size = p->ao_hbm_bytes; break;
            case CoreMemType::FB: size = 2048; break;
            case CoreMemType::BT: size = 1024; break;
            default: size = 0; break;
        }
    }
    // Approximate bytes/cycle figures (the simulator's timing model is authoritative).
    void GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const {
        switch (memType) {
            case CoreMemType::L2: bwSize = 110; break;
            case CoreMemType::HBM: bwSize = 32; break;
            case CoreMemType::UB: case CoreMemType::L1: case CoreMemType::L0_A: case CoreMemType::L0_B:
            case CoreMemType::L0_C: bwSize = 128; break;
            default: bwSize = 0; break;
        }
    }
    void ReserveLocalMemory(ReservedSize size) {
        switch (size) {
            case ReservedSize::RESERVED_SIZE_8K: reserved_ = 8 * 1024; break;
            case ReservedSize::RESERVED_SIZE_16K: reserved_ = 16 * 1024; break;
            case ReservedSize::RESERVED_SIZE_32K: reserved_ = 32 * 1024; break;
        }
    }
    SocVersion GetSocVersion() const;
    uint32_t GetVecRegLen() const { return 256; }

private:
    // The platform given, else the one of the tiling run in progress, else an empty one.
    const fe::PlatFormInfos* Info() const;
    fe::PlatFormInfos* platformInfo_;
    uint64_t reserved_ = 0;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC inst(nullptr);
        return &inst;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};

}  // namespace platform_ascendc
