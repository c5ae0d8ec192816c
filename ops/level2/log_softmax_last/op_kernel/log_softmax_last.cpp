/**
 * @file log_softmax_last.cpp
 * LogSoftmaxLast kernel: y[r, :] = (x[r, :] - max) - ln(sum(exp(x[r, :] - max))), computed in fp32.
 *
 * Each core owns a contiguous range of rows, moved in tiles of rowsPerTile rows with one
 * DataCopyPad per direction (row pitch alignCols), double-buffered through VECIN/VECOUT queues.
 * Rows of a tile are processed in groups of groupRows:
 *   row max / row sum   WholeReduceMax/Sum repeated over the rows when cols <= 64; otherwise the
 *                       columns are first folded 64 at a time with Max/Add repeated over the rows
 *                       (batchRows == 1), or each row is halved in a work copy (batchRows == 0);
 *   x - max, - ln(sum)  the per-row values are broadcast to one block per row with Brcb and applied
 *                       with Sub whose src1 block stride is 0; exponentials go to separate fp32 scratch.
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t FP32_PER_REPEAT = 64;
constexpr uint32_t FP32_PER_BLOCK = 8;
constexpr uint8_t BLOCKS_PER_REPEAT = 8;

enum class RowOp { SUM, MAX };
enum class ApplyOp { SUB, ADD };

__aicore__ inline uint32_t MinU32(uint32_t a, uint32_t b) { return a < b ? a : b; }
__aicore__ inline uint32_t AlignUpU32(uint32_t a, uint32_t b) { return (a + b - 1) / b * b; }
}  // namespace

template <typename T>
class KernelLogSoftmaxLast {
public:
    __aicore__ inline KernelLogSoftmaxLast() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t alignCols, uint32_t bigCoreNum,
                                uint32_t bigCoreRows, uint32_t smallCoreRows, uint32_t rowsPerTile,
                                uint32_t groupRows, uint32_t batchRows)
    {
        this->cols = cols;
        this->alignCols = alignCols;
        this->rowsPerTile = rowsPerTile;
        this->groupRows = groupRows;
        this->batchRows = batchRows;
        uint32_t blockIdx = GetBlockIdx();
        uint32_t rowStart;
        if (blockIdx < bigCoreNum) {
            rowCount = bigCoreRows;
            rowStart = blockIdx * bigCoreRows;
        } else {
            rowCount = smallCoreRows;
            rowStart = bigCoreNum * bigCoreRows + (blockIdx - bigCoreNum) * smallCoreRows;
        }
        uint64_t offset = static_cast<uint64_t>(rowStart) * cols;
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowCount) * cols);

        uint32_t tileBytes = rowsPerTile * alignCols * sizeof(T);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileBytes);
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(castBuf, rowsPerTile * alignCols * sizeof(float));
        }
        pipe.InitBuffer(expBuf, rowsPerTile * alignCols * sizeof(float));
        pipe.InitBuffer(valBuf, groupRows * sizeof(float));
        pipe.InitBuffer(brcbBuf, groupRows * FP32_PER_BLOCK * sizeof(float));
        if (cols > FP32_PER_REPEAT) {
            if (batchRows == 1) {
                pipe.InitBuffer(foldBuf, groupRows * FP32_PER_REPEAT * sizeof(float));
            } else {
                pipe.InitBuffer(foldBuf, alignCols * sizeof(float));
            }
        }
    }

    __aicore__ inline void Process()
    {
        if (rowCount == 0) {
            return;
        }
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        uint32_t tailRows = rowCount - (tileNum - 1) * rowsPerTile;
        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t rows = (i == tileNum - 1) ? tailRows : rowsPerTile;
            CopyIn(i, rows);
            Compute(rows);
            CopyOut(i, rows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t tile, uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        DataCopyExtParams copyParams(static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0);
        DataCopyPadExtParams<T> padParams(true, 0, static_cast<uint8_t>(alignCols - cols), static_cast<T>(0));
        DataCopyPad(xLocal, xGm[static_cast<uint64_t>(tile) * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        LocalTensor<float> xFp32;
        if constexpr (std::is_same_v<T, float>) {
            xFp32 = xLocal;
        } else {
            xFp32 = castBuf.Get<float>();
            Cast(xFp32, xLocal, RoundMode::CAST_NONE, rows * alignCols);
            PipeBarrier<PIPE_V>();
            inQueueX.FreeTensor(xLocal);
        }
        LocalTensor<float> vals = valBuf.Get<float>();
        LocalTensor<float> expAll = expBuf.Get<float>();
        for (uint32_t r0 = 0; r0 < rows; r0 += groupRows) {
            uint32_t n = MinU32(groupRows, rows - r0);
            LocalTensor<float> part = xFp32[r0 * alignCols];
            LocalTensor<float> expPart = expAll[r0 * alignCols];
            RowReduce<RowOp::MAX>(vals, part, n);
            PipeBarrier<PIPE_V>();
            RowApply<ApplyOp::SUB>(part, part, vals, n);
            PipeBarrier<PIPE_V>();
            Exp(expPart, part, static_cast<int32_t>(n * alignCols));
            PipeBarrier<PIPE_V>();
            RowReduce<RowOp::SUM>(vals, expPart, n);
            PipeBarrier<PIPE_V>();
            Ln(vals, vals, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            if constexpr (std::is_same_v<T, float>) {
                RowApply<ApplyOp::SUB>(yLocal[r0 * alignCols], part, vals, n);
            } else {
                RowApply<ApplyOp::SUB>(part, part, vals, n);
            }
            PipeBarrier<PIPE_V>();
        }
        if constexpr (std::is_same_v<T, float>) {
            inQueueX.FreeTensor(xLocal);
        } else {
            Cast(yLocal, xFp32, RoundMode::CAST_RINT, rows * alignCols);
        }
        outQueueY.EnQue<T>(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t tile, uint32_t rows)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopyExtParams copyParams(static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0);
        DataCopyPad(yGm[static_cast<uint64_t>(tile) * rowsPerTile * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

    template <RowOp OP>
    __aicore__ inline void WholeReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t mask,
                                       uint32_t repeat, uint32_t srcRepStride)
    {
        if constexpr (OP == RowOp::SUM) {
            WholeReduceSum<float>(dst, src, static_cast<int32_t>(mask), static_cast<int32_t>(repeat), 1, 1,
                                  static_cast<int32_t>(srcRepStride));
        } else {
            WholeReduceMax<float>(dst, src, static_cast<int32_t>(mask), static_cast<int32_t>(repeat), 1, 1,
                                  static_cast<int32_t>(srcRepStride), ReduceOrder::ORDER_ONLY_VALUE);
        }
    }

    template <RowOp OP>
    __aicore__ inline void Combine(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                   const LocalTensor<float>& src1, uint32_t mask, uint32_t repeat,
                                   const BinaryRepeatParams& params)
    {
        if constexpr (OP == RowOp::SUM) {
            Add(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        } else {
            Max(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        }
    }

    template <RowOp OP>
    __aicore__ inline void Combine(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                   const LocalTensor<float>& src1, uint32_t count)
    {
        if constexpr (OP == RowOp::SUM) {
            Add(dst, src0, src1, static_cast<int32_t>(count));
        } else {
            Max(dst, src0, src1, static_cast<int32_t>(count));
        }
    }

    // dst[r] = reduction of the first cols values of row r of src (n rows, pitch alignCols). src is kept.
    template <RowOp OP>
    __aicore__ inline void RowReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        uint32_t rowStrideBlocks = alignCols / FP32_PER_BLOCK;
        if (cols <= FP32_PER_REPEAT) {
            WholeReduce<OP>(dst, src, cols, n, rowStrideBlocks);
            return;
        }
        LocalTensor<float> work = foldBuf.Get<float>();
        if (batchRows == 1) {
            // work[r, 0:64] = src[r, 0:64], then fold the remaining 64-column chunks of every row into it.
            DataCopy(work, src,
                     DataCopyParams(static_cast<uint16_t>(n), BLOCKS_PER_REPEAT,
                                    static_cast<uint16_t>(rowStrideBlocks - BLOCKS_PER_REPEAT), 0));
            PipeBarrier<PIPE_V>();
            BinaryRepeatParams params(1, 1, 1, BLOCKS_PER_REPEAT, BLOCKS_PER_REPEAT,
                                      static_cast<uint8_t>(rowStrideBlocks));
            for (uint32_t c = FP32_PER_REPEAT; c < cols; c += FP32_PER_REPEAT) {
                Combine<OP>(work, work, src[c], MinU32(FP32_PER_REPEAT, cols - c), n, params);
                PipeBarrier<PIPE_V>();
            }
            WholeReduce<OP>(dst, work, FP32_PER_REPEAT, n, BLOCKS_PER_REPEAT);
            return;
        }
        for (uint32_t r = 0; r < n; ++r) {
            DataCopy(work, src[r * alignCols], alignCols);
            PipeBarrier<PIPE_V>();
            uint32_t len = cols;
            while (len > FP32_PER_REPEAT) {
                uint32_t mid = AlignUpU32((len + 1) / 2, FP32_PER_BLOCK);
                Combine<OP>(work, work, work[mid], len - mid);
                PipeBarrier<PIPE_V>();
                len = mid;
            }
            WholeReduce<OP>(dst[r], work, len, 1, BLOCKS_PER_REPEAT);
            PipeBarrier<PIPE_V>();
        }
    }

    template <ApplyOp OP>
    __aicore__ inline void Apply(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                 const LocalTensor<float>& src1, uint32_t mask, uint32_t repeat,
                                 const BinaryRepeatParams& params)
    {
        if constexpr (OP == ApplyOp::SUB) {
            Sub(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        } else {
            Add(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        }
    }

    // dst[r, :] = src[r, :] (op) vals[r] for n rows of pitch alignCols.
    template <ApplyOp OP>
    __aicore__ inline void RowApply(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& vals, uint32_t n)
    {
        LocalTensor<float> brcb = brcbBuf.Get<float>();
        Brcb(brcb, vals, static_cast<uint8_t>((n + FP32_PER_BLOCK - 1) / FP32_PER_BLOCK),
             BrcbRepeatParams(1, BLOCKS_PER_REPEAT));
        PipeBarrier<PIPE_V>();
        uint32_t rowStrideBlocks = alignCols / FP32_PER_BLOCK;
        if (batchRows == 1) {
            // One instruction per 64-column chunk, repeated over the rows; src1 advances one block per row.
            BinaryRepeatParams params(1, 1, 0, static_cast<uint8_t>(rowStrideBlocks),
                                      static_cast<uint8_t>(rowStrideBlocks), 1);
            for (uint32_t c = 0; c < alignCols; c += FP32_PER_REPEAT) {
                Apply<OP>(dst[c], src[c], brcb, MinU32(FP32_PER_REPEAT, alignCols - c), n, params);
            }
            return;
        }
        // One instruction per row, repeated over its 64-column chunks; src1 stays on the row's block.
        BinaryRepeatParams params(1, 1, 0, BLOCKS_PER_REPEAT, BLOCKS_PER_REPEAT, 0);
        uint32_t fullRepeats = alignCols / FP32_PER_REPEAT;
        uint32_t tail = alignCols - fullRepeats * FP32_PER_REPEAT;
        for (uint32_t r = 0; r < n; ++r) {
            uint32_t base = r * alignCols;
            if (fullRepeats > 0) {
                Apply<OP>(dst[base], src[base], brcb[r * FP32_PER_BLOCK], FP32_PER_REPEAT, fullRepeats, params);
            }
            if (tail > 0) {
                uint32_t off = base + fullRepeats * FP32_PER_REPEAT;
                Apply<OP>(dst[off], src[off], brcb[r * FP32_PER_BLOCK], tail, 1, params);
            }
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> castBuf;
    TBuf<QuePosition::VECCALC> expBuf;
    TBuf<QuePosition::VECCALC> valBuf;
    TBuf<QuePosition::VECCALC> brcbBuf;
    TBuf<QuePosition::VECCALC> foldBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t cols = 0;
    uint32_t alignCols = 0;
    uint32_t rowsPerTile = 1;
    uint32_t groupRows = 64;
    uint32_t batchRows = 1;
    uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void log_softmax_last(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLogSoftmaxLast<DTYPE_X> op;
    op.Init(x, y, tilingData.cols, tilingData.alignCols, tilingData.bigCoreNum, tilingData.bigCoreRows,
            tilingData.smallCoreRows, tilingData.rowsPerTile, tilingData.groupRows, tilingData.batchRows);
    op.Process();
}
