"""vectorize_scalar_loop on expression trees: casts, temporaries, selects, several outputs."""

import shutil

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.cxx.parse import parse, walk
from ascendopt.operator import Operator
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import REWRITES
from ascendopt.transforms.library.vectorize_scalar_loop import translate

from .conftest import load
from ..rewind.conftest import OPS

ABS_CALL = "            AscendC::Abs(yLocal, xLocal, count);\n"
SOFTSIGN_LOOP = (
    "            AscendC::PipeBarrier<PIPE_ALL>();\n"
    "            for (uint32_t j = 0; j < count; ++j) {\n"
    "                float v = xLocal.GetValue(j);\n"
    "                float a = v < 0 ? -v : v;\n"
    "                yLocal.SetValue(j, v / (1.0f + a));\n"
    "            }\n"
    "            AscendC::PipeBarrier<PIPE_ALL>();\n")
GOLDEN = '''def calc_expect_func(x, y):
    """y = x / (1 + |x|), computed in float32."""
    v = _value(x).astype(np.float32)
    return [(v / (np.float32(1) + np.abs(v))).astype(_dtype(y))]
'''
SELECT_LOOP = (
    "            AscendC::PipeBarrier<PIPE_ALL>();\n"
    "            for (uint32_t j = 0; j < count; ++j) {\n"
    "                float v = xLocal.GetValue(j);\n"
    "                if (v > 0) yLocal.SetValue(j, v / (1.0f + v));\n"
    "                else yLocal.SetValue(j, v);\n"
    "            }\n"
    "            AscendC::PipeBarrier<PIPE_ALL>();\n")
SELECT_GOLDEN = '''def calc_expect_func(x, y):
    """y = x > 0 ? x / (1 + x) : x, computed in float32."""
    v = _value(x).astype(np.float32)
    return [np.where(v > 0, v / (np.float32(1) + v), v).astype(_dtype(y))]
'''


def naive_softsign(tmp_path, loop: str = SOFTSIGN_LOOP, golden_func: str = GOLDEN) -> Operator:
    """abs_custom turned into a naive softsign: its Compute a scalar loop between two full
    barriers (a widening cast to float, a conditional, a division by a computed value, the
    float result narrowed into the half output); the golden changed to match."""
    root = tmp_path / "abs_custom"
    shutil.copytree(OPS / "level1/abs_custom", root)
    kernel = root / "op_kernel/abs_custom.cpp"
    src = kernel.read_text()
    assert src.count(ABS_CALL) == 1
    kernel.write_text(src.replace(ABS_CALL, loop))
    golden = root / "tests/st/test_abs_custom.py"
    text = golden.read_text()
    golden.write_text(text[:text.index("def calc_expect_func")] + golden_func)
    return Operator.load(root)


@pytest.mark.parametrize("loop,golden_func,label", [
    (SOFTSIGN_LOOP, GOLDEN, "Cast + Abs + Adds + Div + Cast"),
    (SELECT_LOOP, SELECT_GOLDEN, "Cast + CompareScalar + Adds + Div + Select + Cast"),
])
def test_naive_elementwise_loop_is_vectorized_and_faster(check, tmp_path, loop, golden_func, label):
    slow = naive_softsign(tmp_path, loop, golden_func)
    rw = REWRITES.get("vectorize_scalar_loop")
    sites = rw.find(slow)
    assert [s.label for s in sites] == [f"{label} for count elements in Compute"]
    fast = rw.apply(slow, sites[0])
    text = fast.files[fast.kernel_file]
    assert "SetValue" not in text and "PipeBarrier<PIPE_ALL>" not in text
    cases = sorted((c for c in load_op_cases(slow.root) if c.inputs[0].dtype == "float16"), key=case_elements)
    cases = [cases[1], cases[-2]]  # 31 elements (a tail shorter than a repeat), 37 x 4099 (multi-tile)
    before, after = check(slow, cases), check(fast, cases)
    assert all(r.status == "ok" for r in before), [r.message for r in before]
    assert all(r.status == "ok" for r in after), [r.message for r in after]
    print(text[text.index("void Compute"):text.index("void CopyOut")])
    print([(r.name, r.task_duration_us) for r in before + after])
    # the multi-tile case: the scalar loop dominated its latency
    assert after[1].task_duration_us * 4 < before[1].task_duration_us
