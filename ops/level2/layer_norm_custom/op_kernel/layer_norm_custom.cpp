/**
 * @file layer_norm_custom.cpp
 * LayerNormCustom kernel: y[r, :] = (x[r, :] - mean) / sqrt(var + epsilon) * gamma + beta over the
 * last axis, computed in fp32 (var is the biased variance of the row).
 *
 * Each core owns a contiguous range of rows, moved in tiles of rowsPerTile rows with one
 * DataCopyPad per direction (row pitch alignCols), double-buffered through VECIN/VECOUT queues.
 * gamma and beta are loaded once per core (widened to fp32 for half). Rows of a tile are
 * processed in groups of groupRows:
 *   row sums      WholeReduceSum repeated over the rows when cols <= 64; otherwise columns are
 *                 folded 64 at a time with Add repeated over the rows (batchRows == 1), or each row
 *                 is halved in fp32 scratch (batchRows == 0); padding lanes are never summed;
 *   centre/scale  Brcb puts each row value in one block, Sub/Div apply it with src1 block stride 0;
 *   gamma/beta    Mul/Add with src1 repeat stride 0 (the same chunk for every row).
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t FP32_PER_REPEAT = 64;
constexpr uint32_t FP32_PER_BLOCK = 8;
constexpr uint8_t BLOCKS_PER_REPEAT = 8;

enum class RowOp { SUB, DIV };
enum class ColOp { MUL, ADD };

__aicore__ inline uint32_t MinU32(uint32_t a, uint32_t b) { return a < b ? a : b; }
__aicore__ inline uint32_t AlignUpU32(uint32_t a, uint32_t b) { return (a + b - 1) / b * b; }
}  // namespace

template <typename T>
class KernelLayerNormCustom {
public:
    __aicore__ inline KernelLayerNormCustom() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t cols,
                                uint32_t alignCols, uint32_t bigCoreNum, uint32_t bigCoreRows,
                                uint32_t smallCoreRows, uint32_t rowsPerTile, uint32_t groupRows,
                                uint32_t batchRows, float epsilon, float avgFactor)
    {
        this->cols = cols;
        this->alignCols = alignCols;
        this->rowsPerTile = rowsPerTile;
        this->groupRows = groupRows;
        this->batchRows = batchRows;
        this->epsilon = epsilon;
        this->avgFactor = avgFactor;
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
        gammaGm.SetGlobalBuffer((__gm__ T*)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ T*)beta, cols);

        uint32_t tileBytes = rowsPerTile * alignCols * sizeof(T);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileBytes);
        pipe.InitBuffer(inQueueParam, 2, alignCols * sizeof(T));
        pipe.InitBuffer(sqBuf, rowsPerTile * alignCols * sizeof(float));
        if constexpr (!std::is_same_v<T, float>) {
            pipe.InitBuffer(castBuf, rowsPerTile * alignCols * sizeof(float));
            pipe.InitBuffer(paramBuf, 2 * alignCols * sizeof(float));
        }
        pipe.InitBuffer(valBuf, groupRows * sizeof(float));
        pipe.InitBuffer(brcbBuf, groupRows * FP32_PER_BLOCK * sizeof(float));
        if (cols > FP32_PER_REPEAT && batchRows == 1) {
            pipe.InitBuffer(foldBuf, groupRows * FP32_PER_REPEAT * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        if (rowCount == 0) {
            return;
        }
        LocalTensor<T> gammaLocal = LoadParam(gammaGm);
        LocalTensor<T> betaLocal = LoadParam(betaGm);
        if constexpr (std::is_same_v<T, float>) {
            gammaFp32 = gammaLocal;
            betaFp32 = betaLocal;
        } else {
            gammaFp32 = paramBuf.Get<float>();
            betaFp32 = gammaFp32[alignCols];
            Cast(gammaFp32, gammaLocal, RoundMode::CAST_NONE, alignCols);
            Cast(betaFp32, betaLocal, RoundMode::CAST_NONE, alignCols);
            PipeBarrier<PIPE_V>();
        }

        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        uint32_t tailRows = rowCount - (tileNum - 1) * rowsPerTile;
        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t rows = (i == tileNum - 1) ? tailRows : rowsPerTile;
            CopyIn(i, rows);
            Compute(rows);
            CopyOut(i, rows);
        }
        inQueueParam.FreeTensor(gammaLocal);
        inQueueParam.FreeTensor(betaLocal);
    }

private:
    __aicore__ inline LocalTensor<T> LoadParam(const GlobalTensor<T>& src)
    {
        LocalTensor<T> local = inQueueParam.AllocTensor<T>();
        DataCopyExtParams copyParams(1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0);
        DataCopyPadExtParams<T> padParams(true, 0, static_cast<uint8_t>(alignCols - cols), static_cast<T>(0));
        DataCopyPad(local, src, copyParams, padParams);
        inQueueParam.EnQue(local);
        return inQueueParam.DeQue<T>();
    }

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
        LocalTensor<float> sqAll = sqBuf.Get<float>();
        LocalTensor<float> vals = valBuf.Get<float>();
        for (uint32_t r0 = 0; r0 < rows; r0 += groupRows) {
            uint32_t n = MinU32(groupRows, rows - r0);
            LocalTensor<float> part = xFp32[r0 * alignCols];
            LocalTensor<float> sq = sqAll[r0 * alignCols];
            // mean
            RowSum(vals, part, sq, n);
            PipeBarrier<PIPE_V>();
            Muls(vals, vals, avgFactor, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            RowApply<RowOp::SUB>(part, part, vals, n);
            PipeBarrier<PIPE_V>();
            // 1 / sqrt(var + eps)
            Mul(sq, part, part, static_cast<int32_t>(n * alignCols));
            PipeBarrier<PIPE_V>();
            RowSum(vals, sq, sq, n);
            PipeBarrier<PIPE_V>();
            Muls(vals, vals, avgFactor, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            Adds(vals, vals, epsilon, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            Sqrt(vals, vals, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            RowApply<RowOp::DIV>(part, part, vals, n);
            PipeBarrier<PIPE_V>();
            // affine
            ColApply<ColOp::MUL>(part, part, gammaFp32, n);
            PipeBarrier<PIPE_V>();
            if constexpr (std::is_same_v<T, float>) {
                ColApply<ColOp::ADD>(yLocal[r0 * alignCols], part, betaFp32, n);
            } else {
                ColApply<ColOp::ADD>(part, part, betaFp32, n);
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

    // dst[r] = sum of the first cols values of row r of src (n rows, pitch alignCols).
    // scratch (same shape as src, may alias it) is clobbered on the row-by-row path.
    __aicore__ inline void RowSum(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                  const LocalTensor<float>& scratch, uint32_t n)
    {
        uint32_t rowStrideBlocks = alignCols / FP32_PER_BLOCK;
        if (cols <= FP32_PER_REPEAT) {
            WholeReduceSum<float>(dst, src, static_cast<int32_t>(cols), static_cast<int32_t>(n), 1, 1,
                                  static_cast<int32_t>(rowStrideBlocks));
            return;
        }
        if (batchRows == 1) {
            LocalTensor<float> acc = foldBuf.Get<float>();
            DataCopy(acc, src,
                     DataCopyParams(static_cast<uint16_t>(n), BLOCKS_PER_REPEAT,
                                    static_cast<uint16_t>(rowStrideBlocks - BLOCKS_PER_REPEAT), 0));
            PipeBarrier<PIPE_V>();
            BinaryRepeatParams params(1, 1, 1, BLOCKS_PER_REPEAT, BLOCKS_PER_REPEAT,
                                      static_cast<uint8_t>(rowStrideBlocks));
            for (uint32_t c = FP32_PER_REPEAT; c < cols; c += FP32_PER_REPEAT) {
                Add(acc, acc, src[c], MinU32(FP32_PER_REPEAT, cols - c), static_cast<uint8_t>(n), params);
                PipeBarrier<PIPE_V>();
            }
            WholeReduceSum<float>(dst, acc, FP32_PER_REPEAT, static_cast<int32_t>(n), 1, 1, BLOCKS_PER_REPEAT);
            return;
        }
        bool copyRows = scratch.GetPhyAddr() != src.GetPhyAddr();
        for (uint32_t r = 0; r < n; ++r) {
            LocalTensor<float> row = scratch[r * alignCols];
            if (copyRows) {
                DataCopy(row, src[r * alignCols], alignCols);
                PipeBarrier<PIPE_V>();
            }
            uint32_t len = cols;
            while (len > FP32_PER_REPEAT) {
                uint32_t mid = AlignUpU32((len + 1) / 2, FP32_PER_BLOCK);
                Add(row, row, row[mid], static_cast<int32_t>(len - mid));
                PipeBarrier<PIPE_V>();
                len = mid;
            }
            WholeReduceSum<float>(dst[r], row, static_cast<int32_t>(len), 1, 1, 1, BLOCKS_PER_REPEAT);
        }
    }

    template <RowOp OP>
    __aicore__ inline void RowInstr(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                    const LocalTensor<float>& src1, uint32_t mask, uint32_t repeat,
                                    const BinaryRepeatParams& params)
    {
        if constexpr (OP == RowOp::SUB) {
            Sub(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        } else {
            Div(dst, src0, src1, mask, static_cast<uint8_t>(repeat), params);
        }
    }

    // dst[r, :] = src[r, :] (op) vals[r] for n rows of pitch alignCols.
    template <RowOp OP>
    __aicore__ inline void RowApply(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& vals, uint32_t n)
    {
        LocalTensor<float> brcb = brcbBuf.Get<float>();
        Brcb(brcb, vals, static_cast<uint8_t>((n + FP32_PER_BLOCK - 1) / FP32_PER_BLOCK),
             BrcbRepeatParams(1, BLOCKS_PER_REPEAT));
        PipeBarrier<PIPE_V>();
        uint32_t rowStrideBlocks = alignCols / FP32_PER_BLOCK;
        if (batchRows == 1) {
            BinaryRepeatParams params(1, 1, 0, static_cast<uint8_t>(rowStrideBlocks),
                                      static_cast<uint8_t>(rowStrideBlocks), 1);
            for (uint32_t c = 0; c < alignCols; c += FP32_PER_REPEAT) {
                RowInstr<OP>(dst[c], src[c], brcb, MinU32(FP32_PER_REPEAT, alignCols - c), n, params);
            }
            return;
        }
        BinaryRepeatParams params(1, 1, 0, BLOCKS_PER_REPEAT, BLOCKS_PER_REPEAT, 0);
        uint32_t fullRepeats = alignCols / FP32_PER_REPEAT;
        uint32_t tail = alignCols - fullRepeats * FP32_PER_REPEAT;
        for (uint32_t r = 0; r < n; ++r) {
            uint32_t base = r * alignCols;
            if (fullRepeats > 0) {
                RowInstr<OP>(dst[base], src[base], brcb[r * FP32_PER_BLOCK], FP32_PER_REPEAT, fullRepeats, params);
            }
            if (tail > 0) {
                uint32_t off = base + fullRepeats * FP32_PER_REPEAT;
                RowInstr<OP>(dst[off], src[off], brcb[r * FP32_PER_BLOCK], tail, 1, params);
            }
        }
    }

    // dst[r, :] = src[r, :] (op) vec for n rows of pitch alignCols.
    template <ColOp OP>
    __aicore__ inline void ColApply(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& vec, uint32_t n)
    {
        if (batchRows == 1) {
            uint8_t rowStrideBlocks = static_cast<uint8_t>(alignCols / FP32_PER_BLOCK);
            BinaryRepeatParams params(1, 1, 1, rowStrideBlocks, rowStrideBlocks, 0);
            for (uint32_t c = 0; c < alignCols; c += FP32_PER_REPEAT) {
                uint32_t mask = MinU32(FP32_PER_REPEAT, alignCols - c);
                if constexpr (OP == ColOp::MUL) {
                    Mul(dst[c], src[c], vec[c], mask, static_cast<uint8_t>(n), params);
                } else {
                    Add(dst[c], src[c], vec[c], mask, static_cast<uint8_t>(n), params);
                }
            }
            return;
        }
        for (uint32_t r = 0; r < n; ++r) {
            if constexpr (OP == ColOp::MUL) {
                Mul(dst[r * alignCols], src[r * alignCols], vec, static_cast<int32_t>(alignCols));
            } else {
                Add(dst[r * alignCols], src[r * alignCols], vec, static_cast<int32_t>(alignCols));
            }
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 2> inQueueParam;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> castBuf;
    TBuf<QuePosition::VECCALC> sqBuf;
    TBuf<QuePosition::VECCALC> paramBuf;
    TBuf<QuePosition::VECCALC> valBuf;
    TBuf<QuePosition::VECCALC> brcbBuf;
    TBuf<QuePosition::VECCALC> foldBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> gammaGm;
    GlobalTensor<T> betaGm;
    GlobalTensor<T> yGm;
    LocalTensor<float> gammaFp32;
    LocalTensor<float> betaFp32;
    uint32_t cols = 0;
    uint32_t alignCols = 0;
    uint32_t rowsPerTile = 1;
    uint32_t groupRows = 64;
    uint32_t batchRows = 1;
    uint32_t rowCount = 0;
    float epsilon = 0.0f;
    float avgFactor = 0.0f;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerNormCustom<DTYPE_X> op;
    op.Init(x, gamma, beta, y, tilingData.cols, tilingData.alignCols, tilingData.bigCoreNum,
            tilingData.bigCoreRows, tilingData.smallCoreRows, tilingData.rowsPerTile, tilingData.groupRows,
            tilingData.batchRows, tilingData.epsilon, tilingData.avgFactor);
    op.Process();
}
