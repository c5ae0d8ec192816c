from ascendopt.transforms import get_motif as get

from .conftest import load


SET_Y = "yGm.SetGlobalBuffer((__gm__ float*)y + start, this->count);\n"
NORMAL = "AscendC::CacheMode::CACHE_MODE_NORMAL"
DISABLE = "AscendC::CacheMode::CACHE_MODE_DISABLE"


def hinted():
    """scale_copy with two L2 hints: one statement in a block, one the body of an if."""
    op = load("scale_copy")
    k = op.files[op.kernel_file]
    assert SET_Y in k
    k = k.replace(SET_Y, SET_Y + f"        xGm.SetL2CacheHint({NORMAL});  // stream x\n"
                                 f"        if (this->count > 0) yGm.SetL2CacheHint({DISABLE});\n")
    return op.with_file(op.kernel_file, k)


def test_removes_each_hint_and_stays_correct(check):
    op = hinted()
    m = get("drop_l2_hint")
    sites = m.find(op)
    assert [s.label for s in sites] == [f"xGm.SetL2CacheHint({NORMAL}) removed",
                                       f"yGm.SetL2CacheHint({DISABLE}) removed"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/drop_l2_hint"
    k = slow.files[op.kernel_file]
    assert "xGm.SetL2CacheHint" not in k and SET_Y + f"        if (this->count > 0) yGm.SetL2CacheHint({DISABLE});\n" in k
    assert all(r.status == "ok" for r in check(slow))
    k2 = m.apply(op, sites[1]).files[op.kernel_file]
    assert "if (this->count > 0) ;\n" in k2 and f"xGm.SetL2CacheHint({NORMAL});" in k2


def test_no_site_without_hints():
    assert get("drop_l2_hint").find(load("scale_copy")) == []
    assert get("drop_l2_hint").find(load("level1/gelu")) == []
