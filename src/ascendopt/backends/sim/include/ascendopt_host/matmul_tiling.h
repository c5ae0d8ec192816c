// AscendOptimizer simulator (host side): the Matmul tiling API (matmul_tiling::MatmulApiTiling,
// MultiCoreMatmulTiling, BatchMatmulTiling) and the host tiling class optiling::TCubeTiling.
//
// Class, method and enum names follow the public AscendC documentation (Matmul Tiling classes);
// the tiling algorithm is our own (AoCubeTilingSolve below) and is documented there. It only
// promises what the kernel-side Matmul (ascendopt_kernel/matmul.h) needs: a tiling whose
// buffers fit the SoC's (or SetBufferSpace's) L1 / L0A / L0B / L0C / bias-table sizes. When no
// such tiling exists, GetTiling returns -1 and leaves the tiling untouched.
#pragma once
#include <cstdint>
#include <algorithm>
#include <map>

#include "ascendopt_host/matmul_tiling_types.h"
#include "ascendopt_kernel/tcube_tiling.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
#define AO_TCUBE_HOST_FIELD(name) TILING_DATA_FIELD_DEF(int32_t, name)
BEGIN_TILING_DATA_DEF(TCubeTiling)
AO_TCUBE_TILING_FIELDS(AO_TCUBE_HOST_FIELD)
END_TILING_DATA_DEF;
#undef AO_TCUBE_HOST_FIELD
}  // namespace optiling

