// Host-side unit test of matmul_tiling (ascendopt_host/matmul_tiling.h): prints one line per
// check, "name ok" or "name FAIL ...". Built with the emulation headers only.
#include <cstdio>
#include "tiling/tiling_api.h"

using namespace matmul_tiling;

static matmul_tiling::PlatformInfo A2() {
    matmul_tiling::PlatformInfo p;
    p.socVersion = platform_ascendc::SocVersion::ASCEND910B;
    p.l1Size = 524288;
    p.l0CSize = 131072;
    p.ubSize = 196608;
    p.l0ASize = 65536;
    p.l0BSize = 65536;
    return p;
}

static void Types(MatmulApiTilingBase& t, DataType in, DataType out, bool bias) {
    t.SetAType(TPosition::GM, CubeFormat::ND, in);
    t.SetBType(TPosition::GM, CubeFormat::ND, in);
    t.SetCType(TPosition::GM, CubeFormat::ND, out);
    t.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    t.SetBias(bias);
}

// The tiling's buffers fit the platform: what the kernel-side Matmul allocates.
static bool Fits(const optiling::TCubeTiling& t, int bytes) {
    long l0a = long((t.baseM + 15) / 16 * 16) * t.baseK * bytes * t.dbL0A;
    long l0b = long((t.baseN + 15) / 16 * 16) * t.baseK * bytes * t.dbL0B;
    long l0c = long((t.baseM + 15) / 16 * 16) * ((t.baseN + 15) / 16 * 16) * 4 * t.dbL0C;
    long l1 = long(t.shareL1Size);
    return l0a <= 65536 && l0b <= 65536 && l0c <= 131072 && l1 <= 524288 && t.baseK % (32 / bytes) == 0 &&
           t.depthA1 >= t.stepKa && t.depthB1 >= t.stepKb;
}

int main() {
    {
        MatmulApiTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, true);
        t.SetShape(1000, 3000, 4096);
        t.SetOrgShape(1000, 3000, 4096);
        optiling::TCubeTiling tl;
        int64_t r = t.GetTiling(tl);
        bool ok = r == 0 && Fits(tl, 2) && tl.get_singleCoreM() == 1000 && tl.get_singleCoreN() == 3000 &&
                  tl.get_isBias() == 1 && tl.get_usedCoreNum() == 1 && tl.get_Ka() == 4096;
        std::printf("single_core_fits %s r=%lld base=%dx%dx%d db=%d/%d/%d step=%d depth=%d\n", ok ? "ok" : "FAIL",
                    (long long)r, tl.baseM, tl.baseN, tl.baseK, tl.dbL0A, tl.dbL0B, tl.dbL0C, tl.stepKa, tl.depthA1);
    }
    {
        MultiCoreMatmulTiling t(A2());
        Types(t, DataType::DT_INT8, DataType::DT_INT32, false);
        t.SetDim(24);
        t.SetShape(77, 1029, 333);
        t.SetOrgShape(77, 1029, 333);
        AscendC::tiling::TCubeTiling k;
        int64_t r = t.GetTiling(k);
        optiling::TCubeTiling h;
        matmul_tiling::AoCopyToHost(k, h);
        int cores = ((77 + k.singleCoreM - 1) / k.singleCoreM) * ((1029 + k.singleCoreN - 1) / k.singleCoreN);
        bool ok = r == 0 && Fits(h, 1) && k.usedCoreNum == cores && cores <= 24 && cores > 1 && k.baseK % 32 == 0;
        std::printf("multi_core_int8 %s r=%lld single=%dx%d cores=%d base=%dx%dx%d\n", ok ? "ok" : "FAIL",
                    (long long)r, k.singleCoreM, k.singleCoreN, cores, k.baseM, k.baseN, k.baseK);
    }
    {
        // Two cores, base block fixed at 128 x 128: splitting M (512 x 640 each) leaves whole base
        // blocks, splitting N (1024 x 320) a padded 64-wide tail block per core.
        MultiCoreMatmulTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, true);
        t.SetDim(2);
        t.SetShape(1024, 640, 256);
        t.SetOrgShape(1024, 640, 256);
        t.SetFixSplit(128, 128, -1);
        AscendC::tiling::TCubeTiling k;
        int64_t r = t.GetTiling(k);
        bool ok = r == 0 && k.singleCoreM == 512 && k.singleCoreN == 640 && k.usedCoreNum == 2;
        std::printf("split_in_whole_base_blocks %s r=%lld single=%dx%d\n", ok ? "ok" : "FAIL", (long long)r,
                    k.singleCoreM, k.singleCoreN);
    }
    {
        MatmulApiTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, false);
        t.SetShape(1024, 1024, 1024);
        t.SetFixSplit(512, 512, 64);  // one fp32 C block of 1 MiB cannot live in a 128 KiB L0C
        optiling::TCubeTiling tl;
        tl.set_baseM(7);
        int64_t r = t.GetTiling(tl);
        std::printf("impossible_fix_split %s r=%lld\n", r == -1 && tl.get_baseM() == 7 ? "ok" : "FAIL", (long long)r);
    }
    {
        MatmulApiTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, false);
        t.SetShape(256, 256, 256);
        int32_t rs = t.SetBufferSpace(256, -1, -1);  // L1 smaller than one 16 x 16 A and B tile
        optiling::TCubeTiling tl;
        int64_t r = t.GetTiling(tl);
        std::printf("impossible_l1 %s r=%lld set=%d\n", r == -1 && rs == 0 ? "ok" : "FAIL", (long long)r, rs);
    }
    {
        MatmulApiTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, false);
        int32_t rs = t.SetBufferSpace(1 << 30, -1, -1);  // more L1 than the chip has
        std::printf("buffer_space_over_platform %s set=%d\n", rs == -1 ? "ok" : "FAIL", rs);
    }
    {
        MatmulApiTiling t(A2());
        Types(t, DataType::DT_FLOAT16, DataType::DT_FLOAT, false);
        t.SetShape(0, 16, 16);
        optiling::TCubeTiling tl;
        std::printf("empty_shape %s\n", t.GetTiling(tl) == -1 ? "ok" : "FAIL");
    }
    return 0;
}
