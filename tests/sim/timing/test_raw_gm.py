"""Memory reached outside the AscendC APIs (issue 30): a kernel that reads its input through a
raw pointer (memcpy from a GlobalTensor's GetPhyAddr(), or an element loop over a `__gm__`
pointer) instead of DataCopy is timed as the scalar GM accesses it makes on the device, carries
the warning ``raw_gm_access`` (a candidate may not add it), and is never faster than DataCopy; a
kernel that computes through raw pointers to its UB tensors (LocalTensor::GetPhyAddr) instead of
a vector instruction is timed as the scalar UB accesses it makes and is never faster. The results
stay right."""

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
    for name in ("raw GM read", "raw GM write", "raw local read", "raw local write"):
        assert instr(rr, name, "S") == (0, 0.0), name


def test_raw_ub_compute_is_timed_as_scalar_accesses(backend, lab):
    vector = _run(backend, lab, MODE=0)
    scalar = _run(backend, lab, MODE=0, RAW_COMPUTE=1)
    reads, _ = instr(scalar, "raw local read", "S")
    writes, _ = instr(scalar, "raw local write", "S")
    assert reads >= 32768 // 8 and writes >= 32768 // 8, (reads, writes)
    assert "raw_gm_access" not in _kinds(scalar)
    assert scalar.profile["max_core_cycles"] > 2 * vector.profile["max_core_cycles"], (
        scalar.profile["max_core_cycles"], vector.profile["max_core_cycles"])
