from ascendopt.transforms import get_motif as get

from .conftest import load


def test_places_second_source_buffer_bank_congruent_with_first(check):
    op = load("level1/mul_custom")
    m = get("bank_conflict")
    sites = m.find(op)
    assert [s.label for s in sites] == [
        "Mul(.., x1Local, x2Local): inQueueX2 placed bank-congruent with inQueueX1 (mod 512 B)"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/bank_conflict"
    k = slow.files[op.kernel_file]
    # InitBuffer(X1), InitBuffer(X2) adjacent: a closed-form pad, no probes
    assert "AscendC::TBuf<AscendC::TPosition::VECCALC> bankPad_;" in k and "bankProbe" not in k
    assert ("if (((512U - (static_cast<uint32_t>(BUFFER_NUM) * ((static_cast<uint32_t>(tileDataNum * sizeof(T)) "
            "+ 31U) / 32U * 32U)) % 512U) % 512U) != 0) {") in k
    assert k.index("pipe.InitBuffer(inQueueX1,") < k.index("pipe.InitBuffer(bankPad_,") < k.index("pipe.InitBuffer(inQueueX2,")
    assert all(r.status == "ok" for r in check(slow))


def test_per_class_buffers_and_no_site_without_two_buffered_sources():
    m = get("bank_conflict")
    sites = m.find(load("level1/add_broadcast"))
    assert [s.label for s in sites] == [
        "Add(.., xLocal, yRep): yRepBuf placed bank-congruent with inQueueX (mod 512 B)"]
    for name in ("level1/gelu", "scale_copy", "level2/softmax_last", "level1/muls_custom"):
        assert m.find(load(name)) == [], name


def test_probes_when_other_statements_lie_between_the_allocations(check):
    op = load("level1/mul_custom")
    k = op.files[op.kernel_file]
    x2 = "        pipe.InitBuffer(inQueueX2,"
    assert x2 in k
    op = op.with_file(op.kernel_file, k.replace(x2, "        uint32_t unusedGap = 0;\n" + x2))
    m = get("bank_conflict")
    slow = m.apply(op, m.find(op)[0])
    k = slow.files[op.kernel_file]
    assert "AscendC::TBuf<AscendC::TPosition::VECCALC> bankProbeA_, bankProbeB_, bankPad_;" in k
    probe_a, init_x1 = k.index("pipe.InitBuffer(bankProbeA_, 32);"), k.index("pipe.InitBuffer(inQueueX1,")
    probe_b, pad, init_x2 = (k.index("pipe.InitBuffer(bankProbeB_, 32);"), k.index("pipe.InitBuffer(bankPad_,"),
                             k.index("pipe.InitBuffer(inQueueX2,"))
    assert probe_a < init_x1 < probe_b < pad < init_x2
    # the probes cost UB: checked on small cases (a UB-filling tile would overflow; rewind rejects that)
    from ascendopt.cases import load_op_cases
    from ascendopt.evaluate.evaluator import case_elements
    small = sorted(load_op_cases(op.root), key=case_elements)[:2]
    assert all(r.status == "ok" for r in check(slow, small))
