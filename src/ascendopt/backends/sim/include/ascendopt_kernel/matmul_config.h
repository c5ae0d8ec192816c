// AscendOptimizer simulator: the kernel-side configuration types of the high-level Matmul API
// (MatmulConfig and the enums it uses, the Get*Config helpers, CFG_NORM / CFG_MDL & co.).
// Written from the public AscendC documentation (MatmulConfig, GetNormalConfig, GetMDLConfig,
// GetSpecialMDLConfig, GetBasicConfig, GetIBShareNormConfig, GetMMConfig). The field order of
// MatmulConfig and of the *Params structs is the documented one: kernels build them with
// aggregate initialisation. The emulated Matmul (ascendopt_kernel/matmul.h) reads only
// iterateOrder and scheduleType; the other fields select hardware templates that compute the
// same result.
#pragma once
#include <cstdint>

constexpr uint32_t SHARED_CO1_BUFFER_SIZE = 64 * 1024;

enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum BatchOutMode { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum IterateMode : uint8_t {
    ITERATE_MODE_NORMAL = 0b00000001,
    ITERATE_MODE_ALL = 0b00000010,
    ITERATE_MODE_BATCH = 0b00000100,
    ITERATE_MODE_N_BATCH = 0b00001000,
    ITERATE_MODE_DEFAULT = 0b11111111,
};
enum class DecompressionMode {
    DECOMP_NONE = 0,
    DECOMP_2bitTo8bit = 1,
    DECOMP_3bitTo8bit = 2,
    DECOMP_4bitTo8bit = 3,
    DECOMP_16bitTo64bit = 4,
    DECOMP_1bitTo8bit = 5,
    DECOMP_1bitTo4bit = 6,
    DECOMP_2bitTo4bit = 7,
    DECOMP_3bitTo4bit = 8,
};

struct MatmulConfig {
    bool doNorm;
    bool doBasicBlock;
    bool doMultiDataLoad;
    uint32_t basicM;
    uint32_t basicN;
    uint32_t basicK;
    bool intrinsicsCheck;
    bool isNBatch;
    bool enVecND2NZ;
    bool doSpecialBasicBlock;
    uint32_t doMTE2Preload;
    uint32_t singleCoreM;
    uint32_t singleCoreN;
    uint32_t singleCoreK;
    uint32_t stepM;
    uint32_t stepN;
    uint32_t baseMN;
    uint32_t singleCoreMN;
    bool enUnitFlag = true;
    bool isPerTensor;
    bool hasAntiQuantOffset;
    bool doIBShareNorm;
    bool doSpecialMDL;
    bool enableInit = true;
    BatchMode batchMode;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = IterateMode::ITERATE_MODE_DEFAULT;
    bool enableReuse = true;
    bool enableUBReuse;
    bool enableL1CacheUB;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder{IterateOrder::UNDEF};
    ScheduleType scheduleType;
    bool enableDoubleCache;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = SHARED_CO1_BUFFER_SIZE;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};

enum class MatmulConfigMode { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };

struct MatmulShapeParams {
    uint32_t singleCoreM;
    uint32_t singleCoreN;
    uint32_t singleCoreK;
    uint32_t basicM;
    uint32_t basicN;
    uint32_t basicK;
};
struct MatmulQuantParams {
    bool isPerTensor;
    bool hasAntiQuantOffset;
};
struct MatmulBatchParams {
    bool isNBatch;
    BatchMode batchMode;
    bool isBiasBatch = true;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
    bool intrinsicsCheck;
    bool enVecND2NZ;
    bool enableDoubleCache;
    bool enableL1CacheUB;
    uint32_t doMTE2Preload;
    IterateOrder iterateOrder;
    ScheduleType scheduleType;
    bool enableReuse = true;
    bool enableUBReuse;
    bool isPartialOutput = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};
struct MatmulBiasParams {
    bool enableSetBias = true;
};
struct MatrixOffset {
    int32_t offset;
    int32_t row;
    int32_t col;
    int32_t height;
    int32_t width;
};

// A config with every field at its neutral value (what the Get*Config helpers start from).
constexpr MatmulConfig AoBlankMatmulConfig() {
    MatmulConfig c{};
    c.enUnitFlag = true;
    c.enableInit = true;
    c.batchMode = BatchMode::NONE;
    c.iterateOrder = IterateOrder::UNDEF;
    c.scheduleType = ScheduleType::INNER_PRODUCT;
    return c;
}

constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false,
                                       const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true,
                                       const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    MatmulConfig c = AoBlankMatmulConfig();
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}

constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false,
                                    const bool enableL1BankConflictOptimise = false) {
    MatmulConfig c = AoBlankMatmulConfig();
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = enableL1BankConflictOptimise;
    return c;
}

constexpr MatmulConfig GetSpecialMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                           const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                           bool isPerTensor = false, bool hasAntiQuantOffset = false) {
    MatmulConfig c = GetMDLConfig(intrinsicsLimit, batchLoop, doMTE2Preload, isVecND2NZ, isPerTensor,
                                  hasAntiQuantOffset);
    c.doMultiDataLoad = false;
    c.doSpecialMDL = true;
    return c;
}

constexpr MatmulConfig GetBasicConfig(const uint32_t basicM, const uint32_t basicN, const uint32_t basicK,
                                      const bool intrinsicsLimit = false, const bool batchLoop = false,
                                      const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
    MatmulConfig c = AoBlankMatmulConfig();
    c.doBasicBlock = true;
    c.basicM = basicM;
    c.basicN = basicN;
    c.basicK = basicK;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.batchMode = bmmMode;
    return c;
}

constexpr MatmulConfig GetIBShareNormConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                            const bool isVecND2NZ = false,
                                            const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                            const bool isDoubleCache = false, const bool enUnitFlag = true) {
    MatmulConfig c = AoBlankMatmulConfig();
    c.doIBShareNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableDoubleCache = isDoubleCache;
    c.enUnitFlag = enUnitFlag;
    return c;
}

constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();

// GetMMConfig<mode>(params...): the mode's default config with each params struct applied.
constexpr void AoApplyMMParams(MatmulConfig& c, const MatmulShapeParams& p) {
    c.singleCoreM = p.singleCoreM;
    c.singleCoreN = p.singleCoreN;
    c.singleCoreK = p.singleCoreK;
    c.basicM = p.basicM;
    c.basicN = p.basicN;
    c.basicK = p.basicK;
}
constexpr void AoApplyMMParams(MatmulConfig& c, const MatmulQuantParams& p) {
    c.isPerTensor = p.isPerTensor;
    c.hasAntiQuantOffset = p.hasAntiQuantOffset;
}
constexpr void AoApplyMMParams(MatmulConfig& c, const MatmulBatchParams& p) {
    c.isNBatch = p.isNBatch;
    c.batchMode = p.batchMode;
    c.isBiasBatch = p.isBiasBatch;
    c.bmmOutMode = p.bmmOutMode;
}
constexpr void AoApplyMMParams(MatmulConfig& c, const MatmulFuncParams& p) {
    c.intrinsicsCheck = p.intrinsicsCheck;
    c.enVecND2NZ = p.enVecND2NZ;
    c.enableDoubleCache = p.enableDoubleCache;
    c.enableL1CacheUB = p.enableL1CacheUB;
    c.doMTE2Preload = p.doMTE2Preload;
    c.iterateOrder = p.iterateOrder;
    c.scheduleType = p.scheduleType;
    c.enableReuse = p.enableReuse;
    c.enableUBReuse = p.enableUBReuse;
    c.isPartialOutput = p.isPartialOutput;
    c.isA2B2Shared = p.isA2B2Shared;
    c.isEnableChannelSplit = p.isEnableChannelSplit;
    c.enableKdimReorderLoad = p.enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = p.enableL1BankConflictOptimise;
    c.enableRelu = p.enableRelu;
    c.decompMode = p.decompMode;
}
constexpr void AoApplyMMParams(MatmulConfig& c, const MatmulBiasParams& p) { c.enableSetBias = p.enableSetBias; }

template <MatmulConfigMode configMode, typename... ArgTypes>
constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
    MatmulConfig c = CFG_NORM;
    if constexpr (configMode == MatmulConfigMode::CONFIG_MDL) c = CFG_MDL;
    else if constexpr (configMode == MatmulConfigMode::CONFIG_SPECIALMDL) c = GetSpecialMDLConfig();
    else if constexpr (configMode == MatmulConfigMode::CONFIG_IBSHARE) c = CFG_IBSHARE_NORM;
    (AoApplyMMParams(c, args), ...);
    return c;
}
