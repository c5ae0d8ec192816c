"""HBM/L2 bandwidth is shared by the cores that transfer, not by every launched core.

On the device a core whose share of the work is empty returns at once and moves no data, so it
takes no HBM bandwidth. The timer counts the launched cores that move GM data by DMA and, when
that is fewer than it shared the bandwidth by, times the recorded stream again with that count
(docs/timing-model.md, "DMA"). Variants of the timing_lab fixture: ``MAX_CORES`` cores get the
tiles, ``LAUNCH_CORES`` blocks are launched (the others return at once).
"""

from __future__ import annotations

import pytest

from ascendopt.cases import make_inputs
from ascendopt.evaluate.check import case_dtypes

from .common import load, run, variant

H = "op_host/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def profile(backend, op, case, **macros) -> dict:
    return run(backend, variant(op, H, **macros), case).profile


def mte2_cycles_per_byte(core: dict) -> float:
    p = core["pipes"]["MTE2"]
    return p["busy_cycles"] / p["bytes"]


def test_idle_launched_cores_take_no_bandwidth(backend, lab):
    """All tiles on block 0: 1 block or 48 blocks (47 return at once) take the same time."""
    op, cases = lab
    alone = profile(backend, op, cases["t48x2"], MAX_CORES=1)
    idle47 = profile(backend, op, cases["t48x2"], MAX_CORES=1, LAUNCH_CORES=48)
    assert len(alone["cores"]) == 1 and len(idle47["cores"]) == 48
    assert idle47["max_core_cycles"] == pytest.approx(alone["max_core_cycles"], rel=1e-9)
    assert idle47["task_cycles"] == pytest.approx(alone["task_cycles"], rel=1e-9)
    assert idle47["hbm_bytes_total"] == alone["hbm_bytes_total"]
    assert idle47["l2_hit_bytes"] == alone["l2_hit_bytes"]
    assert idle47["hbm_share_cores"] == 1


def test_some_idle_cores_share_among_the_working(backend, lab):
    """8 working blocks among 48 launched: as 8 launched, and each slower than a lone core."""
    op, cases = lab
    eight = profile(backend, op, cases["t48x8"], MAX_CORES=8)
    idle40 = profile(backend, op, cases["t48x8"], MAX_CORES=8, LAUNCH_CORES=48)
    assert idle40["max_core_cycles"] == pytest.approx(eight["max_core_cycles"], rel=1e-9)
    assert idle40["hbm_share_cores"] == eight["hbm_share_cores"] == 8


def test_contention_holds_when_all_transfer(backend, lab):
    """48 working blocks still share HBM: block 0 reads slower per byte than a lone core."""
    op, cases = lab
    alone = profile(backend, op, cases["t48x2"], MAX_CORES=1)
    all48 = profile(backend, op, cases["t48x2"], MAX_CORES=48)
    assert all48["hbm_share_cores"] == 48 and alone["hbm_share_cores"] == 1
    # 810 B/cycle over 48 cores is 16.9 B/cycle, below a lone core's 32 (socs/Ascend910B2.toml)
    assert mte2_cycles_per_byte(all48["cores"][0]) > 1.5 * mte2_cycles_per_byte(alone["cores"][0])


def test_batch_retimes_each_case(backend, lab):
    """In a batch (one runner, one timer, several cases) each case is retimed on its own."""
    op, cases = lab
    v = variant(op, H, MAX_CORES=1, LAUNCH_CORES=48)
    items = [(cases[n], make_inputs(cases[n], 0)) for n in ("t1core", "t48x2")]
    build = backend.build(v, case_dtypes(items[0][0]))
    many = backend.run_batch(build, v, items)
    assert len(many) == 2
    for (case, inputs), rr in zip(items, many):
        one = backend.run(build, v, case, inputs)
        assert rr.profile["hbm_share_cores"] == one.profile["hbm_share_cores"] == 1
        assert rr.profile["max_core_cycles"] == one.profile["max_core_cycles"]
        assert rr.profile["cores"] == one.profile["cores"]


def test_idle_cores_meeting_at_a_syncall(backend, lab):
    """The second replay combines the cores' SyncAll times as the first: idle blocks that wait at
    the kernel's final SyncAll for block 0 leave it with block 0, as a lone block would."""
    op, cases = lab
    synced = variant(op, "op_kernel/timing_lab.cpp", END_SYNCS=1)
    alone = profile(backend, synced, cases["t48x2"], MAX_CORES=1)
    idle47 = profile(backend, synced, cases["t48x2"], MAX_CORES=1, LAUNCH_CORES=48)
    assert idle47["max_core_cycles"] == pytest.approx(alone["max_core_cycles"], rel=1e-9)
    assert idle47["hbm_share_cores"] == 1