namespace matmul_tiling {

// ---------------------------------------------------------------------------------------------
// The tiling algorithm.
//
// Problem: C[M x N] = A[M x K] x B[K x N] (+ bias) on `dim` cores with the given buffer sizes.
// 1. Core split (multi-core only, unless SetSingleShape fixed it): over every mDim x nDim <= dim
//    take the one with the least per-core work, measured as cube work (sM * sN * K, sM and sN
//    rounded up to whole base blocks: the fixed ones of SetFixSplit, else step 2's default) plus
//    operand loads ((sM + sN) * K, the data a core must read), sM = ceil(M / mDim) rounded up to
//    the M alignment (16, or SetAlignSplit's), likewise sN; ties go to fewer cores. K is not split.
// 2. Base block (unless SetFixSplit fixed it): baseM = min(sM, 128), baseN = min(sN, 256), both
//    rounded up to 16 and halved (the larger first) until one L0C buffer holds baseM x baseN fp32;
//    with a bias, baseN also fits the bias table. baseK is the largest multiple of C0 (32 bytes of
//    the input type) not above sK for which two L0A and two L0B buffers fit (ping-pong).
// 3. L0 double buffering: dbL0A/dbL0B = 2 when two buffers fit, dbL0C = 2 when two C blocks fit.
// 4. L1: stepKa = stepKb = s K slices per load, the largest s <= min(kTiles, 8) for which two
//    loads of A and B (depth 2 * s) plus the bias fit L1; failing that, one load (depth s).
// Every size is checked; a problem with no fitting tiling returns -1.
struct AoCubeProblem {
    int64_t M = 0, N = 0, Ka = 0, Kb = 0;                // original shapes
    int64_t sM = -1, sN = -1, sK = -1;                   // fixed single-core shape (-1: choose)
    int64_t shapeM = 0, shapeN = 0, shapeK = 0;          // shape to split across cores
    int32_t dim = 1;                                      // cores (1: single core)
    int32_t alignM = 16, alignN = 16;
    int32_t fixBaseM = -1, fixBaseN = -1, fixBaseK = -1;
    uint32_t aBits = 16, bBits = 16, biasBits = 32;
    bool aTrans = false, bTrans = false, bias = false;
    int64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0, bt = 0;
    int32_t iterateOrder = 0;
};

inline int64_t AoCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t AoAlignUp(int64_t a, int64_t b) { return AoCeil(a, b) * b; }

// NZ bytes of a rows x cols tile as stored (rows to 16, cols to 32 bytes).
inline int64_t AoNzBytes(int64_t rows, int64_t cols, uint32_t bits) {
    int64_t c0 = 256 / bits;  // elements in 32 bytes
    return AoAlignUp(rows, 16) * AoAlignUp(cols, c0) * bits / 8;
}

inline bool AoCubeTilingSolve(const AoCubeProblem& p, AscendC::tiling::TCubeTiling& t) {
    if (p.M <= 0 || p.N <= 0 || p.Ka <= 0 || p.shapeM <= 0 || p.shapeN <= 0 || p.shapeK <= 0) return false;
    if (p.aBits == 0 || p.bBits == 0 || p.aBits != p.bBits) return false;
    const int64_t c0 = 256 / p.aBits;
    const int64_t aB = p.aBits, bB = p.bBits;
    // 1. core split
    int64_t sM = p.sM > 0 ? p.sM : p.shapeM, sN = p.sN > 0 ? p.sN : p.shapeN, sK = p.sK > 0 ? p.sK : p.shapeK;
    if (p.dim > 1 && (p.sM <= 0 || p.sN <= 0)) {
        double best = -1;
        for (int64_t md = 1; md <= p.dim; ++md) {
            for (int64_t nd = 1; md * nd <= p.dim; ++nd) {
                int64_t cm = p.sM > 0 ? p.sM : AoAlignUp(AoCeil(p.shapeM, md), p.alignM);
                int64_t cn = p.sN > 0 ? p.sN : AoAlignUp(AoCeil(p.shapeN, nd), p.alignN);
                if (cm > p.shapeM) cm = p.shapeM;
                if (cn > p.shapeN) cn = p.shapeN;
                int64_t used = AoCeil(p.shapeM, cm) * AoCeil(p.shapeN, cn);
                if (used > p.dim) continue;
                // The cube works in whole base blocks: a core whose share is not a multiple of
                // the base block pays for a padded tail block.
                int64_t bm = p.fixBaseM > 0 ? p.fixBaseM : std::min<int64_t>(AoAlignUp(cm, 16), 128);
                int64_t bn = p.fixBaseN > 0 ? p.fixBaseN : std::min<int64_t>(AoAlignUp(cn, 16), 256);
                double cube = double(AoCeil(cm, bm) * bm) * double(AoCeil(cn, bn) * bn) * double(sK);
                double cost = cube + double(cm + cn) * double(sK);
                if (best < 0 || cost < best * 0.999) {
                    best = cost;
                    sM = cm;
                    sN = cn;
                }
            }
        }
    }
    // 2. base block
    const int64_t accB = 4;
    int64_t baseM = p.fixBaseM > 0 ? p.fixBaseM : std::min<int64_t>(AoAlignUp(sM, 16), 128);
    int64_t baseN = p.fixBaseN > 0 ? p.fixBaseN : std::min<int64_t>(AoAlignUp(sN, 16), 256);
    if (p.fixBaseM <= 0 || p.fixBaseN <= 0) {
        while (AoAlignUp(baseM, 16) * AoAlignUp(baseN, 16) * accB > p.l0c || (p.bias && baseN * 4 > p.bt)) {
            bool shrinkN = p.fixBaseN <= 0 && (baseN >= baseM || p.fixBaseM > 0 || (p.bias && baseN * 4 > p.bt));
            if (shrinkN && baseN > 16) baseN = AoAlignUp(baseN / 2, 16);
            else if (p.fixBaseM <= 0 && baseM > 16) baseM = AoAlignUp(baseM / 2, 16);
            else break;
        }
    }
    int64_t baseK = p.fixBaseK;
    if (baseK <= 0) {
        int64_t byA = p.l0a / (2 * AoAlignUp(baseM, 16) * aB / 8), byB = p.l0b / (2 * AoAlignUp(baseN, 16) * bB / 8);
        int64_t kMax = std::min(byA, byB) / c0 * c0;
        baseK = std::min(kMax, AoAlignUp(sK, c0));
    }
    if (baseM <= 0 || baseN <= 0 || baseK <= 0 || baseK % c0 != 0) return false;
    const int64_t l0aOne = AoAlignUp(baseM, 16) * baseK * aB / 8, l0bOne = AoAlignUp(baseN, 16) * baseK * bB / 8;
    const int64_t l0cOne = AoAlignUp(baseM, 16) * AoAlignUp(baseN, 16) * accB;
    if (l0aOne > p.l0a || l0bOne > p.l0b || l0cOne > p.l0c) return false;
    if (p.bias && AoAlignUp(baseN, 16) * 4 > p.bt) return false;
    // 3. L0 double buffering
    int32_t dbL0 = (2 * l0aOne <= p.l0a && 2 * l0bOne <= p.l0b) ? 2 : 1;
    int32_t dbL0C = 2 * l0cOne <= p.l0c ? 2 : 1;
    // 4. L1
    const int64_t tileA = p.aTrans ? AoNzBytes(baseK, baseM, p.aBits) : AoNzBytes(baseM, baseK, p.aBits);
    const int64_t tileB = p.bTrans ? AoNzBytes(baseN, baseK, p.bBits) : AoNzBytes(baseK, baseN, p.bBits);
    const int64_t biasL1 = p.bias ? AoNzBytes(1, baseN, p.biasBits) : 0;
    const int64_t kTiles = AoCeil(sK, baseK);
    int64_t step = 0, depth = 0;
    for (int64_t s = std::min<int64_t>(kTiles, 8); s >= 1 && step == 0; --s)
        if (2 * s * (tileA + tileB) + biasL1 <= p.l1) { step = s; depth = 2 * s; }
    for (int64_t s = std::min<int64_t>(kTiles, 8); s >= 1 && step == 0; --s)
        if (s * (tileA + tileB) + biasL1 <= p.l1) { step = s; depth = s; }
    if (step == 0) return false;

    t = AscendC::tiling::TCubeTiling{};
    t.usedCoreNum = int32_t(AoCeil(p.shapeM, sM) * AoCeil(p.shapeN, sN));
    if (p.dim <= 1) t.usedCoreNum = 1;
    t.M = int32_t(p.M);
    t.N = int32_t(p.N);
    t.Ka = int32_t(p.Ka);
    t.Kb = int32_t(p.Kb > 0 ? p.Kb : p.Ka);
    t.singleCoreM = int32_t(sM);
    t.singleCoreN = int32_t(sN);
    t.singleCoreK = int32_t(sK);
    t.baseM = int32_t(baseM);
    t.baseN = int32_t(baseN);
    t.baseK = int32_t(baseK);
    t.depthA1 = int32_t(depth);
    t.depthB1 = int32_t(depth);
    t.stepM = 1;
    t.stepN = 1;
    t.stepKa = int32_t(step);
    t.stepKb = int32_t(step);
    t.isBias = p.bias ? 1 : 0;
    t.transLength = 0;
    t.iterateOrder = p.iterateOrder;
    t.shareMode = 0;
    t.shareL1Size = int32_t(depth * (tileA + tileB) + biasL1);
    t.shareL0CSize = int32_t(l0cOne * dbL0C);
    t.shareUbSize = 0;
    t.batchM = 1;
    t.batchN = 1;
    t.singleBatchM = 1;
    t.singleBatchN = 1;
    t.dbL0A = dbL0;
    t.dbL0B = dbL0;
    t.dbL0C = dbL0C;
    t.BatchNum = 1;
    return true;
}

// Copies a kernel-layout tiling into the host tiling class, field by field.
inline void AoCopyToHost(const AscendC::tiling::TCubeTiling& k, optiling::TCubeTiling& h) {
#define AO_TCUBE_COPY(name) h.set_##name(k.name);
    AO_TCUBE_TILING_FIELDS(AO_TCUBE_COPY)
#undef AO_TCUBE_COPY
}

// ---------------------------------------------------------------------------------------------
class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() { InitFrom(platform_ascendc::PlatformAscendCManager::GetInstance()); }
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& ascendcPlatform) { InitFrom(&ascendcPlatform); }
    explicit MatmulApiTilingBase(const PlatformInfo& platform) {
        socVersion = platform.socVersion;
        oriBufferPool_ = BufferPool{};
        oriBufferPool_.l1Size = int32_t(platform.l1Size);
        oriBufferPool_.l0CSize = int32_t(platform.l0CSize);
        oriBufferPool_.ubSize = int32_t(platform.ubSize);
        oriBufferPool_.l0ASize = int32_t(platform.l0ASize);
        oriBufferPool_.l0BSize = int32_t(platform.l0BSize);
        oriBufferPool_.btSize = 1024;
        bufferPool_ = oriBufferPool_;
    }
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        aType_.pos = pos;
        aType_.type = type;
        aType_.dataType = dataType;
        aType_.isTrans = isTrans;
        return 0;
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        bType_.pos = pos;
        bType_.type = type;
        bType_.dataType = dataType;
        bType_.isTrans = isTrans;
        return 0;
    }
    int32_t SetScaleAType(TPosition, CubeFormat, bool = false) { return 0; }
    int32_t SetScaleBType(TPosition, CubeFormat, bool = true) { return 0; }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
        cType_.pos = pos;
        cType_.type = type;
        cType_.dataType = dataType;
        return 0;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        biasType_.pos = pos;
        biasType_.type = type;
        biasType_.dataType = dataType;
        return 0;
    }
    int32_t SetDequantType(DequantType dequantType) {
        deqType = dequantType;
        return 0;
    }
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        singleM = m;
        singleN = n;
        singleK = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) { return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn); }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
        orgM = orgMIn;
        orgN = orgNIn;
        orgKa = orgKaIn;
        orgKb = orgKbIn;
        return 0;
    }
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        aLayoutInfoB = b; aLayoutInfoS = s; aLayoutInfoN = n; aLayoutInfoG = g; aLayoutInfoD = d;
        return 0;
    }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        bLayoutInfoB = b; bLayoutInfoS = s; bLayoutInfoN = n; bLayoutInfoG = g; bLayoutInfoD = d;
        return 0;
    }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        cLayoutInfoB = b; cLayoutInfoS1 = s; cLayoutInfoN = n; cLayoutInfoG = g; cLayoutInfoS2 = d;
        return 0;
    }
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
        batchM = batchA;
        batchN = batchB;
        SetShape(m, n, k);
        SetOrgShape(m, n, k);
        return 0;
    }
    int32_t SetBatchNum(int32_t batch) {
        batchNum = batch;
        return 0;
    }
    int32_t EnableBias(bool isBiasIn = false) { return SetBias(isBiasIn); }
    int32_t SetBias(bool isBiasIn = false) {
        isBias = isBiasIn;
        return 0;
    }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
        baseM = baseMIn;
        baseN = baseNIn;
        baseK = baseKIn;
        return 0;
    }
    // -1 keeps the platform's size; a size above the platform's is refused.
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        if ((l1Size > oriBufferPool_.l1Size) || (l0CSize > oriBufferPool_.l0CSize) || (ubSize > oriBufferPool_.ubSize) ||
            (btSize > oriBufferPool_.btSize))
            return -1;
        bufferPool_.l1Size = l1Size >= 0 ? l1Size : oriBufferPool_.l1Size;
        bufferPool_.l0CSize = l0CSize >= 0 ? l0CSize : oriBufferPool_.l0CSize;
        bufferPool_.ubSize = ubSize >= 0 ? ubSize : oriBufferPool_.ubSize;
        bufferPool_.btSize = btSize >= 0 ? btSize : oriBufferPool_.btSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetMadType(MatrixMadType madType) {
        madType_ = madType;
        return 0;
    }
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1, int32_t minBaseM = -1,
                          int32_t minBaseN = -1, int32_t minBaseK = -1) {
        adjust_ = {maxBaseM, maxBaseN, maxBaseK, minBaseM, minBaseN, minBaseK};
        return 0;
    }
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true) {
        aType_.isDB = a;
        bType_.isDB = b;
        cType_.isDB = c;
        biasType_.isDB = bias;
        transND2NZ_ = transND2NZ;
        transNZ2ND_ = transNZ2ND;
        return 0;
    }
    void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                               MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false) {
        mmConfigType = mmConfigTypeIn;
        enableL1CacheUB = enableL1CacheUBIn;
        scheduleType = scheduleTypeIn;
        if (traverseIn != MatrixTraverse::NOSET) traverse_ = traverseIn;
        enVecND2NZ = enVecND2NZIn;
    }
    void SetMatmulConfigParams(const MatmulConfigParams& c) {
        SetMatmulConfigParams(c.mmConfigType, c.enableL1CacheUB, c.scheduleType, c.traverse, c.enVecND2NZ);
    }
    int32_t SetSparse(bool isSparseIn = false) {
        isSparse_ = isSparseIn;
        return 0;
    }
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }

    virtual int64_t GetTiling(optiling::TCubeTiling& tiling) {
        AscendC::tiling::TCubeTiling k;
        int64_t r = GetTiling(k);
        if (r == 0) AoCopyToHost(k, tiling);
        return r;
    }
    virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) {
        AoCubeProblem p = Problem();
        AscendC::tiling::TCubeTiling k;
        if (!AoCubeTilingSolve(p, k)) return -1;
        Adopt(k);
        tiling = k;
        AoCopyToHost(k, tiling_);
        return 0;
    }

