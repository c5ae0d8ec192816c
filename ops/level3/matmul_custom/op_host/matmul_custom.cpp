/**
 * @file matmul_custom.cpp
 * Host side of MatmulCustom: shape inference, tiling and operator registration.
 *
 * c[M, N] (float) = a[M, K] (float16) x b[K, N] (float16), row-major (ND) operands.
 * The output is split into baseM x baseN blocks that are dealt round-robin to the cube
 * cores; a core walks K in slices of baseK (stepK slices per GM -> L1 copy) and
 * accumulates in L0C before one Fixpipe per block.
 */
#include "matmul_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t CUBE_BLOCK = 16;
constexpr uint32_t HALF_BYTES = 2;
constexpr uint32_t FLOAT_BYTES = 4;

static uint32_t AlignUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MatmulCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t l1Size = 0, l0aSize = 0, l0bSize = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0aSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0bSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);
    uint32_t coreNum = platform.GetCoreNumAic();

    const gert::Shape aShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape bShape = context->GetInputShape(1)->GetStorageShape();
    if (aShape.GetDimNum() != 2 || bShape.GetDimNum() != 2 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t M = static_cast<uint32_t>(aShape.GetDim(0));
    uint32_t K = static_cast<uint32_t>(aShape.GetDim(1));
    uint32_t N = static_cast<uint32_t>(bShape.GetDim(1));
    if (static_cast<uint32_t>(bShape.GetDim(0)) != K || M == 0 || N == 0 || K == 0 || K > 65535 || N > 65535) {
        return ge::GRAPH_FAILED;
    }

    // # evolve_tiling_block_start
    uint32_t baseM = 128;
    uint32_t baseN = 128;
    uint32_t baseK = 64;
    uint32_t stepK = 2;
    uint32_t l1BufNum = 2;
    uint32_t l0BufNum = 2;
    // Fewer 128 x 128 output blocks than cube cores: use 64 x 64 blocks to spread the work.
    if (((M + baseM - 1) / baseM) * ((N + baseN - 1) / baseN) < coreNum) {
        baseM = 64;
        baseN = 64;
    }
    baseM = AlignUp(baseM < AlignUp(M, CUBE_BLOCK) ? baseM : AlignUp(M, CUBE_BLOCK), CUBE_BLOCK);
    baseN = AlignUp(baseN < AlignUp(N, CUBE_BLOCK) ? baseN : AlignUp(N, CUBE_BLOCK), CUBE_BLOCK);
    baseK = AlignUp(baseK < AlignUp(K, CUBE_BLOCK) ? baseK : AlignUp(K, CUBE_BLOCK), CUBE_BLOCK);
    uint32_t kSlices = (K + baseK - 1) / baseK;
    if (stepK > kSlices) {
        stepK = kSlices;
    }
    // # evolve_tiling_block_end

    uint64_t l1Bytes = static_cast<uint64_t>(l1BufNum) * (baseM + baseN) * baseK * stepK * HALF_BYTES;
    uint64_t l0aBytes = static_cast<uint64_t>(l0BufNum) * baseM * baseK * HALF_BYTES;
    uint64_t l0bBytes = static_cast<uint64_t>(l0BufNum) * baseN * baseK * HALF_BYTES;
    uint64_t l0cBytes = static_cast<uint64_t>(baseM) * baseN * FLOAT_BYTES;
    if (baseM == 0 || baseN == 0 || baseK == 0 || stepK == 0 || baseM % CUBE_BLOCK != 0 ||
        baseN % CUBE_BLOCK != 0 || baseK % CUBE_BLOCK != 0 || l1Bytes > l1Size || l0aBytes > l0aSize ||
        l0bBytes > l0bSize || l0cBytes > l0cSize) {
        return ge::GRAPH_FAILED;
    }
    uint32_t mBlocks = (M + baseM - 1) / baseM;
    uint32_t nBlocks = (N + baseN - 1) / baseN;
    uint32_t blocks = mBlocks * nBlocks;
    uint32_t usedCores = blocks < coreNum ? blocks : coreNum;

    tiling.set_M(M);
    tiling.set_N(N);
    tiling.set_K(K);
    tiling.set_baseM(baseM);
    tiling.set_baseN(baseN);
    tiling.set_baseK(baseK);
    tiling.set_stepK(stepK);
    tiling.set_mBlocks(mBlocks);
    tiling.set_nBlocks(nBlocks);
    tiling.set_l1BufNum(l1BufNum);
    tiling.set_l0BufNum(l0BufNum);

    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* aShape = context->GetInputShape(0);
    const gert::Shape* bShape = context->GetInputShape(1);
    gert::Shape* cShape = context->GetOutputShape(0);
    cShape->SetDimNum(2);
    cShape->SetDim(0, aShape->GetDim(0));
    cShape->SetDim(1, bShape->GetDim(1));
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulCustom : public OpDef {
public:
    explicit MatmulCustom(const char* name) : OpDef(name)
    {
        this->Input("a")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND});
        this->Input("b")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND});
        this->Output("c")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MatmulCustom);
}  // namespace ops
