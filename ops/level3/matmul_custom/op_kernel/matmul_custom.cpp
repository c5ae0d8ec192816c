/**
 * @file matmul_custom.cpp
 * MatmulCustom kernel (basic cube API): c[M, N] (float) = a[M, K] (half) x b[K, N] (half).
 *
 * Output blocks of baseM x baseN are dealt round-robin to the cube cores. For one block:
 *   GM -> L1    DataCopy with Nd2Nz: a slice [curM, kL1] and b slice [kL1, curN] (kL1 = stepK*baseK),
 *               both in NZ (16-row fractals, column blocks padded to 16 rows);
 *   L1 -> L0    LoadData per baseK slice: A fractals reordered to zZ, B fractals transposed to nZ;
 *   L0 -> L0C   Mmad accumulates the K slices in L0C (the first slice initialises C);
 *   L0C -> GM   one Fixpipe (NZ -> ND, float) per block.
 * Tails (M, N, K not multiples of the bases or of 16) are handled by the padded fractal layouts:
 * Mmad only reduces over the valid k and Fixpipe only writes the valid curM x curN region.
 */
#include "kernel_operator.h"

#ifndef DTYPE_A
#define DTYPE_A half
#endif
#ifndef DTYPE_B
#define DTYPE_B half
#endif
#ifndef DTYPE_C
#define DTYPE_C float
#endif

using namespace AscendC;

namespace {
constexpr uint32_t CUBE = 16;          // fractal rows / columns
constexpr uint32_t FRACTAL = 16 * 16;  // elements of one half fractal (512 B)

__aicore__ inline uint32_t MinU32(uint32_t a, uint32_t b) { return a < b ? a : b; }
__aicore__ inline uint32_t Align16(uint32_t a) { return (a + CUBE - 1) / CUBE * CUBE; }
}  // namespace

