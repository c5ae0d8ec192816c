/**
 * @file add_broadcast.cpp
 * AddBroadcast: z = x + y, y broadcast along the leading axes of x (or of x's shape).
 *
 * Key 0 (same shape): flat tiles, one Add per tile.
 * Key 1 (row broadcast): y is loaded once and replicated rowsPerTile times in UB (doubling
 *   copies), so every multi-row tile of x needs a single Add; rows whose length is not a
 *   multiple of 32 bytes are padded in UB by DataCopyPad and unpadded on the way out.
 * Key 2 (column split): each core owns a range of columns; a y chunk is loaded once and
 *   reused for every row of x.
 * All paths double buffer x and z so copies overlap the vector work.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
}  // namespace

template <typename T>
class KernelAddBroadcast {
public:
    __aicore__ inline KernelAddBroadcast() {}

    // ------------------------------------------------------------------ key 0: same shape
    template <typename TilingData>
    __aicore__ inline void InitSameShape(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData& td)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset = 0;
        tileDataNum = td.tileDataNum;
        if (blockIdx < td.tailBlockNum) {
            coreDataNum = td.bigCoreDataNum;
            tileNum = td.bigTileNum;
            tailDataNum = td.bigTailDataNum;
            offset = static_cast<uint64_t>(td.bigCoreDataNum) * blockIdx;
        } else {
            offset = static_cast<uint64_t>(td.bigCoreDataNum) * td.tailBlockNum +
                     static_cast<uint64_t>(td.smallCoreDataNum) * (blockIdx - td.tailBlockNum);
            if (blockIdx == AscendC::GetBlockNum() - 1) {
                coreDataNum = td.lastCoreDataNum;
                tileNum = td.lastTileNum;
                tailDataNum = td.lastTailDataNum;
            } else {
                coreDataNum = td.smallCoreDataNum;
                tileNum = td.smallTileNum;
                tailDataNum = td.smallTailDataNum;
            }
        }
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, coreDataNum);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, coreDataNum);
        zGm.SetGlobalBuffer((__gm__ T*)z + offset, coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileDataNum * sizeof(T));
    }

    __aicore__ inline void ProcessSameShape()
    {
        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;
            uint64_t gmOffset = static_cast<uint64_t>(i) * tileDataNum;
            AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
            AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
            LoadRow(xLocal, xGm[gmOffset], count);
            LoadRow(yLocal, yGm[gmOffset], count);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);

            xLocal = inQueueX.DeQue<T>();
            yLocal = inQueueY.DeQue<T>();
            AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
            AscendC::Add(zLocal, xLocal, yLocal, count);
            outQueueZ.EnQue<T>(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);

            zLocal = outQueueZ.DeQue<T>();
            StoreRows(zGm[gmOffset], zLocal, 1, count);
            outQueueZ.FreeTensor(zLocal);
        }
    }

    // ------------------------------------------------------------ key 1: row broadcast
    template <typename TilingData>
    __aicore__ inline void InitRowBroadcast(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData& td)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        cols = td.cols;
        colsAligned = td.colsAligned;
        rowsPerTile = td.rowsPerTile;
        uint64_t rowStart = 0;
        if (blockIdx < td.tailBlockNum) {
            coreRows = td.bigCoreRows;
            rowStart = static_cast<uint64_t>(td.bigCoreRows) * blockIdx;
        } else {
            coreRows = td.smallCoreRows;
            rowStart = static_cast<uint64_t>(td.bigCoreRows) * td.tailBlockNum +
                       static_cast<uint64_t>(td.smallCoreRows) * (blockIdx - td.tailBlockNum);
        }
        xGm.SetGlobalBuffer((__gm__ T*)x + rowStart * cols, static_cast<uint64_t>(coreRows) * cols);
        zGm.SetGlobalBuffer((__gm__ T*)z + rowStart * cols, static_cast<uint64_t>(coreRows) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y, cols);
        uint32_t tileBytes = rowsPerTile * colsAligned * sizeof(T);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileBytes);
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileBytes);
        pipe.InitBuffer(yRepBuf, tileBytes);
    }

    __aicore__ inline void ProcessRowBroadcast()
    {
        if (coreRows == 0) {
            return;
        }
        // y into row 0, then double the filled rows until the tile is covered.
        AscendC::LocalTensor<T> yRep = yRepBuf.Get<T>();
        LoadRow(yRep, yGm, cols);
        AscendC::TEventID loadDone = pipe.FetchEventID(AscendC::HardEvent::MTE2_V);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(loadDone);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(loadDone);
        for (uint32_t filled = 1; filled < rowsPerTile;) {
            uint32_t copyRows = (rowsPerTile - filled) < filled ? (rowsPerTile - filled) : filled;
            AscendC::DataCopy(yRep[filled * colsAligned], yRep, copyRows * colsAligned);
            filled += copyRows;
        }

        bool rowsAligned = (cols * sizeof(T)) % BLOCK_BYTES == 0;
        uint32_t tiles = (coreRows + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tiles; ++i) {
            uint32_t tileRows = (i + 1 == tiles) ? coreRows - i * rowsPerTile : rowsPerTile;
            uint64_t gmOffset = static_cast<uint64_t>(i) * rowsPerTile * cols;
            AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
            if (rowsAligned) {
                AscendC::DataCopy(xLocal, xGm[gmOffset], tileRows * cols);
            } else {
                AscendC::DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows),
                                                      static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
                AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, T(0)};
                AscendC::DataCopyPad(xLocal, xGm[gmOffset], copyParams, padParams);
            }
            inQueueX.EnQue(xLocal);

            xLocal = inQueueX.DeQue<T>();
            AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
            AscendC::Add(zLocal, xLocal, yRep, tileRows * colsAligned);
            outQueueZ.EnQue<T>(zLocal);
            inQueueX.FreeTensor(xLocal);

            zLocal = outQueueZ.DeQue<T>();
            if (rowsAligned) {
                AscendC::DataCopy(zGm[gmOffset], zLocal, tileRows * cols);
            } else {
                StoreRows(zGm[gmOffset], zLocal, tileRows, cols);
            }
            outQueueZ.FreeTensor(zLocal);
        }
    }

    // -------------------------------------------------------------- key 2: column split
    template <typename TilingData>
    __aicore__ inline void InitColSplit(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData& td)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        rows = td.rows;
        cols = td.cols;
        colTile = td.colTile;
        if (blockIdx < td.tailBlockNum) {
            coreCols = td.bigCoreCols;
            colStart = static_cast<uint64_t>(td.bigCoreCols) * blockIdx;
        } else {
            colStart = static_cast<uint64_t>(td.bigCoreCols) * td.tailBlockNum +
                       static_cast<uint64_t>(td.smallCoreCols) * (blockIdx - td.tailBlockNum);
            coreCols = (blockIdx == AscendC::GetBlockNum() - 1) ? td.lastCoreCols : td.smallCoreCols;
        }
        xGm.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(rows) * cols);
        zGm.SetGlobalBuffer((__gm__ T*)z, static_cast<uint64_t>(rows) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, colTile * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, colTile * sizeof(T));
        pipe.InitBuffer(inQueueY, 1, colTile * sizeof(T));
    }

    __aicore__ inline void ProcessColSplit()
    {
        uint32_t colTiles = (coreCols + colTile - 1) / colTile;
        for (uint32_t c = 0; c < colTiles; ++c) {
            uint32_t count = (c + 1 == colTiles) ? coreCols - c * colTile : colTile;
            uint64_t col0 = colStart + static_cast<uint64_t>(c) * colTile;
            AscendC::LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
            LoadRow(yLocal, yGm[col0], count);
            inQueueY.EnQue(yLocal);
            yLocal = inQueueY.DeQue<T>();
            for (uint32_t r = 0; r < rows; ++r) {
                uint64_t gmOffset = static_cast<uint64_t>(r) * cols + col0;
                AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
                LoadRow(xLocal, xGm[gmOffset], count);
                inQueueX.EnQue(xLocal);

                xLocal = inQueueX.DeQue<T>();
                AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
                AscendC::Add(zLocal, xLocal, yLocal, count);
                outQueueZ.EnQue<T>(zLocal);
                inQueueX.FreeTensor(xLocal);

                zLocal = outQueueZ.DeQue<T>();
                StoreRows(zGm[gmOffset], zLocal, 1, count);
                outQueueZ.FreeTensor(zLocal);
            }
            inQueueY.FreeTensor(yLocal);
        }
    }

private:
    __aicore__ inline void LoadRow(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                   uint32_t count)
    {
        if ((count * sizeof(T)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(dst, src, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, T(0)};
            AscendC::DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    // Stores `rowNum` rows of `count` elements; UB rows are padded to 32 bytes.
    __aicore__ inline void StoreRows(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                     uint32_t rowNum, uint32_t count)
    {
        if (rowNum == 1 && (count * sizeof(T)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(dst, src, count);
        } else {
            AscendC::DataCopyExtParams copyParams{static_cast<uint16_t>(rowNum),
                                                  static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(dst, src, copyParams);
        }
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> yRepBuf;   // key 1: y replicated rowsPerTile times
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    AscendC::GlobalTensor<T> zGm;
    // key 0
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
    // keys 1 and 2
    uint32_t rows = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
    uint32_t coreRows = 0;
    uint32_t colTile = 0;
    uint32_t coreCols = 0;
    uint64_t colStart = 0;
};

extern "C" __global__ __aicore__ void add_broadcast(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddBroadcast<DTYPE_X> op;
    if (TILING_KEY_IS(0)) {
        op.InitSameShape(x, y, z, tilingData);
        op.ProcessSameShape();
    } else if (TILING_KEY_IS(1)) {
        op.InitRowBroadcast(x, y, z, tilingData);
        op.ProcessRowBroadcast();
    } else if (TILING_KEY_IS(2)) {
        op.InitColSplit(x, y, z, tilingData);
        op.ProcessColSplit();
    }
}
