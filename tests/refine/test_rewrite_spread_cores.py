"""spread_cores: split an independent work loop over the cores (tests/refine)."""

import pytest

from ascendopt.transforms import REWRITES

from .conftest import load

MULS = "level1/muls_custom"
HOST = "op_host/muls_custom.cpp"


def single_core_muls():
    """muls_custom made single-core the way real operators are: the kernel ignores its block
    index (one share starting at 0) and the host forces the launch to 1 (the tiling for 1 core)."""
    op = load(MULS)
    k = op.files[op.kernel_file]
    start = k.index("        uint32_t blockIdx = AscendC::GetBlockIdx();")
    end = k.index("        value = td.value;")
    k = k[:start] + ("        uint64_t offset = 0;\n        tileDataNum = td.tileDataNum;\n"
                     "        coreDataNum = td.lastCoreDataNum;\n        tileNum = td.lastTileNum;\n"
                     "        tailDataNum = td.lastTailDataNum;\n") + k[end:]
    h = op.files[HOST]
    assert "uint32_t maxCoreNum = coreNum;" in h and "context->SetBlockDim(static_cast<uint32_t>(usedCores));" in h
    h = h.replace("uint32_t maxCoreNum = coreNum;", "uint32_t maxCoreNum = 1;")
    h = h.replace("context->SetBlockDim(static_cast<uint32_t>(usedCores));", "context->SetBlockDim(1);")
    return op.with_file(op.kernel_file, k).with_file(HOST, h)


def test_single_core_muls_is_split_and_faster(check):
    slow = single_core_muls()
    rw = REWRITES.get("spread_cores")
    sites = rw.find(slow)
    assert [s.label for s in sites] == [
        "split loop over i in Process over GetBlockNum() cores (host SetBlockDim(1) -> core count)"]
    fast = rw.apply(slow, sites[0])
    assert "SetBlockDim(ascendcPlatform.GetCoreNum())" in fast.files[HOST]
    assert "AscendC::GetBlockIdx()" in fast.files[fast.kernel_file]
    assert rw.find(fast) == []  # now it reads its block index
    before, after = check(slow), check(fast)
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[-1].block_dim == 48 and before[-1].block_dim == 1
    assert after[-1].task_duration_us < before[-1].task_duration_us / 4


def test_no_site_in_the_multi_core_original():
    assert REWRITES.get("spread_cores").find(load(MULS)) == []
