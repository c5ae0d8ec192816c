from ascendopt.cxx.parse import parse
from ascendopt.cxx.queues import dma_through_queues, queue_positions

SRC = """#include "kernel_operator.h"
class K {
public:
    __aicore__ inline void CopyIn(uint32_t i) {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[i * len], len);
        inQ.EnQue(x);
    }
    __aicore__ inline void CopyOut(uint32_t i) {
        auto y = outQ.DeQue<float>();
        AscendC::DataCopy(yGm[i * len], y, len);
        outQ.FreeTensor(y);
    }
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQ;
    AscendC::TQue<TPosition::VECOUT, 1> outQ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t len;
};
"""


def test_positions_and_copies_through_queues():
    p = parse("k.cpp", SRC)
    assert queue_positions(p) == {"inQ": "VECIN", "outQ": "VECOUT"}
    assert dma_through_queues(p, "load") and dma_through_queues(p, "store")


def test_a_copy_into_a_buffer_or_a_dequeued_tile_written_again_breaks_it():
    tbuf = SRC.replace("        inQ.EnQue(x);\n", "        inQ.EnQue(x);\n        auto t = buf.Get<float>();\n"
                                                   "        AscendC::DataCopy(t, xGm, len);\n")
    p = parse("k.cpp", tbuf)
    assert not dma_through_queues(p, "load") and dma_through_queues(p, "store")
    late = SRC.replace("        AscendC::DataCopy(yGm[i * len], y, len);\n",
                       "        AscendC::Muls(y, y, 2.0f, len);\n        AscendC::DataCopy(yGm[i * len], y, len);\n")
    p = parse("k.cpp", late)
    assert dma_through_queues(p, "load") and not dma_through_queues(p, "store")
    p = parse("k.cpp", SRC.replace("class K {", "class K { Matmul<A, B, C> mm;"))
    assert not dma_through_queues(p, "load")
    # a CCE copy intrinsic on raw addresses moves data the DataCopy analysis does not see
    raw = SRC.replace("        inQ.EnQue(x);\n", "        inQ.EnQue(x);\n        copy_gm_to_ubuf_align_b32((__ubuf__ float*)t.GetPhyAddr(), "
                                                   "src, 0, 1, 32, 0, 0, 0, 0);\n")
    assert not dma_through_queues(parse("k.cpp", raw), "load")
