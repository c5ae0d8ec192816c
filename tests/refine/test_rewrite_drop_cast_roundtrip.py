from ascendopt.transforms import REWRITES, get_motif as get

from .conftest import load  # noqa: F401


def test_undoes_the_extra_cast_round_trip():
    op = load("level1/gelu")
    m = get("extra_cast")
    slow = m.apply(op, m.find(op)[0])
    r = REWRITES.get("drop_cast_roundtrip")
    (site,) = r.find(slow)
    assert r.apply(slow, site).files == op.files
    assert r.find(op) == []  # a single widening cast is not a round trip


def test_plain_adjacent_round_trip_is_removed(check):
    g = load("level1/gelu")
    k = g.files[g.kernel_file]
    anchor = "            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);\n"
    assert anchor in k
    extra = ("            AscendC::Cast(xLocal, xf, AscendC::RoundMode::CAST_RINT, count);\n"
             "            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);\n")
    slow = g.with_file(g.kernel_file, k.replace(anchor, anchor + extra, 1))
    r = REWRITES.get("drop_cast_roundtrip")
    sites = r.find(slow)
    assert len(sites) == 2  # x<-y, y<-x, x<-y: either adjacent pair is a round trip
    assert r.apply(slow, sites[0]).files == g.files
    fast = r.apply(slow, sites[1])
    assert all(x.status == "ok" for x in check(fast))
