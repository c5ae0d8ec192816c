/**
 * @file add_broadcast.cpp
 * Host side of AddBroadcast: z = x + y, y broadcast along the leading axes of x (numpy
 * rules restricted to "y's shape, without leading 1s, is a suffix of x's shape"), or x and
 * y of the same shape.
 *
 * Three strategies (tiling keys, see add_broadcast_tiling.h):
 *   0  same shape: flat split in 32-byte blocks over the cores, UB tiles per core;
 *   1  rows of x over the cores, y loaded once and replicated `rowsPerTile` times in UB so
 *      one Add covers a whole multi-row tile;
 *   2  columns over the cores (few rows, or rows too long for UB), each y chunk loaded once
 *      and reused by every row.
 */
#include "add_broadcast_tiling.h"
#include "register/op_def_registry.h"
#include "graph/utils/type_utils.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t REPEAT_BYTES = 256;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t MAX_BURST_NUM = 4095;   // DataCopyPad blockCount limit
constexpr uint64_t KEY_SAME_SHAPE = 0;
constexpr uint64_t KEY_ROW_BROADCAST = 1;
constexpr uint64_t KEY_COL_SPLIT = 2;

static inline void SplitTiles(uint32_t dataNum, uint32_t tileDataNum, uint32_t& tileNum, uint32_t& tailNum)
{
    tileNum = (dataNum + tileDataNum - 1) / tileDataNum;
    tailNum = dataNum - (tileNum - 1) * tileDataNum;
}

// Splits `totalNum` elements in blocks of `alignNum` over at most `maxCores` cores, at least
// `minBlocks` blocks per core. Returns the core count.
static inline uint32_t SplitBlocks(uint64_t totalNum, uint32_t alignNum, uint32_t maxCores, uint64_t minBlocks,
                                   uint32_t& smallNum, uint32_t& bigNum, uint32_t& lastNum, uint32_t& bigCores)
{
    uint64_t totalBlocks = (totalNum + alignNum - 1) / alignNum;
    uint64_t cores = (totalBlocks + minBlocks - 1) / minBlocks;
    cores = cores < maxCores ? cores : maxCores;
    cores = cores < totalBlocks ? cores : totalBlocks;
    cores = cores > 0 ? cores : 1;
    uint64_t everyCoreBlocks = totalBlocks / cores;
    bigCores = static_cast<uint32_t>(totalBlocks % cores);
    smallNum = static_cast<uint32_t>(everyCoreBlocks * alignNum);
    bigNum = smallNum + alignNum;
    lastNum = static_cast<uint32_t>(smallNum - (totalBlocks * alignNum - totalNum));
    return static_cast<uint32_t>(cores);
}

