/**
 * @file naive_softsign.cpp
 * NaiveSoftsign: y = x / (1 + |x|), computed in fp32 for fp16 inputs.
 *
 * Deliberately naive, as a first kernel often is: correct, but one core walks the whole tensor
 * with scalar global-memory reads and writes, one element at a time. It is the operator the
 * README's first command optimizes: the offline Stage I rewrites spread the loop over the
 * cores, stage it through UB and vectorize it.
 */
#include "kernel_operator.h"

template <typename T>
class KernelNaiveSoftsign {
public:
    __aicore__ inline KernelNaiveSoftsign() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength)
    {
        this->totalLength = totalLength;
        xGm.SetGlobalBuffer((__gm__ T*)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ T*)y, totalLength);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < totalLength; ++i) {
            float v = static_cast<float>(xGm.GetValue(i));
            float a = v < 0.0f ? -v : v;
            yGm.SetValue(i, static_cast<T>(v / (1.0f + a)));
        }
    }

private:
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    uint32_t totalLength = 0;
};

extern "C" __global__ __aicore__ void naive_softsign(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelNaiveSoftsign<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength);
    op.Process();
}
