from ascendopt.transforms import get_motif as get

from .conftest import load


def test_reserve_knob_subtracted_from_ub_leaves_a_quarter_for_tiles(check):
    op = load("level1/gelu")
    m = get("shrink_tile")
    sites = m.find(op)
    # minBytesPerCore has role 'tile' but reaches SetBlockDim (a per-core minimum): no site
    assert [s.label for s in sites] == ["ubReserveBytes: UB reserve 0 -> 147456 (tiles get a quarter)"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/shrink_tile"
    assert "uint32_t ubReserveBytes = 147456;" in slow.files[sites[0].file]
    assert all(r.status == "ok" for r in check(slow))


def test_tile_knob_quartered_and_namespace_reserve_raised(check):
    op = load("level2/softmax_last")
    m = get("shrink_tile")
    by_id = {s.detail.split("=")[0]: s for s in m.find(op)}
    assert set(by_id) == {"groupRows", "UB_RESERVED_BYTES"}
    assert by_id["groupRows"].label == "groupRows: tile 64 -> 16"
    slow = m.apply(op, by_id["groupRows"])
    assert "uint32_t groupRows = 16;" in slow.files["op_host/softmax_last.cpp"]
    assert all(r.status == "ok" for r in check(slow))
    reserve = m.apply(op, by_id["UB_RESERVED_BYTES"])
    assert "constexpr uint32_t UB_RESERVED_BYTES = 147712;" in reserve.files["op_host/softmax_last.cpp"]


def test_plain_tile_length_and_no_site_without_knobs(check):
    m = get("shrink_tile")
    op = load("scale_copy")
    sites = m.find(op)
    assert [s.label for s in sites] == ["tileLength: tile 1024 -> 256"]
    assert all(r.status == "ok" for r in check(m.apply(op, sites[0])))
    assert m.find(load("block_sum")) == []
