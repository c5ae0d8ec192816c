/**
 * @file log_softmax_last.cpp
 * Host side of LogSoftmaxLast: shape inference, tiling and operator registration.
 *
 * x[rows, cols] -> y[rows, cols]. Rows are spread over the vector cores (the first
 * rows % coreNum cores take one extra row); inside a core, rows are batched into UB
 * tiles sized from the UB capacity and the live buffers (double-buffered x and y, an
 * fp32 copy of the tile for half inputs, fp32 exponentials, and per-group reduction scratch).
 */
#include "log_softmax_last_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t FP32_PER_REPEAT = 64;
constexpr uint32_t FP32_PER_BLOCK = 8;
constexpr uint32_t MAX_REPEAT = 255;
constexpr uint32_t MAX_REPEAT_STRIDE = 255;   // repeat strides are 8-bit block counts
constexpr uint32_t MAX_DMA_BURSTS = 4095;     // DataCopyPad blockCount limit
constexpr uint32_t UB_RESERVED_BYTES = 1024;

static uint32_t DTypeBytes(ge::DataType dt)
{
    switch (dt) {
        case ge::DT_FLOAT: return 4;
        case ge::DT_FLOAT16:
        case ge::DT_BF16: return 2;
        default: return 0;
    }
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    LogSoftmaxLastTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNum();

    const gert::Shape xShape = context->GetInputShape(0)->GetStorageShape();
    size_t dimNum = xShape.GetDimNum();
    if (dimNum < 1) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = static_cast<uint32_t>(xShape.GetDim(dimNum - 1));
    uint32_t rows = 1;
    for (size_t i = 0; i + 1 < dimNum; ++i) {
        rows *= static_cast<uint32_t>(xShape.GetDim(i));
    }
    uint32_t typeBytes = DTypeBytes(context->GetInputDesc(0)->GetDataType());
    if (typeBytes == 0 || rows == 0 || cols == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t elemsPerBlock = BLOCK_BYTES / typeBytes;
    uint32_t alignCols = (cols + elemsPerBlock - 1) / elemsPerBlock * elemsPerBlock;
    if (alignCols > MAX_REPEAT * FP32_PER_REPEAT) {
        return ge::GRAPH_FAILED;   // a row must be covered by one repeated instruction
    }

    uint32_t usedCores = rows < coreNum ? rows : coreNum;
    uint32_t smallCoreRows = rows / usedCores;
    uint32_t bigCoreNum = rows % usedCores;
    uint32_t bigCoreRows = smallCoreRows + (bigCoreNum > 0 ? 1 : 0);

    // # evolve_tiling_block_start
    uint32_t groupRows = 64;                                   // rows per repeated vector instruction
    uint32_t batchRows = (alignCols / FP32_PER_BLOCK <= MAX_REPEAT_STRIDE) ? 1 : 0;
    // Bytes per row of the tile: double-buffered x and y, fp32 exponentials, plus an fp32 copy
    // for half inputs.
    uint64_t rowBytes = static_cast<uint64_t>(BUFFER_NUM) * 2 * alignCols * typeBytes +
                        static_cast<uint64_t>(alignCols) * 4;
    if (typeBytes != 4) {
        rowBytes += static_cast<uint64_t>(alignCols) * 4;
    }
    // Per-group scratch: row values (groupRows fp32) and their broadcast (one block per row).
    uint64_t fixedBytes = UB_RESERVED_BYTES + static_cast<uint64_t>(groupRows) * (4 + BLOCK_BYTES);
    if (cols > FP32_PER_REPEAT) {
        if (batchRows == 1) {
            fixedBytes += static_cast<uint64_t>(groupRows) * FP32_PER_REPEAT * 4;   // column-fold accumulator
        } else {
            fixedBytes += static_cast<uint64_t>(alignCols) * 4;                     // one-row work copy
        }
    }
    if (ubSize <= fixedBytes + rowBytes) {
        return ge::GRAPH_FAILED;   // one row does not fit in UB
    }
    uint64_t rowsPerTile = (ubSize - fixedBytes) / rowBytes;
    if (rowsPerTile > MAX_DMA_BURSTS) {
        rowsPerTile = MAX_DMA_BURSTS;
    }
    if (rowsPerTile > bigCoreRows) {
        rowsPerTile = bigCoreRows;
    }
    if (rowsPerTile > groupRows) {
        rowsPerTile = rowsPerTile / groupRows * groupRows;
    }
    // # evolve_tiling_block_end

    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_alignCols(alignCols);
    tiling.set_bigCoreNum(bigCoreNum);
    tiling.set_bigCoreRows(bigCoreRows);
    tiling.set_smallCoreRows(smallCoreRows);
    tiling.set_rowsPerTile(static_cast<uint32_t>(rowsPerTile));
    tiling.set_groupRows(groupRows);
    tiling.set_batchRows(batchRows);

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
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LogSoftmaxLast : public OpDef {
public:
    explicit LogSoftmaxLast(const char* name) : OpDef(name)
    {
        this->Input("x")
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

OP_ADD(LogSoftmaxLast);
}  // namespace ops
