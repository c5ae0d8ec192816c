"""L2 cache hints (SetL2CacheHint) both ways, on our fixtures (docs/timing-model.md, "L2").

Reading a read-once stream around L2 keeps the output's dirty lines resident instead of
evicting them (fewer write-backs to HBM): faster. Reading a tensor that is re-read and fits L2
around it sends every pass to HBM: slower.
"""

from __future__ import annotations

import dataclasses

import pytest

from ascendopt.backends.sim.backend import SimBackend

from .common import load, run, variant


def _scaled(backend, l2_bytes):
    be = SimBackend(builder=backend.builder)
    be.soc = dataclasses.replace(backend.soc, params={**backend.soc.params, "l2_bytes": l2_bytes})
    return be


@pytest.fixture(scope="module")
def add_lab():
    return load("l2_hint")


def test_bypass_helps_a_read_once_stream_when_l2_is_polluted(backend, add_lab):
    op, cases = add_lab
    data = 3 * 1536 * 4096 * 2                      # x, y, z of the a2_48 case (half)
    be = _scaled(backend, data / 2)                 # the inputs alone overflow L2
    k = "op_kernel/l2_hint.cpp"
    normal = run(be, op, cases["a2_48"]).profile
    around = run(be, variant(op, k, HINT_X=1, HINT_Y=1), cases["a2_48"]).profile
    hbm = lambda p: sum(c["hbm_bytes"] for c in p["cores"])
    assert around["max_core_cycles"] < 0.9 * normal["max_core_cycles"], (around["max_core_cycles"],
                                                                          normal["max_core_cycles"])
    assert hbm(around) < hbm(normal)                # the output's write-backs are what is saved
    # Writing the output around L2 too gives the saving back (every byte of z goes to HBM).
    all_around = run(be, variant(op, k, HINT_X=1, HINT_Y=1, HINT_Z=1), cases["a2_48"]).profile
    assert all_around["max_core_cycles"] > around["max_core_cycles"]


def test_bypass_hurts_a_reread_tensor_that_fits_l2(backend):
    op, cases = load("timing_copy")
    data = 3072 * 4096 * 2
    be = _scaled(backend, data * 192 / 302)         # each quarter fits L2, the whole matrix does not
    k = "op_kernel/timing_copy.cpp"
    split = dict(TM=64, TN=1024, BUFNUM=1, REPEAT=4, SPLIT=4)
    cached = run(be, variant(op, k, **split), cases["a2_48"]).profile["max_core_cycles"]
    around = run(be, variant(op, k, **split, HINT_X=1), cases["a2_48"]).profile["max_core_cycles"]
    assert around > 1.5 * cached, (around, cached)
