from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import get_motif as get

from .conftest import load


KERNEL = """#include "kernel_operator.h"
class K { public:
  __aicore__ inline void Run(AscendC::LocalTensor<float>& a, AscendC::LocalTensor<float>& b) {
    AscendC::DataCopyExtParams p{1, 12, 0, 0, 0};
    AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
    AscendC::DataCopyPad(a, b, p, pad);       // UB -> UB: not a site
    AscendC::SetAtomicAdd<float>();
    AscendC::DataCopyPad(g, a, p);            // UB -> GM under an atomic mode: not a site
    AscendC::SetAtomicNone();
  }
  AscendC::GlobalTensor<float> g; };
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def small_cases(op, limit=3000):
    return [c for c in load_op_cases(op.root) if case_elements(c) <= limit]


def test_sites_in_both_directions_and_tail_load_stays_correct(check):
    m = get("tail_per_element")
    op = load("level1/mul_custom")
    sites = m.find(op)
    assert [s.detail for s in sites] == ["GM->UB", "UB->GM"]
    assert sites[0].label.startswith("AscendC::DataCopyPad(dst, src, copyParams, padParams): GM->UB")
    slow = m.apply(op, sites[0])
    src = slow.files[sites[0].file]
    assert "AscendC::DataCopyPad(dst, src" not in src
    assert "dst.SetValue(aoB * aoPitch + aoLeft + aoI, src.GetValue(aoB * aoGmRow + aoI));" in src
    assert src.index("HardEvent::MTE2_S") < src.index("src.GetValue") < src.index("HardEvent::S_MTE2")
    results = check(slow, small_cases(op))
    assert results and all(r.status == "ok" for r in results), [(r.status, r.message) for r in results]


def test_multi_row_copies_with_strides_stay_correct(check):
    """rms_norm moves rows x cols tiles: blockCount rows, UB rows padded to 32 bytes."""
    m = get("tail_per_element")
    op = load("level2/rms_norm")
    sites = m.find(op)
    assert [s.detail for s in sites] == ["GM->UB", "GM->UB", "UB->GM"]
    cases = small_cases(op, 5000)
    for site in sites[1:]:
        results = check(m.apply(op, site), cases)
        assert results and all(r.status == "ok" for r in results), (site.label, [(r.status, r.message) for r in results])


def test_no_site_for_local_copies_or_atomic_stores():
    op = load("level1/mul_custom")
    op = op.with_file(op.kernel_file, KERNEL)
    assert get("tail_per_element").find(op) == []