// y broadcasts to x when y's dims without leading 1s equal x's trailing dims.
static bool IsSuffixBroadcast(const gert::Shape& xShape, const gert::Shape& yShape)
{
    size_t yBegin = 0;
    while (yBegin < yShape.GetDimNum() && yShape.GetDim(yBegin) == 1) {
        ++yBegin;
    }
    size_t yRank = yShape.GetDimNum() - yBegin;
    if (yRank > xShape.GetDimNum()) {
        return false;
    }
    size_t xBegin = xShape.GetDimNum() - yRank;
    for (size_t i = 0; i < yRank; ++i) {
        if (xShape.GetDim(xBegin + i) != yShape.GetDim(yBegin + i)) {
            return false;
        }
    }
    return true;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AddBroadcastTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNum();

    uint32_t typeBytes = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeBytes);
    const gert::Shape& xShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& yShape = context->GetInputShape(1)->GetStorageShape();
    uint64_t xNum = xShape.GetShapeSize();
    uint64_t yNum = yShape.GetShapeSize();
    if (typeBytes == 0 || xNum == 0 || yNum == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    bool sameShape = (xNum == yNum);
    if (!sameShape && (xNum % yNum != 0 || !IsSuffixBroadcast(xShape, yShape))) {
        return ge::GRAPH_FAILED;
    }

    // # evolve_tiling_block_start
    uint32_t ubReserveBytes = 0;          // UB kept free for the framework
    uint32_t minBytesPerCore = 4096;      // do not split smaller shares over more cores
    uint32_t maxCoreNum = coreNum;        // cores the split may use
    uint32_t colSplitRowFactor = 1;       // prefer the column split when rows * factor < cores
    // # evolve_tiling_block_end

    uint32_t alignNum = BLOCK_BYTES / typeBytes;
    uint32_t repeatNum = REPEAT_BYTES / typeBytes;
    uint64_t ubAvail = ubSize - ubReserveBytes;
    uint64_t minBlocks = minBytesPerCore / BLOCK_BYTES > 0 ? minBytesPerCore / BLOCK_BYTES : 1;
    uint32_t smallNum = 0;
    uint32_t bigNum = 0;
    uint32_t lastNum = 0;
    uint32_t bigCores = 0;
    uint32_t usedCores = 1;
    uint64_t tilingKey = KEY_SAME_SHAPE;

    uint64_t rows = sameShape ? 1 : xNum / yNum;
    uint64_t cols = sameShape ? xNum : yNum;
    uint64_t colsAligned = (cols + alignNum - 1) / alignNum * alignNum;
    // key 1 keeps x and z (double buffered) and the replicated y: five rows per tile row.
    uint64_t rowsPerTile = sameShape ? 0 : ubAvail / (colsAligned * typeBytes * (2 * BUFFER_NUM + 1));
    rowsPerTile = rowsPerTile < MAX_BURST_NUM ? rowsPerTile : MAX_BURST_NUM;

    if (sameShape) {
        tilingKey = KEY_SAME_SHAPE;
        usedCores = SplitBlocks(xNum, alignNum, maxCoreNum, minBlocks, smallNum, bigNum, lastNum, bigCores);
        uint64_t tileDataNum = ubAvail / (BUFFER_NUM * 3 * typeBytes) / repeatNum * repeatNum;
        uint64_t maxShare = bigCores > 0 ? bigNum : smallNum;
        uint64_t shareAligned = (maxShare + repeatNum - 1) / repeatNum * repeatNum;
        tileDataNum = tileDataNum < shareAligned ? tileDataNum : shareAligned;
        uint32_t tileNum = 0;
        uint32_t tailNum = 0;
        SplitTiles(smallNum, tileDataNum, tileNum, tailNum);
        tiling.set_smallTileNum(tileNum);
        tiling.set_smallTailDataNum(tailNum);
        SplitTiles(bigNum, tileDataNum, tileNum, tailNum);
        tiling.set_bigTileNum(tileNum);
        tiling.set_bigTailDataNum(tailNum);
        SplitTiles(lastNum, tileDataNum, tileNum, tailNum);
        tiling.set_lastTileNum(tileNum);
        tiling.set_lastTailDataNum(tailNum);
        tiling.set_smallCoreDataNum(smallNum);
        tiling.set_bigCoreDataNum(bigNum);
        tiling.set_lastCoreDataNum(lastNum);
        tiling.set_tileDataNum(static_cast<uint32_t>(tileDataNum));
    } else if (rowsPerTile > 0 && rows * colSplitRowFactor >= maxCoreNum) {
        tilingKey = KEY_ROW_BROADCAST;
        uint64_t rowBytes = cols * typeBytes;
        uint64_t minRows = (minBytesPerCore + rowBytes - 1) / rowBytes;
        minRows = minRows > 0 ? minRows : 1;
        uint64_t cores = (rows + minRows - 1) / minRows;
        cores = cores < maxCoreNum ? cores : maxCoreNum;
        cores = cores > 0 ? cores : 1;
        usedCores = static_cast<uint32_t>(cores);
        uint64_t smallRows = rows / cores;
        bigCores = static_cast<uint32_t>(rows % cores);
        uint64_t maxRows = smallRows + (bigCores > 0 ? 1 : 0);
        rowsPerTile = rowsPerTile < maxRows ? rowsPerTile : maxRows;
        tiling.set_smallCoreRows(static_cast<uint32_t>(smallRows));
        tiling.set_bigCoreRows(static_cast<uint32_t>(smallRows + 1));
    } else {
        tilingKey = KEY_COL_SPLIT;
        usedCores = SplitBlocks(cols, alignNum, maxCoreNum, minBlocks, smallNum, bigNum, lastNum, bigCores);
        // x and z double buffered plus one y chunk.
        uint64_t colTile = ubAvail / ((2 * BUFFER_NUM + 1) * typeBytes) / repeatNum * repeatNum;
        uint64_t maxShare = bigCores > 0 ? bigNum : smallNum;
        uint64_t shareAligned = (maxShare + repeatNum - 1) / repeatNum * repeatNum;
        colTile = colTile < shareAligned ? colTile : shareAligned;
        tiling.set_colTile(static_cast<uint32_t>(colTile));
        tiling.set_smallCoreCols(smallNum);
        tiling.set_bigCoreCols(bigNum);
        tiling.set_lastCoreCols(lastNum);
    }
    tiling.set_tailBlockNum(bigCores);
    tiling.set_rows(static_cast<uint32_t>(rows));
    tiling.set_cols(static_cast<uint32_t>(cols));
    tiling.set_colsAligned(static_cast<uint32_t>(colsAligned));
    tiling.set_rowsPerTile(static_cast<uint32_t>(rowsPerTile));

    context->SetTilingKey(tilingKey);
    context->SetBlockDim(usedCores);
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
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* zShape = context->GetOutputShape(0);
    *zShape = *xShape;
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddBroadcast : public OpDef {
public:
    explicit AddBroadcast(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(AddBroadcast);
}  // namespace ops
