/**
 * @file reduce_max_last.cpp
 * ReduceMaxLast kernel: y[r] = max_c x[r, c] over the last axis, computed in the input dtype
 * (max is exact, so half stays half and a repeat covers 128 values).
 *
 * Each core owns a contiguous range of rows, moved in tiles of rowsPerTile rows with one
 * DataCopyPad (row pitch alignCols), double-buffered through VECIN/VECOUT queues.
 * Reduction of a tile:
 *   cols <= one repeat  one WholeReduceMax repeated over the rows (mask = cols);
 *   batchRows == 1      columns are folded one repeat at a time into an accumulator with Max
 *                       instructions repeated over the rows (row stride = alignCols), then WholeReduceMax;
 *   otherwise           each row is halved in place with Max until one repeat remains.
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCKS_PER_REPEAT = 8;

__aicore__ inline uint32_t MinU32(uint32_t a, uint32_t b) { return a < b ? a : b; }
__aicore__ inline uint32_t AlignUpU32(uint32_t a, uint32_t b) { return (a + b - 1) / b * b; }
}  // namespace

template <typename T>
class KernelReduceMaxLast {
    static constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(T);
    static constexpr uint32_t ELEMS_PER_REPEAT = 256 / sizeof(T);

public:
    __aicore__ inline KernelReduceMaxLast() {}

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
        xGm.SetGlobalBuffer((__gm__ T*)x + static_cast<uint64_t>(rowStart) * cols,
                            static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y + rowStart, rowCount);

        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * alignCols * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, AlignUpU32(rowsPerTile, ELEMS_PER_BLOCK) * sizeof(T));
        if (cols > ELEMS_PER_REPEAT && batchRows == 1) {
            pipe.InitBuffer(foldBuf, groupRows * ELEMS_PER_REPEAT * sizeof(T));
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
        // The padding lanes are never part of a reduction (masks stop at cols); zero them anyway.
        DataCopyPadExtParams<T> padParams(true, 0, static_cast<uint8_t>(alignCols - cols), static_cast<T>(0));
        DataCopyPad(xLocal, xGm[static_cast<uint64_t>(tile) * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        RowMax(yLocal, xLocal, rows);
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t tile, uint32_t rows)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopyExtParams copyParams(1, static_cast<uint32_t>(rows * sizeof(T)), 0, 0, 0);
        DataCopyPad(yGm[static_cast<uint64_t>(tile) * rowsPerTile], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

    // dst[r] = max of the first cols values of row r of src (row pitch alignCols). May clobber src.
    __aicore__ inline void RowMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows)
    {
        uint32_t rowStrideBlocks = alignCols / ELEMS_PER_BLOCK;
        for (uint32_t r0 = 0; r0 < rows; r0 += groupRows) {
            uint32_t n = MinU32(groupRows, rows - r0);
            LocalTensor<T> part = src[r0 * alignCols];
            if (cols <= ELEMS_PER_REPEAT) {
                WholeReduceMax<T>(dst[r0], part, static_cast<int32_t>(cols), static_cast<int32_t>(n), 1, 1,
                                  static_cast<int32_t>(rowStrideBlocks), ReduceOrder::ORDER_ONLY_VALUE);
            } else if (batchRows == 1) {
                LocalTensor<T> acc = foldBuf.Get<T>();
                // acc[r, 0:repeat] = part[r, 0:repeat]
                DataCopy(acc, part,
                         DataCopyParams(static_cast<uint16_t>(n), BLOCKS_PER_REPEAT,
                                        static_cast<uint16_t>(rowStrideBlocks - BLOCKS_PER_REPEAT), 0));
                PipeBarrier<PIPE_V>();
                for (uint32_t c = ELEMS_PER_REPEAT; c < cols; c += ELEMS_PER_REPEAT) {
                    uint32_t mask = MinU32(ELEMS_PER_REPEAT, cols - c);
                    Max(acc, acc, part[c], mask, static_cast<uint8_t>(n),
                        BinaryRepeatParams(1, 1, 1, BLOCKS_PER_REPEAT, BLOCKS_PER_REPEAT,
                                           static_cast<uint8_t>(rowStrideBlocks)));
                    PipeBarrier<PIPE_V>();
                }
                WholeReduceMax<T>(dst[r0], acc, ELEMS_PER_REPEAT, static_cast<int32_t>(n), 1, 1, BLOCKS_PER_REPEAT,
                                  ReduceOrder::ORDER_ONLY_VALUE);
            } else {
                for (uint32_t r = 0; r < n; ++r) {
                    LocalTensor<T> row = part[r * alignCols];
                    uint32_t len = cols;
                    while (len > ELEMS_PER_REPEAT) {
                        uint32_t mid = AlignUpU32((len + 1) / 2, ELEMS_PER_BLOCK);
                        Max(row, row, row[mid], static_cast<int32_t>(len - mid));
                        PipeBarrier<PIPE_V>();
                        len = mid;
                    }
                    WholeReduceMax<T>(dst[r0 + r], row, static_cast<int32_t>(len), 1, 1, 1, BLOCKS_PER_REPEAT,
                                      ReduceOrder::ORDER_ONLY_VALUE);
                }
            }
            PipeBarrier<PIPE_V>();
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
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

extern "C" __global__ __aicore__ void reduce_max_last(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceMaxLast<DTYPE_X> op;
    op.Init(x, y, tilingData.cols, tilingData.alignCols, tilingData.bigCoreNum, tilingData.bigCoreRows,
            tilingData.smallCoreRows, tilingData.rowsPerTile, tilingData.groupRows, tilingData.batchRows);
    op.Process();
}
