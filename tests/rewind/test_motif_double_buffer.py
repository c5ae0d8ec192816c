from ascendopt.transforms import get_motif as get

from .conftest import load


KERNEL_ONE_BUFFER = """#include "kernel_operator.h"
constexpr int32_t DEPTH = 1;
class K { public: __aicore__ inline void Init() { pipe.InitBuffer(q, DEPTH, 256); pipe.InitBuffer(b, 256); } 
  AscendC::TPipe pipe; AscendC::TQue<AscendC::QuePosition::VECIN, 1> q; AscendC::TBuf<AscendC::QuePosition::VECCALC> b; };
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_finds_each_double_buffered_queue_and_makes_it_single(check):
    op = load("level1/gelu")
    m = get("double_buffer")
    sites = m.find(op)
    assert [s.label for s in sites] == ["inQueueX: 2 buffers -> 1", "outQueueY: 2 buffers -> 1"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/double_buffer"
    assert "pipe.InitBuffer(inQueueX, 1, tileDataNum * sizeof(TX));" in slow.files[sites[0].file]
    assert all(r.status == "ok" for r in check(slow))


def test_no_site_for_single_buffers_or_tbuf():
    op = load("level1/gelu")
    op = op.with_file(op.kernel_file, KERNEL_ONE_BUFFER)
    assert get("double_buffer").find(op) == []
