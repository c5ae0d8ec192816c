// AscendOptimizer simulator: constant Matmul tiling (MatmulApiStaticTiling, GetMatmulApiTiling).
// Written from the public AscendC documentation ("Matmul template parameters", GetMatmulApiTiling):
//   MatmulApiStaticTiling holds TCubeTiling's parameters as compile-time constants (int32_t, the
//   same names) plus the MatmulConfig `cfg`; it may stand where a Matmul object takes its
//   MatmulConfig (the MM_CFG template argument). GetMatmulApiTiling<A, B, C, BIAS>(cfg, l1Size)
//   fills it from cfg's base shape (basicM/N/K) and, when given, single-core shape; with both
//   known ("full constant") REGIST_MATMUL_OBJ may pass a null tiling, with the base shape alone
//   ("partial") the runtime tiling is still passed. Values not fixed by cfg are -1 here.
// The emulated Matmul computes the same result whatever the tiling; a runtime tiling, when
// given, is the one it uses, and a full-constant one stands in when the tiling pointer is null.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ascendopt_kernel/matmul_config.h"
#include "ascendopt_kernel/tcube_tiling.h"

struct MatmulApiStaticTiling {
    int32_t M = -1, N = -1, Ka = -1, Kb = -1;
    int32_t singleCoreM = -1, singleCoreN = -1, singleCoreK = -1;
    int32_t baseM = -1, baseN = -1, baseK = -1;
    int32_t depthA1 = -1, depthB1 = -1, stepM = -1, stepN = -1, stepKa = -1, stepKb = -1;
    int32_t isBias = -1, transLength = -1, iterateOrder = -1;
    int32_t dbL0A = -1, dbL0B = -1, dbL0C = -1;
    int32_t shareMode = -1, shareL1Size = -1, shareL0CSize = -1, shareUbSize = -1;
    int32_t batchM = -1, batchN = -1, singleBatchM = -1, singleBatchN = -1, mxTypePara = -1;
    MatmulConfig cfg = {};
};

namespace AscendC {
using ::MatmulApiStaticTiling;

// L1 bytes of an Atlas A2 AI core (the documented default of GetMatmulApiTiling's l1Size).
constexpr int32_t AO_L1_SIZE = 512 * 1024;

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG, int32_t l1Size = AO_L1_SIZE) {
    using SrcA = typename A_TYPE::T;
    using SrcB = typename B_TYPE::T;
    MatmulApiStaticTiling t{};
    t.cfg = mmCFG;
    if (mmCFG.basicM == 0 || mmCFG.basicN == 0 || mmCFG.basicK == 0) return t;
    t.baseM = int32_t(mmCFG.basicM);
    t.baseN = int32_t(mmCFG.basicN);
    t.baseK = int32_t(mmCFG.basicK);
    t.iterateOrder = mmCFG.iterateOrder == IterateOrder::ORDER_N ? 1 : 0;
    t.isBias = mmCFG.enableSetBias ? 1 : 0;
    // One K slice per L1 load, double-buffered when both fit L1 twice; L0A/L0B (64 KiB each)
    // double-buffered when two base tiles fit.
    int64_t a = int64_t(t.baseM) * t.baseK * int64_t(sizeof(SrcA)), b = int64_t(t.baseN) * t.baseK * int64_t(sizeof(SrcB));
    t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
    t.depthA1 = t.depthB1 = 2 * (a + b) <= l1Size ? 2 : 1;
    t.dbL0A = 2 * a <= 64 * 1024 ? 2 : 1;
    t.dbL0B = 2 * b <= 64 * 1024 ? 2 : 1;
    t.dbL0C = 1;
    if (mmCFG.singleCoreM != 0 && mmCFG.singleCoreN != 0 && mmCFG.singleCoreK != 0) {
        t.singleCoreM = t.M = int32_t(mmCFG.singleCoreM);
        t.singleCoreN = t.N = int32_t(mmCFG.singleCoreN);
        t.singleCoreK = t.Ka = t.Kb = int32_t(mmCFG.singleCoreK);
    }
    return t;
}
}  // namespace AscendC

namespace ao::k {
// The MatmulConfig of a Matmul's MM_CFG argument (a MatmulConfig or a MatmulApiStaticTiling).
template <class Cfg>
constexpr MatmulConfig MmConfigOf(const Cfg& c) {
    if constexpr (std::is_same_v<Cfg, MatmulApiStaticTiling>) return c.cfg;
    else return c;
}
// The full-constant tiling of MM_CFG as a TCubeTiling, when it has one (null tiling pointer).
template <class Cfg>
constexpr bool MmStaticTiling(const Cfg& c, TCubeTiling& out) {
    if constexpr (std::is_same_v<Cfg, MatmulApiStaticTiling>) {
        if (c.singleCoreM <= 0 || c.singleCoreN <= 0 || c.singleCoreK <= 0 || c.baseM <= 0) return false;
        out = TCubeTiling{};
        out.usedCoreNum = 1;
        out.M = c.M; out.N = c.N; out.Ka = c.Ka; out.Kb = c.Kb;
        out.singleCoreM = c.singleCoreM; out.singleCoreN = c.singleCoreN; out.singleCoreK = c.singleCoreK;
        out.baseM = c.baseM; out.baseN = c.baseN; out.baseK = c.baseK;
        out.depthA1 = c.depthA1; out.depthB1 = c.depthB1;
        out.stepM = c.stepM; out.stepN = c.stepN; out.stepKa = c.stepKa; out.stepKb = c.stepKb;
        out.isBias = c.isBias; out.iterateOrder = c.iterateOrder;
        out.dbL0A = c.dbL0A; out.dbL0B = c.dbL0B; out.dbL0C = c.dbL0C;
        return true;
    } else {
        (void)c;
        (void)out;
        return false;
    }
}
}  // namespace ao::k
