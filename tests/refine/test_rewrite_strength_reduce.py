from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import REWRITES

from .conftest import load
from .forms import kernel

APPLY = """
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        AscendC::Duplicate(ones, static_cast<float>(1.0), len);
        AscendC::Div(y, ones, x, len);
        AscendC::Muls(x, x, 1.0f, len);
        AscendC::Adds(y, y, (float)0, len);
        AscendC::Muls(x, x, -1.0f, len);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(y, y, x, len);
        outQ.EnQue(y);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void Hoisted() {
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        AscendC::Duplicate(ones, 1.0f, len);
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::Div(x, ones, x, len);
            inQ.FreeTensor(x);
        }
    }
    __aicore__ inline void Process() { Compute(); Hoisted(); }
"""

NOT_APPLY = """
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::Duplicate(t, 2.0f, len);
        AscendC::Div(y, t, x, len);
        AscendC::Duplicate(t, 1.0f, len);
        AscendC::Exp(t, x, len);
        AscendC::Div(y, t, x, len);
        AscendC::Duplicate(t, 1.0f, tail);
        AscendC::Div(y, t, x, len);
        AscendC::Muls(y, x, 1.0f, len);
        AscendC::Adds(x, x, 1.0f, len);
        AscendC::Muls(t, x, -1.0f, len);
        AscendC::Add(y, y, t, len);
        AscendC::Exp(y, t, len);
        AscendC::Muls(t, x, -2.0f, len);
        AscendC::Add(y, y, t, len);
        outQ.EnQue(y);
    }
    __aicore__ inline void Carried() {
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        AscendC::Duplicate(ones, 1.0f, len);
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::Div(x, ones, x, len);
            AscendC::Exp(ones, x, len);
            inQ.FreeTensor(x);
        }
    }
    __aicore__ inline void Process() { Compute(); Carried(); }
"""


def test_sites_in_real_forms():
    op = kernel(APPLY)
    rw = REWRITES.get("strength_reduce")
    got = [s.label for s in rw.find(op)]
    assert got == [
        "AscendC::Div(y, ones, x, len) -> Reciprocal(y, x, len), fill dropped in Compute",
        "AscendC::Muls(x, x, 1.0f, len) dropped (identity) in Compute",
        "AscendC::Adds(y, y, (float)0, len) dropped (identity) in Compute",
        "AscendC::Muls(x, x, -1.0f, len); AscendC::Add(y, y, x, len) -> Sub(y, y, x, len) in Compute",
        # ones filled once before the loop, which never writes them; read nowhere else: the fill goes
        "AscendC::Div(x, ones, x, len) -> Reciprocal(x, x, len), fill dropped in Hoisted, loop for (i < tiles)",
    ]
    sub = rw.apply(op, rw.find(op)[3]).files[op.kernel_file]
    # the barrier ordered the Adds' write of y before the Add: it stays, before the Sub
    assert ("        AscendC::Adds(y, y, (float)0, len);\n        AscendC::PipeBarrier<PIPE_V>();\n"
            "        AscendC::Sub(y, y, x, len);\n        outQ.EnQue(y);\n") in sub
    rec = rw.apply(op, rw.find(op)[0]).files[op.kernel_file]
    assert "Duplicate(ones, static_cast<float>(1.0), len)" not in rec and "AscendC::Reciprocal(y, x, len);" in rec


def test_no_site_where_the_rewrite_would_change_the_result():
    # not 1 (2.0f); the ones overwritten by Exp before the Div; a fill shorter than the Div;
    # Muls by 1 not in place (a copy); Adds of 1; the negation read again (Exp(y, t)); a
    # multiply by -2; a loop that overwrites the ones after the first iteration
    assert REWRITES.get("strength_reduce").find(kernel(NOT_APPLY)) == []


def slow_exp():
    """exp_custom computing exp(x) as 1 / exp(-x): a negation, Exp, ones and a Div."""
    op = load("level1/exp_custom")
    src = op.files[op.kernel_file]
    old = "            AscendC::Exp(yLocal, xLocal, count);\n"
    assert src.count(old) == 1
    return op.with_file(op.kernel_file, src.replace(old, (
        "            AscendC::Muls(xLocal, xLocal, static_cast<TX>(-1), count);\n"
        "            AscendC::PipeBarrier<PIPE_V>();\n"
        "            AscendC::Exp(xLocal, xLocal, count);\n"
        "            AscendC::Duplicate(yLocal, static_cast<TY>(1), count);\n"
        "            AscendC::PipeBarrier<PIPE_V>();\n"
        "            AscendC::Div(yLocal, yLocal, xLocal, count);\n")))


def test_reciprocal_end_to_end_is_correct_and_faster(check):
    slow = slow_exp()
    rw = REWRITES.get("strength_reduce")
    (site,) = rw.find(slow)
    assert site.detail == "reciprocal"
    fast = rw.apply(slow, site)
    text = fast.files[fast.kernel_file]
    assert "AscendC::Reciprocal(yLocal, xLocal, count);" in text and "Duplicate(yLocal" not in text
    cases = [c for c in sorted(load_op_cases(slow.root), key=case_elements)
             if c.inputs[0].dtype in ("float16", "float32")][-1:]
    before, after = check(slow, cases), check(fast, cases)
    assert [r.status for r in before + after] == ["ok", "ok"]
    assert after[0].task_duration_us < before[0].task_duration_us
    print("strength_reduce exp_custom:", before[0].task_duration_us, "->", after[0].task_duration_us)
