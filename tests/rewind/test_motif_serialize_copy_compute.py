from ascendopt.transforms import get_motif as get

from .conftest import load


# Single-buffered queues: AllocTensor already makes the copy-in wait for the consumer, so there
# is no copy/compute overlap to remove. A tile loop already waiting on V->MTE2 is no site either.
KERNEL_NO_SITE = """#include "kernel_operator.h"
using namespace AscendC;
class K {
public:
    __aicore__ inline void Init() { pipe.InitBuffer(q, 1, 256); }
    __aicore__ inline void Process(uint32_t n)
    {
        for (uint32_t i = 0; i < n; ++i) {
            LocalTensor<float> x = q.AllocTensor<float>();
            DataCopy(x, xGm[i * 64], 64);
            q.EnQue(x);
            x = q.DeQue<float>();
            Adds(x, x, 1.0f, 64);
            q.FreeTensor(x);
        }
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    GlobalTensor<float> xGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_copy_in_waits_for_vector_with_the_class_pipe(check):
    op = load("level1/gelu")
    m = get("serialize_copy_compute")
    sites = m.find(op)
    assert [s.label for s in sites] == ["Process:61 for (i < tileNum): copy-in waits V (V->MTE2 event) each tile"]
    slow = m.apply(op, sites[0])
    text = slow.files[sites[0].file]
    assert ("for (uint32_t i = 0; i < tileNum; ++i) {\n"
            "            { AscendC::TEventID _aoEvVM = pipe.FetchEventID(AscendC::HardEvent::V_MTE2);\n"
            "              AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(_aoEvVM);\n"
            "              AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(_aoEvVM); }\n") in text
    assert "PIPE_ALL" not in text
    assert all(r.status == "ok" for r in check(slow))


def test_pipe_member_name_comes_from_the_class_fields():
    op = load("level1/gelu")
    src = op.files[op.kernel_file].replace("pipe.", "myPipe.").replace("TPipe pipe;", "TPipe myPipe;")
    op = op.with_file(op.kernel_file, src)
    m = get("serialize_copy_compute")
    (site,) = m.find(op)
    assert "myPipe.FetchEventID(AscendC::HardEvent::V_MTE2)" in m.apply(op, site).files[site.file]


def test_no_site_for_single_buffer_or_existing_wait():
    op = load("level1/gelu")
    op1 = op.with_file(op.kernel_file, KERNEL_NO_SITE)
    assert get("serialize_copy_compute").find(op1) == []
    double = KERNEL_NO_SITE.replace("InitBuffer(q, 1, 256)", "InitBuffer(q, 2, 256)")
    assert len(get("serialize_copy_compute").find(op.with_file(op.kernel_file, double))) == 1
    waited = double.replace("LocalTensor<float> x = q.AllocTensor<float>();",
                            "WaitFlag<HardEvent::V_MTE2>(0);\n            LocalTensor<float> x = q.AllocTensor<float>();")
    assert get("serialize_copy_compute").find(op.with_file(op.kernel_file, waited)) == []