public:
    optiling::TCubeTiling tiling_;
    MatTilingType aType_;
    MatTilingType bType_;
    MatTilingType cType_;
    MatTilingType biasType_;
    bool isBias = false;
    bool isSupportL0c2Out = true;
    int32_t blockDim = 0;
    int32_t orgM = 0, orgN = 0, orgKa = 0, orgKb = 0;
    int32_t aLayoutInfoB = 0, aLayoutInfoS = 0, aLayoutInfoN = 0, aLayoutInfoG = 0, aLayoutInfoD = 0;
    int32_t bLayoutInfoB = 0, bLayoutInfoS = 0, bLayoutInfoN = 0, bLayoutInfoG = 0, bLayoutInfoD = 0;
    int32_t cLayoutInfoB = 0, cLayoutInfoS1 = 0, cLayoutInfoN = 0, cLayoutInfoG = 0, cLayoutInfoS2 = 0;
    int32_t batchNum = 0;
    int32_t singleM = 0, singleN = 0, singleK = 0;
    int32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    int32_t baseM = 0, baseN = 0, baseK = 0;
    int32_t batchM = 0, batchN = 0, singleBatchM = 0, singleBatchN = 0;
    int32_t alignSingleM = 1, alignSingleN = 1, alignSingleK = 1;
    struct MnmAdjust {
        int32_t maxBaseM, maxBaseN, maxBaseK, minBaseM, minBaseN, minBaseK;
    } adjust_{};
    BufferPool oriBufferPool_{};
    BufferPool bufferPool_{};
    MatrixTraverse traverse_ = MatrixTraverse::FIRSTM;
    MatrixMadType madType_ = MatrixMadType::NORMAL;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool transND2NZ_ = false;
    bool transNZ2ND_ = false;
    bool isSparse_ = false;
    int32_t maxSingleM = 0, maxSingleN = 0, maxSingleK = 0, minSingleM = 0, minSingleN = 0, minSingleK = 0;
    DequantType deqType = DequantType::SCALAR;
    bool enableSplitK_ = false;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    int32_t mmConfigType = 1;
    bool enableL1CacheUB = false;
    bool enVecND2NZ = false;
    bool isBMNKBmm = false;

