/**
 * @file gelu.cpp
 * Gelu, tanh approximation:
 *     y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
 * evaluated in the equivalent sigmoid form
 *     y = x / (1 + exp(-2 * sqrt(2/pi) * x * (1 + 0.044715 * x^2)))
 * which needs one transcendental (Exp) and one Div per element. fp16/bf16 are widened to
 * fp32 for the computation. In/out queues are double buffered so MTE2, V and MTE3 overlap
 * across tiles; the input buffer is released as soon as it has been read.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
constexpr float GELU_CUBE_COEF = 0.044715f;
constexpr float GELU_NEG_TWO_SQRT_2_OVER_PI = -1.5957691216057308f;  // -2 * sqrt(2 / pi)
}  // namespace

template <typename TX, typename TY>
class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}

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
        pipe.InitBuffer(workBuf, tileDataNum * sizeof(float));
        if constexpr (!std::is_same_v<TX, float>) {
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

    // dst = xf / (1 + exp(k * xf * (1 + c * xf^2))) in fp32; `t` is scratch. dst may alias xf.
    __aicore__ inline void GeluFp32(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& xf,
                                    const AscendC::LocalTensor<float>& t, uint32_t count)
    {
        AscendC::Mul(t, xf, xf, count);
        AscendC::Muls(t, t, GELU_CUBE_COEF, count);
        AscendC::Adds(t, t, 1.0f, count);
        AscendC::Mul(t, t, xf, count);
        AscendC::Muls(t, t, GELU_NEG_TWO_SQRT_2_OVER_PI, count);
        AscendC::Exp(t, t, count);
        AscendC::Adds(t, t, 1.0f, count);
        AscendC::Div(dst, xf, t, count);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<TX> xLocal = inQueueX.DeQue<TX>();
        AscendC::LocalTensor<TY> yLocal = outQueueY.AllocTensor<TY>();
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        if constexpr (std::is_same_v<TX, float>) {
            GeluFp32(yLocal, xLocal, work, count);
            inQueueX.FreeTensor(xLocal);
        } else {
            AscendC::LocalTensor<float> xf = castBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            inQueueX.FreeTensor(xLocal);
            GeluFp32(xf, xf, work, count);
            AscendC::Cast(yLocal, xf, AscendC::RoundMode::CAST_RINT, count);
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
    AscendC::TBuf<AscendC::QuePosition::VECCALC> workBuf;   // fp32 scratch
    AscendC::TBuf<AscendC::QuePosition::VECCALC> castBuf;   // fp32 copy of a fp16/bf16 tile
    AscendC::GlobalTensor<TX> xGm;
    AscendC::GlobalTensor<TY> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void gelu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGelu<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, tilingData);
    op.Process();
}
