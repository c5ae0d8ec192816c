from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import case_elements
from ascendopt.transforms import REWRITES

from .conftest import load
from .forms import kernel

QUEUES = """
    __aicore__ inline void CopyIn(uint32_t i) {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm[i * len], len);
        inQ.EnQue(x);
    }
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::Abs(y, x, len);
        {
            AscendC::TEventID e = pipe.FetchEventID(AscendC::HardEvent::V_MTE3);
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(e);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(e);
        }
        outQ.EnQue(y);
        inQ.FreeTensor(x);
        AscendC::SetFlag<AscendC::HardEvent::V_S>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_S>(EVENT_ID0);
    }
    __aicore__ inline void CopyOut(uint32_t i) {
        AscendC::LocalTensor<float> y = outQ.DeQue<float>();
        AscendC::DataCopy(yGm[i * len], y, len);
        outQ.FreeTensor(y);
    }
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            Compute();
            AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID1);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID1);
            CopyOut(i);
        }
    }
"""


def test_pairs_implied_by_the_queues_through_methods():
    op = kernel(QUEUES)
    rw = REWRITES.get("drop_redundant_sync")
    got = [s.label for s in rw.find(op)]
    # not V_S (scalar), not the MTE3_V pair in Process's loop (drop_event_wait offers that one)
    assert got == ["SetFlag/WaitFlag<MTE2_V>(EVENT_ID0) implied by the VECIN queues in Compute",
                   "SetFlag/WaitFlag<V_MTE3>(e) implied by the VECOUT queues in Compute"]
    assert [s.label for s in REWRITES.get("drop_event_wait").find(op)] == [
        "SetFlag/WaitFlag<MTE3_V>(EVENT_ID1) in Process, loop for (i < tiles)"]
    text = rw.apply(op, rw.find(op)[1]).files[op.kernel_file]
    assert "V_MTE3" not in text and "        AscendC::Abs(y, x, len);\n        outQ.EnQue(y);\n" in text


def test_no_site_when_a_copy_bypasses_the_queues():
    # a load into a buffer of the pipe (TBuf) is ordered by nothing but the flag
    tbuf = QUEUES.replace("""        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
""", """        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::DataCopy(t, xGm, len);
""")
    # a vector instruction writes the dequeued output tile before its copy-out
    late = QUEUES.replace("""        AscendC::DataCopy(yGm[i * len], y, len);""", """        AscendC::Muls(y, y, 2.0f, len);
        AscendC::DataCopy(yGm[i * len], y, len);""")
    rw = REWRITES.get("drop_redundant_sync")
    assert [s.detail for s in rw.find(kernel(tbuf))] == ["V_MTE3"]
    assert [s.detail for s in rw.find(kernel(late))] == ["MTE2_V"]


def slow_gelu():
    """gelu with a V -> MTE2 wait at the end of Compute (the next tile's copy-in waits for this
    tile's vector work) and an MTE2 -> V wait after the DeQue."""
    op = load("level1/gelu")
    src = op.files[op.kernel_file]
    reps = {
        "        AscendC::LocalTensor<TX> xLocal = inQueueX.DeQue<TX>();\n":
            "        AscendC::LocalTensor<TX> xLocal = inQueueX.DeQue<TX>();\n"
            "        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n"
            "        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n",
        "        outQueueY.EnQue<TY>(yLocal);\n":
            "        outQueueY.EnQue<TY>(yLocal);\n"
            "        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID1);\n"
            "        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID1);\n",
    }
    for old, new in reps.items():
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    return op.with_file(op.kernel_file, src)


def test_end_to_end_correct_and_faster(check):
    slow = slow_gelu()
    rw = REWRITES.get("drop_redundant_sync")
    assert [s.detail for s in rw.find(slow)] == ["MTE2_V", "V_MTE2"]
    fast = slow
    while rw.find(fast):
        fast = rw.apply(fast, rw.find(fast)[0])
    orig = load("level1/gelu")
    assert fast.files == orig.files
    cases = sorted(load_op_cases(slow.root), key=case_elements)[-1:]
    before, after = check(slow, cases), check(fast, cases)
    assert [r.status for r in before + after] == ["ok", "ok"]
    assert not any(w["kind"] in ("race", "same_pipe_race") for w in after[0].warnings)
    assert after[0].task_duration_us < before[0].task_duration_us
    print("drop_redundant_sync gelu:", before[0].task_duration_us, "->", after[0].task_duration_us)
