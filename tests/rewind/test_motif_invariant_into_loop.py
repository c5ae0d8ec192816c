from ascendopt.transforms import get_motif as get

from .conftest import load


# Not invariant: `acc` is updated in place, `t` is scaled from a tensor the loop overwrites,
# `k` reads a scalar the loop changes, `z` is copied to GM by MTE3 in the loop, `u` is never
# used by the loop.
KERNEL_NO_SITE = """#include "kernel_operator.h"
using namespace AscendC;
class K {
public:
    __aicore__ inline void Process(uint32_t n)
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        LocalTensor<float> w = wBuf.Get<float>();
        LocalTensor<float> t = tBuf.Get<float>();
        LocalTensor<float> k = kBuf.Get<float>();
        LocalTensor<float> z = zBuf.Get<float>();
        LocalTensor<float> u = uBuf.Get<float>();
        float s = 1.0f;
        Adds(acc, acc, 1.0f, 64);
        Muls(t, w, 2.0f, 64);
        Duplicate(k, s, 64);
        Duplicate(z, 0.0f, 64);
        Duplicate(u, 0.0f, 64);
        for (uint32_t i = 0; i < n; ++i) {
            LocalTensor<float> x = q.AllocTensor<float>();
            DataCopy(x, xGm[i * 64], 64);
            q.EnQue(x);
            x = q.DeQue<float>();
            Add(acc, x, t, 64);
            Mul(w, x, k, 64);
            s = s + 1.0f;
            DataCopy(yGm[i * 64], z, 64);
            q.FreeTensor(x);
        }
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    TBuf<QuePosition::VECCALC> accBuf, wBuf, tBuf, kBuf, zBuf, uBuf;
    GlobalTensor<float> xGm, yGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_constant_fill_repeated_in_the_tile_loop(check):
    op = load("level1/greater_custom")
    m = get("invariant_into_loop")
    sites = m.find(op)
    assert [s.label for s in sites] == ["Process:59 for (i < tileNum): repeat Duplicate(ones, ...) from line 58 every tile"]
    slow = m.apply(op, sites[0])
    text = slow.files[sites[0].file]
    assert ("for (uint32_t i = 0; i < tileNum; ++i) {\n"
            "            AscendC::Duplicate(ones, static_cast<half>(1.0f), tileDataNum);\n") in text
    assert text.count("AscendC::Duplicate(ones") == 2
    assert all(r.status == "ok" for r in check(slow))


def test_branch_guarded_cast_keeps_its_condition(check):
    op = load("level2/rms_norm")
    m = get("invariant_into_loop")
    (site,) = m.find(op)
    assert site.label.endswith("repeat Cast(gammaFp32, ...) from line 92 every tile [!(std::is_same_v<T, float>)]")
    slow = m.apply(op, site)
    assert ("if constexpr (!(std::is_same_v<T, float>)) { Cast(gammaFp32, gammaLocal, RoundMode::CAST_NONE, "
            "alignCols); }\n            uint32_t rows") in slow.files[site.file]
    assert all(r.status == "ok" for r in check(slow))


def test_no_site_when_not_invariant_or_unused():
    op = load("level1/gelu")
    assert get("invariant_into_loop").find(op) == []
    assert get("invariant_into_loop").find(op.with_file(op.kernel_file, KERNEL_NO_SITE)) == []
