/**
 * @file cast_custom.cpp
 * CastCustom: y = cast(x). Widening casts (fp16->fp32, bf16->fp32) are exact; fp32->fp16 and
 * fp32->bf16 round to nearest even; fp32->int32 rounds as the `round_mode` attribute says
 * (rint, floor, ceil, round = half away from zero, trunc). One vector Cast per tile,
 * double-buffered in/out queues.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t ROUND_RINT = 0;
constexpr uint32_t ROUND_FLOOR = 1;
constexpr uint32_t ROUND_CEIL = 2;
constexpr uint32_t ROUND_ROUND = 3;
constexpr uint32_t ROUND_TRUNC = 4;
}  // namespace

template <typename TX, typename TY>
class KernelCastCustom {
public:
    __aicore__ inline KernelCastCustom() {}

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
        roundMode = td.roundMode;
        xGm.SetGlobalBuffer((__gm__ TX*)x + offset, coreDataNum);
        yGm.SetGlobalBuffer((__gm__ TY*)y + offset, coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileDataNum * sizeof(TX));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(TY));
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
        if constexpr (std::is_same_v<TX, float> && std::is_same_v<TY, int32_t>) {
            switch (roundMode) {
                case ROUND_FLOOR:
                    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_FLOOR, count);
                    break;
                case ROUND_CEIL:
                    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_CEIL, count);
                    break;
                case ROUND_ROUND:
                    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_ROUND, count);
                    break;
                case ROUND_TRUNC:
                    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_TRUNC, count);
                    break;
                default:
                    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_RINT, count);
                    break;
            }
        } else if constexpr (sizeof(TY) > sizeof(TX)) {
            AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_NONE, count);
        } else {
            AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_RINT, count);
        }
        inQueueX.FreeTensor(xLocal);
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
    uint32_t roundMode = ROUND_RINT;
    AscendC::GlobalTensor<TX> xGm;
    AscendC::GlobalTensor<TY> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelCastCustom<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, tilingData);
    op.Process();
}
