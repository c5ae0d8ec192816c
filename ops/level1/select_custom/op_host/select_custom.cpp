/**
 * @file select_custom.cpp
 * Host side of SelectCustom: tiling, shape inference and operator definition.
 *
 * All inputs have the output's shape. Elements are split over the vector cores in 32-byte
 * blocks of the narrowest tensor: the first `tailBlockNum` cores ("big" cores) take one block
 * more than the others, and the last core takes what is left of the real (unpadded) length.
 * Each core walks its share in UB tiles; the last tile of a core may be short. The tile
 * length is the UB capacity divided by the bytes every element keeps alive in UB
 * (double-buffered queues for the condition, both value inputs and the output, an fp16 copy of the condition and its bit mask).
 */
#include "select_custom_tiling.h"
#include "register/op_def_registry.h"
#include "graph/utils/type_utils.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;    // DMA / UB alignment unit
constexpr uint32_t REPEAT_BYTES = 256;  // bytes one vector repeat processes
constexpr uint32_t BUFFER_NUM = 2;      // double buffering of the in/out queues
constexpr uint32_t INPUT_NUM = 3;
constexpr uint32_t MASK_ALIGN_NUM = 256;

static inline void SplitTiles(uint32_t dataNum, uint32_t tileDataNum, uint32_t& tileNum, uint32_t& tailNum)
{
    tileNum = (dataNum + tileDataNum - 1) / tileDataNum;
    tailNum = dataNum - (tileNum - 1) * tileDataNum;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SelectCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNum();

    uint64_t totalNum = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t inBytesSum = 0;
    uint32_t minBytes = 0;
    for (uint32_t i = 0; i < INPUT_NUM; ++i) {
        if (static_cast<uint64_t>(context->GetInputShape(i)->GetStorageShape().GetShapeSize()) != totalNum) {
            return ge::GRAPH_FAILED;  // no broadcasting: every input has the output's size
        }
        uint32_t bytes = 0;
        ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(i)->GetDataType(), bytes);
        if (bytes == 0) {
            return ge::GRAPH_FAILED;
        }
        inBytesSum += bytes;
        minBytes = (minBytes == 0 || bytes < minBytes) ? bytes : minBytes;
    }
    uint32_t outBytes = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetOutputDesc(0)->GetDataType(), outBytes);
    if (outBytes == 0 || totalNum == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    minBytes = outBytes < minBytes ? outBytes : minBytes;

    // UB bytes per element: BUFFER_NUM x (inputs + output) plus work buffers.
    // fp16 copy of the condition (2 bytes) and its bit mask (1/8 byte, counted as 1).
    uint32_t tmpBytes = sizeof(uint16_t) + 1;
    uint32_t bytesPerElem = BUFFER_NUM * (inBytesSum + outBytes) + tmpBytes;

    // # evolve_tiling_block_start
    uint32_t ubReserveBytes = 0;         // UB kept free for the framework
    uint32_t minBytesPerCore = 4096;     // do not split smaller shares over more cores
    uint32_t maxCoreNum = coreNum;       // cores the split may use
    // # evolve_tiling_block_end

    uint32_t alignNum = BLOCK_BYTES / minBytes;     // elements per 32-byte block of the narrowest tensor
    // Tiles hold a multiple of 256 elements: the bit mask of a tile (tile / 8 bytes) stays
    // 32-byte aligned and CompareScalar always sees whole 256-byte repeats.
    uint32_t tileAlignNum = MASK_ALIGN_NUM;
    uint64_t totalBlocks = (totalNum + alignNum - 1) / alignNum;
    uint64_t minBlocks = minBytesPerCore / (alignNum * minBytes) > 0 ? minBytesPerCore / (alignNum * minBytes) : 1;
    uint64_t usedCores = (totalBlocks + minBlocks - 1) / minBlocks;
    usedCores = usedCores < maxCoreNum ? usedCores : maxCoreNum;
    usedCores = usedCores < totalBlocks ? usedCores : totalBlocks;
    usedCores = usedCores > 0 ? usedCores : 1;

    uint64_t everyCoreBlocks = totalBlocks / usedCores;
    uint32_t tailBlockNum = static_cast<uint32_t>(totalBlocks % usedCores);
    uint32_t smallCoreDataNum = static_cast<uint32_t>(everyCoreBlocks * alignNum);
    uint32_t bigCoreDataNum = smallCoreDataNum + alignNum;
    uint32_t lastCoreDataNum = static_cast<uint32_t>(smallCoreDataNum - (totalBlocks * alignNum - totalNum));

    uint64_t tileDataNum = (ubSize - ubReserveBytes) / bytesPerElem / tileAlignNum * tileAlignNum;
    uint64_t maxShare = (tailBlockNum > 0 ? bigCoreDataNum : smallCoreDataNum);
    uint64_t shareAligned = (maxShare + tileAlignNum - 1) / tileAlignNum * tileAlignNum;
    tileDataNum = tileDataNum < shareAligned ? tileDataNum : shareAligned;
    if (tileDataNum == 0) {
        return ge::GRAPH_FAILED;
    }

    uint32_t tileNum = 0;
    uint32_t tailNum = 0;
    SplitTiles(smallCoreDataNum, tileDataNum, tileNum, tailNum);
    tiling.set_smallTileNum(tileNum);
    tiling.set_smallTailDataNum(tailNum);
    SplitTiles(bigCoreDataNum, tileDataNum, tileNum, tailNum);
    tiling.set_bigTileNum(tileNum);
    tiling.set_bigTailDataNum(tailNum);
    SplitTiles(lastCoreDataNum, tileDataNum, tileNum, tailNum);
    tiling.set_lastTileNum(tileNum);
    tiling.set_lastTailDataNum(tailNum);
    tiling.set_smallCoreDataNum(smallCoreDataNum);
    tiling.set_bigCoreDataNum(bigCoreDataNum);
    tiling.set_lastCoreDataNum(lastCoreDataNum);
    tiling.set_tileDataNum(static_cast<uint32_t>(tileDataNum));
    tiling.set_tailBlockNum(tailBlockNum);

    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(1);
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class SelectCustom : public OpDef {
public:
    explicit SelectCustom(const char* name) : OpDef(name)
    {
        this->Input("condition")
            .ParamType(REQUIRED)
            .DataType({ge::DT_BOOL, ge::DT_BOOL})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x1")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x2")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(SelectCustom);
}  // namespace ops
