from ascendopt.transforms import REWRITES, get_motif as get

from .conftest import load  # noqa: F401


def test_undoes_a_serialising_wait_in_the_tile_loop(check):
    op = load("level1/gelu")
    m = get("serialize_copy_compute")
    slow = m.apply(op, m.find(op)[0])
    r = REWRITES.get("drop_event_wait")
    sites = r.find(slow)
    assert len(sites) == 1 and "V_MTE2" in sites[0].label
    fast = r.apply(slow, sites[0])
    assert fast.files == op.files  # the block it inserted goes away whole
    assert r.find(op) == []


def test_a_wait_outside_loops_is_not_a_site_and_a_wait_with_other_statements_keeps_them(check):
    op = load("level1/add_broadcast")  # one MTE2_V set/wait before its loop
    r = REWRITES.get("drop_event_wait")
    assert r.find(op) == []
    text = op.files[op.kernel_file]
    anchor = "            uint32_t count = (i + 1 == tileNum) ? tailDataNum : tileDataNum;\n"
    g = load("level1/gelu")
    gk = g.files[g.kernel_file]
    assert anchor in gk
    slow = g.with_file(g.kernel_file, gk.replace(anchor, anchor + (
        "            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);\n"
        "            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);\n"), 1))
    (site,) = r.find(slow)
    fast = r.apply(slow, site)
    assert fast.files == g.files
    assert all(x.status == "ok" for x in check(slow))
    assert "SetFlag" in text  # add_broadcast untouched