protected:
    void InitFrom(const platform_ascendc::PlatformAscendC* pl) {
        uint64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0, ub = 0, bt = 0;
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
        pl->GetCoreMemSize(platform_ascendc::CoreMemType::BT, bt);
        socVersion = pl->GetSocVersion();
        oriBufferPool_ = BufferPool{};
        oriBufferPool_.l1Size = int32_t(l1);
        oriBufferPool_.l0ASize = int32_t(l0a);
        oriBufferPool_.l0BSize = int32_t(l0b);
        oriBufferPool_.l0CSize = int32_t(l0c);
        oriBufferPool_.ubSize = int32_t(ub);
        oriBufferPool_.btSize = int32_t(bt);
        bufferPool_ = oriBufferPool_;
    }
    // The problem as set so far; subclasses add the core split.
    virtual AoCubeProblem Problem() const {
        AoCubeProblem p;
        p.shapeM = singleM > 0 ? singleM : orgM;
        p.shapeN = singleN > 0 ? singleN : orgN;
        p.shapeK = singleK > 0 ? singleK : orgKa;
        p.M = orgM > 0 ? orgM : p.shapeM;
        p.N = orgN > 0 ? orgN : p.shapeN;
        p.Ka = orgKa > 0 ? orgKa : p.shapeK;
        p.Kb = orgKb > 0 ? orgKb : p.Ka;
        p.sM = p.shapeM;
        p.sN = p.shapeN;
        p.sK = p.shapeK;
        p.fixBaseM = baseM > 0 ? baseM : -1;
        p.fixBaseN = baseN > 0 ? baseN : -1;
        p.fixBaseK = baseK > 0 ? baseK : -1;
        p.aBits = AoDataTypeBits(aType_.dataType);
        p.bBits = AoDataTypeBits(bType_.dataType);
        p.biasBits = AoDataTypeBits(biasType_.dataType);
        if (p.biasBits == 0) p.biasBits = 32;
        p.aTrans = aType_.isTrans;
        p.bTrans = bType_.isTrans;
        p.bias = isBias;
        p.l1 = bufferPool_.l1Size;
        p.l0a = bufferPool_.l0ASize;
        p.l0b = bufferPool_.l0BSize;
        p.l0c = bufferPool_.l0CSize;
        p.bt = bufferPool_.btSize;
        p.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        return p;
    }
    void Adopt(const AscendC::tiling::TCubeTiling& k) {
        singleCoreM = k.singleCoreM;
        singleCoreN = k.singleCoreN;
        singleCoreK = k.singleCoreK;
        baseM = k.baseM;
        baseN = k.baseN;
        baseK = k.baseK;
    }
};

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MatmulApiTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    ~MatmulApiTiling() override = default;
    using MatmulApiTilingBase::GetTiling;
    bool EnableL1BankConflictOptimise() { return false; }
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    using MatmulApiTilingBase::GetTiling;
    int32_t SetDim(int32_t dim) {
        blockDim = dim;
        return 0;
    }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override { return MatmulApiTilingBase::SetShape(m, n, k); }
    virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
        fixSingleM_ = singleMIn;
        fixSingleN_ = singleNIn;
        fixSingleK_ = singleKIn;
        return 0;
    }
    virtual int32_t SetSingleRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1, int32_t minM = -1,
                                   int32_t minN = -1, int32_t minK = -1) {
        maxSingleM = maxM; maxSingleN = maxN; maxSingleK = maxK;
        minSingleM = minM; minSingleN = minN; minSingleK = minK;
        return 0;
    }
    int32_t SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK) {
        alignSingleM = alignM > 0 ? alignM : 1;
        alignSingleN = alignN > 0 ? alignN : 1;
        alignSingleK = alignK > 0 ? alignK : 1;
        return 0;
    }
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
        shapeM = singleCoreM;
        shapeN = singleCoreN;
        shapeK = singleCoreK;
        return 0;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        if (singleCoreM <= 0 || singleCoreN <= 0) return -1;
        AoCubeProblem p = Problem();
        mDim = int32_t(AoCeil(p.shapeM, singleCoreM));
        nDim = int32_t(AoCeil(p.shapeN, singleCoreN));
        dim = mDim * nDim;
        return 0;
    }
    void EnableMultiCoreSplitK(bool flag) { enableSplitK_ = flag; }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }
    bool EnableL1BankConflictOptimise() { return false; }

