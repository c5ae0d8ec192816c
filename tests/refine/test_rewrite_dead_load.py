from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import REWRITES

from .conftest import load
from .forms import kernel

QUEUED = """
    __aicore__ inline void CopyIn(uint32_t i) {
        AscendC::LocalTensor<int32_t> x = inQ.AllocTensor<int32_t>();
        if (len % 8 == 0) {
            AscendC::DataCopy(x, xiGm[i * len], len);
        } else {
            AscendC::DataCopyExtParams cp{1, static_cast<uint32_t>(len * 4), 0, 0, 0};
            AscendC::DataCopyPadExtParams<int32_t> pp{false, 0, 0, 0};
            AscendC::DataCopyPad(x, xiGm[i * len], cp, pp);
        }
        inQ.EnQue(x);
    }
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<int32_t> x = inQ.DeQue<int32_t>();
        AscendC::LocalTensor<int32_t> y = outQ.AllocTensor<int32_t>();
        AscendC::Sub(y, x, x, len);
        outQ.EnQue(y);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void Process() { for (uint32_t i = 0; i < tiles; i++) { CopyIn(i); Compute(); } }
    AscendC::GlobalTensor<int32_t> xiGm;
"""

OTHERS = """
    __aicore__ inline void Process() {
        AscendC::LocalTensor<int16_t> a = tmpBuf.Get<int16_t>();
        AscendC::LocalTensor<int16_t> z = tmpBuf.Get<int16_t>();
        AscendC::LocalTensor<int16_t> y = outQ.AllocTensor<int16_t>();
        AscendC::DataCopy(a, hGm, len);
        AscendC::Duplicate(z, static_cast<int16_t>(0), len);
        AscendC::Mul(y, z, a, len);
        AscendC::Muls(y, y, static_cast<int16_t>(0), len);
        outQ.EnQue(y);
    }
    AscendC::GlobalTensor<int16_t> hGm;
"""

NOT_APPLY = """
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::Sub(y, x, x, len);
        AscendC::Muls(y, x, 0.0f, len);
        AscendC::LocalTensor<int32_t> i = tmpBuf.Get<int32_t>();
        AscendC::LocalTensor<int32_t> j = tmpBuf.Get<int32_t>();
        AscendC::LocalTensor<int32_t> z = tmpBuf.Get<int32_t>();
        AscendC::Sub(i, i, j, len);
        AscendC::Muls(i, j, 1, len);
        AscendC::Duplicate(z, 0, tail);
        AscendC::Mul(i, z, j, len);
        AscendC::Duplicate(z, 0, len);
        AscendC::Exp(z, z, len);
        AscendC::Mul(i, z, j, len);
    }
"""


def test_zero_from_a_queued_tile_drops_its_loads():
    op = kernel(QUEUED)
    rw = REWRITES.get("dead_load")
    (site,) = rw.find(op)
    assert site.label == ("AscendC::Sub(y, x, x, len) -> Duplicate(y, 0, len); 2 load(s) of x dropped "
                          "with its queue hand-over in Compute")
    text = rw.apply(op, site).files[op.kernel_file]
    assert "DataCopy(x," not in text and "DataCopyPad(x," not in text
    assert ("        AscendC::LocalTensor<int32_t> y = outQ.AllocTensor<int32_t>();\n"
            "        AscendC::Duplicate(y, static_cast<int32_t>(0), len);\n        outQ.EnQue(y);\n    }") in text
    # the queue carries nothing now: its hand-over goes (InitBuffer, if any, stays)
    assert "inQ." not in text


