from ascendopt.rewind.motifs import get

from .conftest import load

SET_Y = "yGm.SetGlobalBuffer((__gm__ float*)y + start, this->count);\n"


def hinted():
    """scale_copy with two L2 hints: one statement in a block, one the body of an if.
    (The emulation's SetL2CacheHint takes any mode; AscendC::CacheMode is not emulated.)"""
    op = load("scale_copy")
    k = op.files[op.kernel_file]
    assert SET_Y in k
    k = k.replace(SET_Y, SET_Y + "        xGm.SetL2CacheHint(1);  // stream x\n"
                                 "        if (this->count > 0) yGm.SetL2CacheHint(0);\n")
    return op.with_file(op.kernel_file, k)


def test_removes_each_hint_and_stays_correct(check):
    op = hinted()
    m = get("drop_l2_hint")
    sites = m.find(op)
    assert [s.label for s in sites] == ["xGm.SetL2CacheHint(1) removed", "yGm.SetL2CacheHint(0) removed"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/drop_l2_hint"
    k = slow.files[op.kernel_file]
    assert "xGm.SetL2CacheHint" not in k and SET_Y + "        if (this->count > 0) yGm.SetL2CacheHint(0);\n" in k
    assert all(r.status == "ok" for r in check(slow))
    k2 = m.apply(op, sites[1]).files[op.kernel_file]
    assert "if (this->count > 0) ;\n" in k2 and "xGm.SetL2CacheHint(1);" in k2


def test_no_site_without_hints():
    assert get("drop_l2_hint").find(load("scale_copy")) == []
    assert get("drop_l2_hint").find(load("level1/gelu")) == []
