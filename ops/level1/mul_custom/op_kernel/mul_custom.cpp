/**
 * @file mul_custom.cpp
 * MulCustom: y = x1 * x2 (same shapes), one vector Mul per tile. Three double-buffered queues
 * let the loads of tile i+1, the multiply of tile i and the store of tile i-1 overlap.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
}  // namespace

template <typename T>
class KernelMulCustom {
public:
    __aicore__ inline KernelMulCustom() {}

    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, const TilingData& td)
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
        x1Gm.SetGlobalBuffer((__gm__ T*)x1 + offset, coreDataNum);
        x2Gm.SetGlobalBuffer((__gm__ T*)x2 + offset, coreDataNum);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, coreDataNum);
        pipe.InitBuffer(inQueueX1, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(inQueueX2, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; ++i) {
            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    template <typename U>
    __aicore__ inline void LoadTile(const AscendC::LocalTensor<U>& dst, const AscendC::GlobalTensor<U>& src,
                                    uint32_t count)
    {
        if ((count * sizeof(U)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(dst, src, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(U)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<U> padParams{false, 0, 0, U(0)};
            AscendC::DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        AscendC::LocalTensor<T> x1Local = inQueueX1.AllocTensor<T>();
        LoadTile(x1Local, x1Gm[gmOffset], count);
        AscendC::LocalTensor<T> x2Local = inQueueX2.AllocTensor<T>();
        LoadTile(x2Local, x2Gm[gmOffset], count);
        inQueueX1.EnQue(x1Local);
        inQueueX2.EnQue(x2Local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> x1Local = inQueueX1.DeQue<T>();
        AscendC::LocalTensor<T> x2Local = inQueueX2.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::Mul(yLocal, x1Local, x2Local, count);
        outQueueY.EnQue<T>(yLocal);
        inQueueX1.FreeTensor(x1Local);
        inQueueX2.FreeTensor(x2Local);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        if ((count * sizeof(T)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(yGm[gmOffset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[gmOffset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX1;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX2;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::GlobalTensor<T> x1Gm;
    AscendC::GlobalTensor<T> x2Gm;
    AscendC::GlobalTensor<T> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMulCustom<DTYPE_X1> op;
    op.Init(x1, x2, y, tilingData);
    op.Process();
}