protected:
    AoCubeProblem Problem() const override {
        AoCubeProblem p = MatmulApiTilingBase::Problem();
        p.dim = blockDim > 0 ? blockDim : 1;
        p.sM = fixSingleM_;
        p.sN = fixSingleN_;
        p.sK = fixSingleK_;
        p.alignM = alignSingleM > 1 ? alignSingleM : 16;
        p.alignN = alignSingleN > 1 ? alignSingleN : 16;
        if (p.dim <= 1) {
            if (p.sM <= 0) p.sM = p.shapeM;
            if (p.sN <= 0) p.sN = p.shapeN;
        }
        return p;
    }
    int32_t fixSingleM_ = -1, fixSingleN_ = -1, fixSingleK_ = -1;
};

class BatchMatmulTiling : public MatmulApiTilingBase {
public:
    BatchMatmulTiling() {}
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    using MatmulApiTilingBase::GetTiling;
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim, int32_t& batchCoreM, int32_t& batchCoreN) {
        dim = 1;
        mDim = 1;
        nDim = 1;
        batchCoreM = batchM > 0 ? batchM : 1;
        batchCoreN = batchN > 0 ? batchN : 1;
        return 0;
    }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override {
        int64_t r = MatmulApiTilingBase::GetTiling(tiling);
        if (r != 0) return r;
        tiling.batchM = batchM > 0 ? batchM : 1;
        tiling.batchN = batchN > 0 ? batchN : 1;
        tiling.ALayoutInfoB = aLayoutInfoB; tiling.ALayoutInfoS = aLayoutInfoS; tiling.ALayoutInfoN = aLayoutInfoN;
        tiling.ALayoutInfoG = aLayoutInfoG; tiling.ALayoutInfoD = aLayoutInfoD;
        tiling.BLayoutInfoB = bLayoutInfoB; tiling.BLayoutInfoS = bLayoutInfoS; tiling.BLayoutInfoN = bLayoutInfoN;
        tiling.BLayoutInfoG = bLayoutInfoG; tiling.BLayoutInfoD = bLayoutInfoD;
        tiling.CLayoutInfoB = cLayoutInfoB; tiling.CLayoutInfoS1 = cLayoutInfoS1; tiling.CLayoutInfoN = cLayoutInfoN;
        tiling.CLayoutInfoG = cLayoutInfoG; tiling.CLayoutInfoS2 = cLayoutInfoS2;
        tiling.BatchNum = batchNum > 0 ? batchNum : 1;
        AoCopyToHost(tiling, tiling_);
        return 0;
    }
};

}  // namespace matmul_tiling

// Temporary-buffer queries: the emulated Matmul keeps no UB/L1 scratch outside its tiling.
extern "C" {
inline int32_t MatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize = matmul_tiling::SysTilingTempBufSize{};
    return 0;
}
inline int32_t MultiCoreMatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize = matmul_tiling::SysTilingTempBufSize{};
    return 0;
}
inline int32_t BatchMatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize = matmul_tiling::SysTilingTempBufSize{};
    return 0;
}
}
