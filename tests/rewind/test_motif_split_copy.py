from ascendopt.transforms import get_motif as get

from .conftest import load


# UB->UB copies, parameter-struct copies and copies of operands whose type is not known are
# not sites.
KERNEL_NO_SITE = """#include "kernel_operator.h"
using namespace AscendC;
class K {
public:
    __aicore__ inline void Process(uint32_t n)
    {
        LocalTensor<float> a = aBuf.Get<float>();
        LocalTensor<float> b = bBuf.Get<float>();
        DataCopyParams params(1, 8, 0, 0);
        DataCopy(a, b, n);
        DataCopy(a, xGm, params);
        DataCopy(a, xGm, DataCopyParams(1, 8, 0, 0));
        DataCopy(a, xGm, {1, 8, 0, 0});
        auto c = b;
        DataCopy(c, b, n);
    }
    TPipe pipe;
    TBuf<QuePosition::VECCALC> aBuf, bBuf;
    GlobalTensor<float> xGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_copy_in_and_copy_out_split_into_chunks(check):
    op = load("level1/gelu")
    m = get("split_copy")
    sites = m.find(op)
    assert [s.label for s in sites] == [
        "CopyIn:75 DataCopy(xLocal, xGm[gmOffset], count) GM->UB -> 256-byte chunks",
        "CopyOut:121 DataCopy(yGm[gmOffset], yLocal, count) UB->GM -> 256-byte chunks"]
    slow = m.apply(op, sites[1])
    text = slow.files[sites[1].file]
    assert "AscendC::DataCopy(yGm[gmOffset], yLocal, count);" not in text
    assert "const uint32_t _aoCount = count;" in text
    assert "256 / sizeof(typename std::decay_t<decltype(_aoSrc)>::PrimType)" in text
    assert ("AscendC::DataCopy(_aoDst[_aoOff], _aoSrc[_aoOff], "
            "_aoCount - _aoOff < _aoChunk ? _aoCount - _aoOff : _aoChunk);") in text
    assert all(r.status == "ok" for r in check(slow))


def test_copy_through_template_parameters(check):
    op = load("level1/mul_custom")
    m = get("split_copy")
    sites = m.find(op)
    assert [s.label for s in sites][0] == "LoadTile:66 DataCopy(dst, src, count) GM->UB -> 256-byte chunks"
    slow = m.apply(op, sites[0])
    assert "decltype(_aoDst)>::PrimType" in slow.files[sites[0].file]
    assert all(r.status == "ok" for r in check(slow))


def test_no_site_for_local_copies_params_or_unknown_types():
    op = load("level1/gelu")
    assert get("split_copy").find(op.with_file(op.kernel_file, KERNEL_NO_SITE)) == []
    assert get("split_copy").find(load("level2/rms_norm")) == []
