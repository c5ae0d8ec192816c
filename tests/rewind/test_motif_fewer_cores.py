import pytest

from ascendopt.transforms import MotifError, get_motif as get

from .conftest import load


def test_core_cap_to_one_and_to_half(check):
    op = load("level1/gelu")
    m = get("fewer_cores")
    sites = m.find(op)
    assert [s.label for s in sites] == ["maxCoreNum: core cap 48 -> 1 (one core)",
                                        "maxCoreNum: core cap 48 -> 24 (half the cores)"]
    slow = m.apply(op, sites[0])
    assert slow.parent == op.digest and slow.origin == "rewind/fewer_cores"
    assert "uint32_t maxCoreNum = (coreNum < 1U ? coreNum : 1U);" in slow.files["op_host/gelu.cpp"]
    assert all(r.status == "ok" for r in check(slow))
    half = m.apply(op, sites[1])
    assert "(coreNum < 24U ? coreNum : 24U)" in half.files["op_host/gelu.cpp"]


def test_literal_block_dim_to_one():
    op = load("scale_copy")
    host = op.files["op_host/scale_copy.cpp"].replace("context->SetBlockDim(useCores);", "context->SetBlockDim(8);")
    op = op.with_file("op_host/scale_copy.cpp", host)
    m = get("fewer_cores")
    sites = m.find(op)
    assert [s.label for s in sites] == ["blockDim: block dim 8 -> 1 (one core)",
                                        "blockDim: block dim 8 -> 4 (half the cores)"]
    assert "context->SetBlockDim(1);" in m.apply(op, sites[0]).files["op_host/scale_copy.cpp"]


def test_no_site_when_core_count_is_shape_derived():
    m = get("fewer_cores")
    assert m.find(load("level2/softmax_last")) == []
    assert m.find(load("block_sum")) == []
    site = m.find(load("level1/gelu"))[0]
    with pytest.raises(MotifError):
        m.apply(load("level2/softmax_last"), site)