def test_a_tile_read_again_or_dequeued_twice_keeps_its_load():
    twice = QUEUED.replace("    __aicore__ inline void Process()", """    __aicore__ inline void Peek() {
        AscendC::LocalTensor<int32_t> w = inQ.DeQue<int32_t>();
        inQ.FreeTensor(w);
    }
    __aicore__ inline void Process()""")
    reread = QUEUED.replace("AscendC::Sub(y, x, x, len);", "AscendC::Sub(y, x, x, len);\n        AscendC::Add(y, y, x, len);")
    rw = REWRITES.get("dead_load")
    for body in (twice, reread):
        (site,) = rw.find(kernel(body))
        assert site.detail == "0" and "dropped" not in site.label
    # an EnQue inside an expression (not a statement of its own): the loads go, the hand-over stays
    inline = QUEUED.replace("        inQ.EnQue(x);\n", "        if (inQ.EnQue(x)) {}\n")
    (site,) = rw.find(kernel(inline))
    assert site.label.endswith("2 load(s) of x dropped in Compute")


def test_mul_by_a_zero_fill_and_muls_by_zero():
    op = kernel(OTHERS)
    rw = REWRITES.get("dead_load")
    got = [s.label for s in rw.find(op)]
    assert got == ["AscendC::Mul(y, z, a, len) -> Duplicate(y, 0, len); 1 load(s) of a dropped in Process",
                   "AscendC::Muls(y, y, static_cast<int16_t>(0), len) -> Duplicate(y, 0, len) in Process"]
    text = rw.apply(op, rw.find(op)[0]).files[op.kernel_file]
    assert "DataCopy(a, hGm, len)" not in text and "Duplicate(y, static_cast<int16_t>(0), len);" in text


def test_no_site_for_floats_or_inexact_forms():
    # float x - x and x * 0 (NaN for inf/NaN inputs); i - j; Muls by 1; a zero fill shorter than
    # the Mul; zeros overwritten (Exp) before the Mul
    assert REWRITES.get("dead_load").find(kernel(NOT_APPLY)) == []


def slow_abs():
    """abs_custom's int32 path computing -x as (z - z) - x, z a second copy of the tile loaded
    into the scratch buffer (Compute gets the tile index for its offset)."""
    op = load("level1/abs_custom")
    src = op.files[op.kernel_file]
    reps = {
        "            Compute(count);\n": "            Compute(i, count);\n",
        "inline void Compute(uint32_t count)": "inline void Compute(uint32_t progress, uint32_t count)",
        "            AscendC::Muls(negX, xLocal, static_cast<int32_t>(-1), count);\n": (
            "            AscendC::DataCopyExtParams zp{1, static_cast<uint32_t>(count * sizeof(int32_t)), 0, 0, 0};\n"
            "            AscendC::DataCopyPadExtParams<int32_t> zpad{false, 0, 0, 0};\n"
            "            AscendC::DataCopyPad(negX, xGm[static_cast<uint64_t>(progress) * tileDataNum], zp, zpad);\n"
            "            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n"
            "            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n"
            "            AscendC::Sub(negX, negX, negX, count);\n"
            "            AscendC::PipeBarrier<PIPE_V>();\n"
            "            AscendC::Sub(negX, negX, xLocal, count);\n"
            "            AscendC::PipeBarrier<PIPE_V>();\n"),
    }
    for old, new in reps.items():
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    return op.with_file(op.kernel_file, src)


def test_end_to_end_on_int32_drops_the_second_load_and_is_faster(check):
    slow = slow_abs()
    rw = REWRITES.get("dead_load")
    (site,) = rw.find(slow)
    assert "1 load(s) of negX dropped" in site.label
    fast = rw.apply(slow, site)
    text = fast.files[fast.kernel_file]
    assert "AscendC::Duplicate(negX, static_cast<int32_t>(0), count);" in text and "DataCopyPad(negX" not in text
    cases = [c for c in sorted(load_op_cases(slow.root), key=case_elements) if c.inputs[0].dtype == "int32"][-1:]
    before, after = check(slow, cases), check(fast, cases)
    assert [r.status for r in before + after] == ["ok", "ok"]
    assert after[0].task_duration_us < before[0].task_duration_us
    print("dead_load abs int32:", before[0].task_duration_us, "->", after[0].task_duration_us)
