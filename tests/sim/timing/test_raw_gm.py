"""GM reached outside the AscendC APIs (issue 30): a kernel that reads its input through a raw
pointer (memcpy from a GlobalTensor's GetPhyAddr(), or an element loop over a `__gm__` pointer)
instead of DataCopy is timed as the scalar GM accesses it makes on the device, carries the
warning ``raw_gm_access`` (a candidate may not add it), and is never faster than DataCopy. The
results stay right."""

from __future__ import annotations

import numpy as np
import pytest

from ascendopt.cases import make_inputs

from .common import instr, load, run, variant

K = "op_kernel/timing_lab.cpp"


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


def _run(backend, lab, **macros):
    op, cases = lab
    case = cases["t1core"]
    rr = run(backend, variant(op, K, **macros), case)
    x = make_inputs(case, 0)["x"]
    np.testing.assert_array_equal(rr.outputs["y"], (2 * x[: rr.outputs["y"].size]).astype(np.float32))
    return rr


def _kinds(rr) -> set[str]:
    return {w["kind"] for w in rr.warnings or ()}


@pytest.mark.parametrize("raw", [1, 2], ids=["memcpy", "element_loop"])
def test_raw_gm_reads_are_timed_and_warned(backend, lab, raw):
    timed = _run(backend, lab, MODE=0)
    untimed = _run(backend, lab, MODE=0, RAW_LOAD=raw)
    assert "raw_gm_access" not in _kinds(timed)
    assert "raw_gm_access" in _kinds(untimed), untimed.warnings
    n, _ = instr(untimed, "raw GM read", "S")
    assert n >= 32768 // 16, n  # at least one access per 64 bytes of the 128 KiB read
    assert untimed.profile["max_core_cycles"] > timed.profile["max_core_cycles"], (
        untimed.profile["max_core_cycles"], timed.profile["max_core_cycles"])


def test_a_kernel_without_raw_access_is_timed_as_before(backend, lab):
    """The guard costs nothing in the model: the API path has no raw access to record."""
    rr = _run(backend, lab, MODE=0)
    assert instr(rr, "raw GM read", "S") == (0, 0.0)
    assert instr(rr, "raw GM write", "S") == (0, 0.0)
