/**
 * @file exp_custom.cpp
 * ExpCustom: y = exp(x). fp16 and fp32 use the vector Exp directly; bf16 is widened to
 * fp32, exponentiated and rounded back. Double-buffered in/out queues.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
}  // namespace

template <typename TX, typename TY>
class KernelExpCustom {
public:
    __aicore__ inline KernelExpCustom() {}

    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData& td)
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
        xGm.SetGlobalBuffer((__gm__ TX*)x + offset, coreDataNum);
        yGm.SetGlobalBuffer((__gm__ TY*)y + offset, coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileDataNum * sizeof(TX));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(TY));
        if constexpr (std::is_same_v<TX, bfloat16_t>) {
            pipe.InitBuffer(castBuf, tileDataNum * sizeof(float));
        }
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
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<TX> xLocal = inQueueX.AllocTensor<TX>();
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        if ((count * sizeof(TX)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(xLocal, xGm[gmOffset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(TX)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<TX> padParams{false, 0, 0, TX(0)};
            AscendC::DataCopyPad(xLocal, xGm[gmOffset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<TX> xLocal = inQueueX.DeQue<TX>();
        AscendC::LocalTensor<TY> yLocal = outQueueY.AllocTensor<TY>();
        if constexpr (std::is_same_v<TX, bfloat16_t>) {
            AscendC::LocalTensor<float> xf = castBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            inQueueX.FreeTensor(xLocal);
            AscendC::Exp(xf, xf, count);
            AscendC::Cast(yLocal, xf, AscendC::RoundMode::CAST_RINT, count);
        } else {
            AscendC::Exp(yLocal, xLocal, count);
            inQueueX.FreeTensor(xLocal);
        }
        outQueueY.EnQue<TY>(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<TY> yLocal = outQueueY.DeQue<TY>();
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        if ((count * sizeof(TY)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(yGm[gmOffset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(TY)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[gmOffset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> castBuf;   // fp32 copy of a bf16 tile
    AscendC::GlobalTensor<TX> xGm;
    AscendC::GlobalTensor<TY> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void exp_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelExpCustom<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, tilingData);
    op.Process();
}
