from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import get_motif as get

from .conftest import load


KERNEL = """#include "kernel_operator.h"
class K { public:
  __aicore__ inline void Run(AscendC::LocalTensor<half>& h, AscendC::LocalTensor<int32_t>& i) {
    AscendC::LocalTensor<float> f = buf.Get<float>();
    AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, 64);      // widening: a site
    AscendC::Cast(h, f, AscendC::RoundMode::CAST_RINT, 64);      // narrowing: not a site
    AscendC::Cast(i, f, AscendC::RoundMode::CAST_NONE, 64);      // float -> int: not a site
    AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, 8, 1, AscendC::UnaryRepeatParams());  // mask form
  }
  AscendC::TBuf<AscendC::QuePosition::VECCALC> buf; };
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def narrow_cases(op, limit=3000):
    """The operator's half/bf16 cases (where the cast widens) up to ``limit`` elements."""
    return [c for c in load_op_cases(op.root)
            if case_elements(c) <= limit and c.inputs[0].dtype in ("float16", "bfloat16")]


def test_sites_by_declared_types():
    op = load("level1/mul_custom")
    op = op.with_file(op.kernel_file, KERNEL)
    (site,) = get("extra_cast").find(op)
    assert site.label.startswith("AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, 64): round trip f through h")


def test_round_trip_after_widening_cast_is_exact(check):
    m = get("extra_cast")
    op = load("level1/muls_custom")
    (site,) = m.find(op)
    slow = m.apply(op, site)
    src = slow.files[site.file]
    assert "AscendC::Cast(xLocal, xf, AscendC::RoundMode::CAST_RINT, count);" in src
    assert src.index("AscendC::Cast(xLocal, xf,") < src.index("inQueueX.FreeTensor(xLocal);")
    cases = narrow_cases(op)
    assert cases
    results = check(slow, cases)
    assert all(r.status == "ok" for r in results), [(r.status, r.message) for r in results]


def test_template_widening_cast_in_cast_custom(check):
    m = get("extra_cast")
    op = load("level1/cast_custom")
    (site,) = m.find(op)  # the CAST_NONE branch (sizeof(TY) > sizeof(TX)); other casts narrow or go to int
    results = check(m.apply(op, site), narrow_cases(op))
    assert results and all(r.status == "ok" for r in results), [(r.status, r.message) for r in results]
