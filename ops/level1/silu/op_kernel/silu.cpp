/**
 * @file silu.cpp
 * Silu (swish): y = x * sigmoid(x) = x / (1 + exp(-x)).
 * fp16/bf16 are widened to fp32 for the computation. In/out queues are double buffered so
 * MTE2, V and MTE3 overlap across tiles.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
}  // namespace

template <typename T>
class KernelSilu {
public:
    __aicore__ inline KernelSilu() {}

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
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, coreDataNum);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, coreDataNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(workBuf, tileDataNum * sizeof(float));
        if constexpr (!std::is_same_v<T, float>) {
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
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        if ((count * sizeof(T)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(xLocal, xGm[gmOffset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, T(0)};
            AscendC::DataCopyPad(xLocal, xGm[gmOffset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    // y = x / (1 + exp(-x)) in fp32; `xf` is read, `t` is scratch.
    __aicore__ inline void SiluFp32(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& xf,
                                    const AscendC::LocalTensor<float>& t, uint32_t count)
    {
        AscendC::Muls(t, xf, -1.0f, count);
        AscendC::Exp(t, t, count);
        AscendC::Adds(t, t, 1.0f, count);
        AscendC::Div(dst, xf, t, count);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            SiluFp32(yLocal, xLocal, work, count);
            inQueueX.FreeTensor(xLocal);
        } else {
            AscendC::LocalTensor<float> xf = castBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            inQueueX.FreeTensor(xLocal);
            SiluFp32(xf, xf, work, count);
            AscendC::Cast(yLocal, xf, AscendC::RoundMode::CAST_RINT, count);
        }
        outQueueY.EnQue<T>(yLocal);
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
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> workBuf;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> castBuf;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void silu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSilu<DTYPE_X> op;
    op.Init(x, y, tilingData);
    op.Process();
}
