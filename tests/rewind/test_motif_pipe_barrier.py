from ascendopt.transforms import get_motif as get

from .conftest import load


# A loop with no queue operation nor GM copy (local->local only), and a tile loop that already
# carries a full barrier: neither is a site.
KERNEL_NO_SITE = """#include "kernel_operator.h"
class K {
public:
    __aicore__ inline void Fill(uint32_t n)
    {
        AscendC::LocalTensor<float> a = buf.Get<float>();
        for (uint32_t r = 1; r < n; ++r) {
            AscendC::DataCopy(a[r * 64], a, 64);
        }
    }
    __aicore__ inline void Process(uint32_t n)
    {
        for (uint32_t i = 0; i < n; ++i) {
            Step(i);
            AscendC::PipeBarrier<PIPE_ALL>();
        }
    }
    __aicore__ inline void Step(uint32_t i)
    {
        AscendC::LocalTensor<float> x = q.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[i * 64], 64);
        q.EnQue(x);
        x = q.DeQue<float>();
        q.FreeTensor(x);
    }
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> q;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> buf;
    AscendC::GlobalTensor<float> xGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_barrier_after_copy_in_of_the_tile_loop(check):
    op = load("level2/rms_norm")
    m = get("pipe_barrier")
    sites = m.find(op)
    assert [s.label for s in sites] == ["Process:98 for (i < tileNum): PipeBarrier<PIPE_ALL> after copy-in"]
    slow = m.apply(op, sites[0])
    assert slow.origin == "rewind/pipe_barrier"
    text = slow.files[sites[0].file]
    assert "CopyIn(i, rows);\n            AscendC::PipeBarrier<PIPE_ALL>();\n            Compute(rows);" in text
    assert all(r.status == "ok" for r in check(slow))


def test_inline_loop_body_gets_barrier_after_enque():
    op = load("level1/add_broadcast")
    m = get("pipe_barrier")
    sites = m.find(op)
    assert [s.label.split(":")[0] for s in sites] == [
        "ProcessSameShape", "ProcessRowBroadcast", "ProcessColSplit", "ProcessColSplit"]
    text = m.apply(op, sites[0]).files[sites[0].file]
    assert "inQueueY.EnQue(yLocal);\n            AscendC::PipeBarrier<PIPE_ALL>();\n" in text


def test_no_site_without_tile_work_or_with_a_barrier_already():
    op = load("level1/gelu")
    op = op.with_file(op.kernel_file, KERNEL_NO_SITE)
    assert get("pipe_barrier").find(op) == []
