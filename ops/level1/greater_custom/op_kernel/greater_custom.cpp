/**
 * @file greater_custom.cpp
 * GreaterCustom: y = x1 > x2 as bool (one byte per element). Per tile: one Compare writes a
 * bit mask, one Select turns it into fp16 1/0 and one Cast narrows that to uint8; the inputs
 * are released right after the Compare. Double-buffered queues.
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t REPEAT_BYTES = 256;
}  // namespace

template <typename T>
class KernelGreaterCustom {
public:
    __aicore__ inline KernelGreaterCustom() {}

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
        yGm.SetGlobalBuffer((__gm__ uint8_t*)y + offset, coreDataNum);
        pipe.InitBuffer(inQueueX1, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(inQueueX2, BUFFER_NUM, tileDataNum * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileDataNum * sizeof(uint8_t));
        pipe.InitBuffer(maskBuf, tileDataNum / 8);
        pipe.InitBuffer(selBuf, tileDataNum * sizeof(half));
        pipe.InitBuffer(onesBuf, tileDataNum * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> ones = onesBuf.Get<half>();
        AscendC::Duplicate(ones, static_cast<half>(1.0f), tileDataNum);
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
        AscendC::LocalTensor<uint8_t> yLocal = outQueueY.AllocTensor<uint8_t>();
        AscendC::LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        AscendC::LocalTensor<half> sel = selBuf.Get<half>();
        AscendC::LocalTensor<half> ones = onesBuf.Get<half>();
        // Compare works on whole 256-byte repeats; lanes past `count` are never stored.
        constexpr uint32_t cmpAlign = REPEAT_BYTES / sizeof(T);
        uint32_t cmpCount = (count + cmpAlign - 1) / cmpAlign * cmpAlign;
        AscendC::Compare(mask, x1Local, x2Local, AscendC::CMPMODE::GT, cmpCount);
        inQueueX1.FreeTensor(x1Local);
        inQueueX2.FreeTensor(x2Local);
        AscendC::Select(sel, mask, ones, static_cast<half>(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        AscendC::Cast(yLocal, sel, AscendC::RoundMode::CAST_NONE, count);
        outQueueY.EnQue<uint8_t>(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<uint8_t> yLocal = outQueueY.DeQue<uint8_t>();
        uint64_t gmOffset = static_cast<uint64_t>(progress) * tileDataNum;
        if ((count * sizeof(uint8_t)) % BLOCK_BYTES == 0) {
            AscendC::DataCopy(yGm[gmOffset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(uint8_t)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[gmOffset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX1;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX2;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> maskBuf;   // compare result, one bit per element
    AscendC::TBuf<AscendC::QuePosition::VECCALC> selBuf;    // fp16 0/1 per element
    AscendC::TBuf<AscendC::QuePosition::VECCALC> onesBuf;   // fp16 ones, filled once
    AscendC::GlobalTensor<T> x1Gm;
    AscendC::GlobalTensor<T> x2Gm;
    AscendC::GlobalTensor<uint8_t> yGm;
    uint32_t coreDataNum = 0;
    uint32_t tileNum = 0;
    uint32_t tileDataNum = 0;
    uint32_t tailDataNum = 0;
};

extern "C" __global__ __aicore__ void greater_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGreaterCustom<DTYPE_X1> op;
    op.Init(x1, x2, y, tilingData);
    op.Process();
}
