from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import get_motif as get

from .conftest import load


KERNEL_NO_SITES = """#include "kernel_operator.h"
class K { public: __aicore__ inline void Run(AscendC::LocalTensor<float>& y, AscendC::LocalTensor<float>& x) {
    AscendC::Exp(y, x, 64);                                          // transcendental: no exact scalar form
    AscendC::Add(y, x, x, 64, 1, AscendC::BinaryRepeatParams());     // mask form, not the count form
    acc.Add(3, 4, 5, 6);                                             // a method that happens to be called Add
  } struct { void Add(int, int, int, int) {} } acc; };
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def small_cases(op, limit=3000):
    """Every case of the operator up to ``limit`` elements (the scalar loop is slow to simulate)."""
    return [c for c in load_op_cases(op.root) if case_elements(c) <= limit]


def test_binary_call_becomes_synchronised_scalar_loop(check):
    op = load("level1/mul_custom")
    m = get("scalar_loop")
    sites = m.find(op)
    assert [s.label.split(" -> ")[0] for s in sites] == ["AscendC::Mul(yLocal, x1Local, x2Local, count)"]
    slow = m.apply(op, sites[0])
    src = slow.files[sites[0].file]
    assert "AscendC::Mul(" not in src
    assert "yLocal.SetValue(aoI, aoA * aoB);" in src
    assert src.index("HardEvent::V_S") < src.index("for (int32_t aoI") < src.index("HardEvent::S_V")
    assert slow.origin == "rewind/scalar_loop"
    results = check(slow, small_cases(op))
    assert results and all(r.status == "ok" for r in results), [(r.status, r.message) for r in results]


def test_unary_and_scalar_forms_stay_correct(check):
    abs_op = load("level1/abs_custom")
    m = get("scalar_loop")
    labels = [s.label.split(" -> ")[0] for s in m.find(abs_op)]
    assert labels == ["AscendC::Muls(negX, xLocal, static_cast<int32_t>(-1), count)",
                      "AscendC::Max(yLocal, xLocal, negX, count)", "AscendC::Abs(yLocal, xLocal, count)"]
    for site in m.find(abs_op)[1:]:  # int32 Max and float/half Abs (a NaN-free, signed-zero-exact form)
        results = check(m.apply(abs_op, site), small_cases(abs_op))
        assert all(r.status == "ok" for r in results), (site.label, [(r.status, r.message) for r in results])
    leaky = load("level1/leaky_relu_custom")
    (site,) = m.find(leaky)
    results = check(m.apply(leaky, site), small_cases(leaky))
    assert all(r.status == "ok" for r in results), [(r.status, r.message) for r in results]


def test_no_site_for_transcendental_mask_form_or_methods():
    op = load("level1/mul_custom")
    op = op.with_file(op.kernel_file, KERNEL_NO_SITES)
    assert get("scalar_loop").find(op) == []