template <typename AT, typename BT, typename CT>
class KernelMatmul {
public:
    __aicore__ inline KernelMatmul() {}

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t M, uint32_t N, uint32_t K, uint32_t baseM,
                                uint32_t baseN, uint32_t baseK, uint32_t stepK, uint32_t mBlocks, uint32_t nBlocks,
                                uint32_t l1BufNum, uint32_t l0BufNum)
    {
        this->M = M;
        this->N = N;
        this->K = K;
        this->baseM = baseM;
        this->baseN = baseN;
        this->baseK = baseK;
        this->stepK = stepK;
        this->mBlocks = mBlocks;
        this->nBlocks = nBlocks;
        aGm.SetGlobalBuffer((__gm__ AT*)a, static_cast<uint64_t>(M) * K);
        bGm.SetGlobalBuffer((__gm__ BT*)b, static_cast<uint64_t>(K) * N);
        cGm.SetGlobalBuffer((__gm__ CT*)c, static_cast<uint64_t>(M) * N);
        uint32_t kL1 = baseK * stepK;
        pipe.InitBuffer(inQueueA1, l1BufNum, baseM * kL1 * sizeof(AT));
        pipe.InitBuffer(inQueueB1, l1BufNum, kL1 * baseN * sizeof(BT));
        pipe.InitBuffer(inQueueA2, l0BufNum, baseM * baseK * sizeof(AT));
        pipe.InitBuffer(inQueueB2, l0BufNum, baseK * baseN * sizeof(BT));
        pipe.InitBuffer(outQueueCO1, 1, baseM * baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t blocks = mBlocks * nBlocks;
        for (uint32_t blk = GetBlockIdx(); blk < blocks; blk += GetBlockNum()) {
            ComputeBlock(blk / nBlocks, blk % nBlocks);
        }
    }

private:
    __aicore__ inline void ComputeBlock(uint32_t mIdx, uint32_t nIdx)
    {
        uint32_t mOff = mIdx * baseM, nOff = nIdx * baseN;
        uint32_t curM = MinU32(baseM, M - mOff), curN = MinU32(baseN, N - nOff);
        uint32_t mAlign = Align16(curM), nAlign = Align16(curN);
        uint32_t kL1Max = baseK * stepK;
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        bool first = true;
        for (uint32_t k0 = 0; k0 < K; k0 += kL1Max) {
            uint32_t kL1 = MinU32(kL1Max, K - k0);
            uint32_t kL1Align = Align16(kL1);
            CopyIn(mOff, nOff, k0, curM, curN, kL1, mAlign, kL1Align);
            LocalTensor<AT> a1 = inQueueA1.DeQue<AT>();
            LocalTensor<BT> b1 = inQueueB1.DeQue<BT>();
            for (uint32_t ks = 0; ks < kL1; ks += baseK) {
                uint32_t ck = MinU32(baseK, kL1 - ks);
                SplitA(a1, ks, ck, mAlign);
                SplitB(b1, ks, ck, nAlign, kL1Align);
                Compute(c1, curM, curN, ck, first);
                first = false;
            }
            inQueueA1.FreeTensor(a1);
            inQueueB1.FreeTensor(b1);
        }
        outQueueCO1.EnQue(c1);
        CopyOut(mOff, nOff, curM, curN, mAlign);
    }

    // GM (ND) -> L1 (NZ): a[mOff.., k0..] rows of length kL1, b[k0.., nOff..] rows of length curN.
    __aicore__ inline void CopyIn(uint32_t mOff, uint32_t nOff, uint32_t k0, uint32_t curM, uint32_t curN,
                                  uint32_t kL1, uint32_t mAlign, uint32_t kL1Align)
    {
        LocalTensor<AT> a1 = inQueueA1.AllocTensor<AT>();
        LocalTensor<BT> b1 = inQueueB1.AllocTensor<BT>();
        Nd2NzParams pa;
        pa.ndNum = 1;
        pa.nValue = curM;
        pa.dValue = kL1;
        pa.srcNdMatrixStride = 0;
        pa.srcDValue = K;
        pa.dstNzC0Stride = mAlign;
        pa.dstNzNStride = 1;
        pa.dstNzMatrixStride = 0;
        DataCopy(a1, aGm[static_cast<uint64_t>(mOff) * K + k0], pa);
        Nd2NzParams pb;
        pb.ndNum = 1;
        pb.nValue = kL1;
        pb.dValue = curN;
        pb.srcNdMatrixStride = 0;
        pb.srcDValue = N;
        pb.dstNzC0Stride = kL1Align;
        pb.dstNzNStride = 1;
        pb.dstNzMatrixStride = 0;
        DataCopy(b1, bGm[static_cast<uint64_t>(k0) * N + nOff], pb);
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);
    }

    // L1 NZ -> L0A zZ: for each 16-wide K block, the column of M fractals goes to every kB-th fractal.
    __aicore__ inline void SplitA(const LocalTensor<AT>& a1, uint32_t ks, uint32_t ck, uint32_t mAlign)
    {
        LocalTensor<AT> a2 = inQueueA2.AllocTensor<AT>();
        uint32_t kB = (ck + CUBE - 1) / CUBE;
        LoadData2DParams p;
        p.startIndex = 0;
        p.repeatTimes = static_cast<uint8_t>(mAlign / CUBE);
        p.srcStride = 1;
        p.dstGap = static_cast<uint16_t>(kB - 1);
        p.ifTranspose = false;
        for (uint32_t kb = 0; kb < kB; ++kb) {
            LoadData(a2[kb * FRACTAL], a1[(ks / CUBE + kb) * mAlign * CUBE], p);
        }
        inQueueA2.EnQue(a2);
    }

    // L1 NZ -> L0B nZ: for each K block, the row of N fractals (kL1Align/16 apart in L1), transposed.
    __aicore__ inline void SplitB(const LocalTensor<BT>& b1, uint32_t ks, uint32_t ck, uint32_t nAlign,
                                  uint32_t kL1Align)
    {
        LocalTensor<BT> b2 = inQueueB2.AllocTensor<BT>();
        uint32_t kB = (ck + CUBE - 1) / CUBE;
        uint32_t nB = nAlign / CUBE;
        LoadData2DParams p;
        p.startIndex = 0;
        p.repeatTimes = static_cast<uint8_t>(nB);
        p.srcStride = static_cast<uint16_t>(kL1Align / CUBE);
        p.dstGap = 0;
        p.ifTranspose = true;
        for (uint32_t kb = 0; kb < kB; ++kb) {
            LoadData(b2[kb * nB * FRACTAL], b1[(ks / CUBE + kb) * FRACTAL], p);
        }
        inQueueB2.EnQue(b2);
    }

    __aicore__ inline void Compute(const LocalTensor<float>& c1, uint32_t curM, uint32_t curN, uint32_t ck, bool first)
    {
        LocalTensor<AT> a2 = inQueueA2.DeQue<AT>();
        LocalTensor<BT> b2 = inQueueB2.DeQue<BT>();
        MmadParams p;
        p.m = curM;
        p.n = curN;
        p.k = ck;
        p.cmatrixInitVal = first;
        Mmad(c1, a2, b2, p);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);
    }

    __aicore__ inline void CopyOut(uint32_t mOff, uint32_t nOff, uint32_t curM, uint32_t curN, uint32_t mAlign)
    {
        LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
        FixpipeParamsV220 p;
        p.nSize = curN;
        p.mSize = curM;
        p.srcStride = mAlign;
        p.dstStride = N;
        p.ndNum = 1;
        p.srcNdStride = 0;
        p.dstNdStride = 0;
        p.quantPre = QuantMode_t::NoQuant;
        Fixpipe(cGm[static_cast<uint64_t>(mOff) * N + nOff], c1, p);
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<AT> aGm;
    GlobalTensor<BT> bGm;
    GlobalTensor<CT> cGm;
    uint32_t M = 0, N = 0, K = 0;
    uint32_t baseM = 0, baseN = 0, baseK = 0, stepK = 1;
    uint32_t mBlocks = 0, nBlocks = 0;
};

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmul<DTYPE_A, DTYPE_B, DTYPE_C> op;
    op.Init(a, b, c, tilingData.M, tilingData.N, tilingData.K, tilingData.baseM, tilingData.baseN, tilingData.baseK,
            tilingData.stepK, tilingData.mBlocks, tilingData.nBlocks, tilingData.l1BufNum, tilingData.l0BufNum);
    op.Process();
}
