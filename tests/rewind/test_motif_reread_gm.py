from ascendopt.transforms import get_motif as get

from .conftest import load


# layer_norm_custom written with its gamma/beta loads inline in Process (the shipped kernel
# loads them in a method that also allocates the tensor, a form the motif skips).
INLINE_LOADS = """        LocalTensor<T> gammaLocal = inQueueParam.AllocTensor<T>();
        LocalTensor<T> betaLocal = inQueueParam.AllocTensor<T>();
        DataCopyExtParams paramCopy(1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0);
        DataCopyPadExtParams<T> paramPad(true, 0, static_cast<uint8_t>(alignCols - cols), static_cast<T>(0));
        DataCopyPad(gammaLocal, gammaGm, paramCopy, paramPad);
        DataCopyPad(betaLocal, betaGm, paramCopy, paramPad);
        inQueueParam.EnQue(gammaLocal);
        inQueueParam.EnQue(betaLocal);
        gammaLocal = inQueueParam.DeQue<T>();
        betaLocal = inQueueParam.DeQue<T>();
"""


def layer_norm_inline():
    op = load("level2/layer_norm_custom")
    src = op.files[op.kernel_file]
    old = "        LocalTensor<T> gammaLocal = LoadParam(gammaGm);\n        LocalTensor<T> betaLocal = LoadParam(betaGm);\n"
    assert old in src
    return op.with_file(op.kernel_file, src.replace(old, INLINE_LOADS))


# Loaded tensors that are not re-loadable: `acc` is updated in place in the loop, `tab` is never
# read in the loop, `w` is loaded by a method that also allocates it.
KERNEL_NO_SITE = """#include "kernel_operator.h"
using namespace AscendC;
class K {
public:
    __aicore__ inline LocalTensor<float> Load()
    {
        LocalTensor<float> t = qw.AllocTensor<float>();
        DataCopy(t, wGm, 64);
        qw.EnQue(t);
        return qw.DeQue<float>();
    }
    __aicore__ inline void Process(uint32_t n)
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        LocalTensor<float> tab = tabBuf.Get<float>();
        DataCopy(acc, aGm, 64);
        DataCopy(tab, tGm, 64);
        LocalTensor<float> w = Load();
        for (uint32_t i = 0; i < n; ++i) {
            LocalTensor<float> x = q.AllocTensor<float>();
            DataCopy(x, xGm[i * 64], 64);
            q.EnQue(x);
            x = q.DeQue<float>();
            Add(acc, acc, x, 64);
            Mul(acc, acc, w, 64);
            q.FreeTensor(x);
        }
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    TQue<QuePosition::VECIN, 1> qw;
    TBuf<QuePosition::VECCALC> accBuf;
    TBuf<QuePosition::VECCALC> tabBuf;
    GlobalTensor<float> xGm, aGm, tGm, wGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""

SYNC_V_MTE2 = "AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(_aoEvVM); }\n"
SYNC_MTE2_V = "AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(_aoEvMV); }\n"


def test_rms_norm_gamma_is_reloaded_every_tile_with_sync(check):
    op = load("level2/rms_norm")
    m = get("reread_gm")
    sites = m.find(op)
    assert [s.label for s in sites] == [
        "Process:98 for (i < tileNum): reload gammaLocal from GM each tile (loaded at line 85)"]
    slow = m.apply(op, sites[0])
    text = slow.files[sites[0].file]
    assert (SYNC_V_MTE2 + "            DataCopyPad(gammaLocal, gammaGm, gammaParams, padParams);\n"
            "            { AscendC::TEventID _aoEvMV = pipe.FetchEventID(AscendC::HardEvent::MTE2_V);") in text
    assert text.index(SYNC_MTE2_V) < text.index("CopyIn(i, rows);")
    assert all(r.status == "ok" for r in check(slow))


def test_method_load_reissued_in_inner_row_loop():
    op = load("level1/add_broadcast")
    m = get("reread_gm")
    (site,) = m.find(op)
    assert site.label == "ProcessColSplit:193 for (r < rows): reload yLocal from GM each tile (loaded at line 190)"
    text = m.apply(op, site).files[site.file]
    assert SYNC_V_MTE2 + "                LoadRow(yLocal, yGm[col0], count);\n" in text


def test_inline_parameter_loads_of_layer_norm(check):
    op = layer_norm_inline()
    m = get("reread_gm")
    sites = m.find(op)
    assert [s.label.split(": ")[1] for s in sites] == [
        "reload gammaLocal from GM each tile (loaded at line 90)", "reload betaLocal from GM each tile (loaded at line 91)"]
    assert all(r.status == "ok" for r in check(m.apply(op, sites[1])))


def test_no_site_for_in_place_updated_unread_or_allocating_loads():
    op = load("level1/gelu")
    assert get("reread_gm").find(op) == []
    assert get("reread_gm").find(op.with_file(op.kernel_file, KERNEL_NO_SITE)) == []
