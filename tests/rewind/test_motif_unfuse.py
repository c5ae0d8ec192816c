from ascendopt.transforms import get_motif as get

from .conftest import load


KERNEL_NO_SITES = """#include "kernel_operator.h"
class K { public:
  __aicore__ inline void Run(AscendC::LocalTensor<float>& d, AscendC::LocalTensor<half>& h, int n) {
    AscendC::LocalTensor<float> s = buf.Get<float>();
    AscendC::Axpy(d, s, 2.0f, n);         // s is read again below: no buffer to hold the product
    AscendC::MulAddDst(d, s, s, n);       // s stays live (used below)
    AscendC::MulAddDst(d, h, h, n);       // float dst, half sources: parts would not type-check
    AscendC::Add(d, d, s, n);
  }
  AscendC::TBuf<AscendC::QuePosition::VECCALC> buf; };
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_each_fused_instruction_splits_and_stays_correct(check):
    op = load("axpy_fused")
    m = get("unfuse")
    sites = m.find(op)
    assert [s.label.split(" (")[0] for s in sites] == [
        "AscendC::FusedMulAdd(yLocal, x1Local, x2Local, count) -> Mul + Add",
        "AscendC::MulAddDst(yLocal, x1Local, x2Local, count) -> Mul into x1Local + Add",
        "AscendC::Axpy(yLocal, x2Local, static_cast<T>(BETA), count) -> Muls into x2Local + Add",
    ]
    expected = [
        ["AscendC::Mul(yLocal, x1Local, yLocal, count);", "AscendC::Add(yLocal, yLocal, x2Local, count);"],
        ["AscendC::Mul(x1Local, x1Local, x2Local, count);", "AscendC::Add(yLocal, x1Local, yLocal, count);"],
        ["AscendC::Muls(x2Local, x2Local, static_cast<T>(BETA), count);",
         "AscendC::Add(yLocal, x2Local, yLocal, count);"],
    ]
    for site, parts in zip(sites, expected):
        slow = m.apply(op, site)
        src = slow.files[site.file]
        assert all(part in src for part in parts) and "AscendC::PipeBarrier<PIPE_V>();" in src
        assert slow.origin == "rewind/unfuse"
        results = check(slow)
        assert all(r.status == "ok" for r in results), (site.label, [(r.status, r.message) for r in results])


def test_no_site_without_a_dead_source_or_with_mixed_types():
    op = load("axpy_fused")
    op = op.with_file(op.kernel_file, KERNEL_NO_SITES)
    assert get("unfuse").find(op) == []


def test_no_site_in_kernels_without_fused_instructions():
    assert get("unfuse").find(load("level1/mul_custom")) == []
