"""Build (msOpGen project -> custom_opp package -> harness), run and profile against the fake CANN."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.base import Status
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.operator import Operator
from tests.npu.conftest import NPU_SCALE

DTYPES = {"x": "float", "y": "float"}


def _op_and_case(name="small"):
    op = Operator.load(NPU_SCALE)
    case = next(c for c in load_op_cases(NPU_SCALE) if c.name == name)
    return op, case


def _with_kernel_marker(op, marker):
    return op.with_file(op.kernel_file, op.files[op.kernel_file] + f"\n// {marker}\n")


def test_build_lays_out_the_msopgen_project_and_installs_per_candidate(npu):
    op, _ = _op_and_case()
    b = npu.build(op, DTYPES)
    assert b.ok, b.error
    root = b.artifact.parents[2]
    proto = json.loads((root / "op.json").read_text())[0]
    assert proto["op"] == "NpuScale" and [d["name"] for d in proto["input_desc"]] == ["x"]
    assert proto["attr"] == [{"name": "alpha", "param_type": "optional", "type": "float"}]
    presets = json.loads((root / "project" / "CMakePresets.json").read_text())["configurePresets"][0]
    vendor = presets["cacheVariables"]["vendor_name"]["value"]
    assert vendor.startswith("ao_") and presets["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b"
    assert (root / "project" / "op_kernel" / "npu_scale.cpp").read_text() == op.files["op_kernel/npu_scale.cpp"]
    env = dict(b.run_env)
    assert env["ASCEND_CUSTOM_OPP_PATH"] == str(root / "opp" / "vendors" / vendor)
    assert (Path(env["ASCEND_CUSTOM_OPP_PATH"]) / "op_api" / "include" / "aclnn_npu_scale.h").exists()
    src = (root / "harness" / "harness.cpp").read_text()
    assert '#include "aclnn_npu_scale.h"' in src
    assert 'aclnnNpuScaleGetWorkspaceSize(a0, t0, a1, &wsSize, &executor)' in src
    # the same sources are served from the cache; another candidate gets its own install
    again = npu.build(op, DTYPES)
    assert again.cached and again.artifact == b.artifact and again.key == b.key
    other = npu.build(_with_kernel_marker(op, "edited"), DTYPES)
    assert other.ok and dict(other.run_env)["ASCEND_CUSTOM_OPP_PATH"] != env["ASCEND_CUSTOM_OPP_PATH"]


def test_a_compile_error_is_the_compilers_lines_and_is_cached(npu):
    op, _ = _op_and_case()
    bad = op.with_file(op.kernel_file, op.files[op.kernel_file].replace(
        "k.Process();", "k.Process(); FAKE_COMPILE_ERROR;"))
    b = npu.build(bad, DTYPES)
    assert not b.ok and "error: use of undeclared identifier 'FAKE_COMPILE_ERROR'" in b.error
    assert "npu_scale.cpp:" in b.error
    again = npu.build(bad, DTYPES)
    assert again.cached and again.error == b.error


def test_run_checks_outputs_through_the_harness(npu):
    op, case = _op_and_case()
    b = npu.build(op, DTYPES)
    inputs = make_inputs(case, 1)
    r = npu.run(b, op, case, inputs, timeout_s=30)
    assert r.status == Status.OK, r.message
    np.testing.assert_allclose(r.outputs["y"], inputs["x"] * 3.0, rtol=1e-6)
    assert r.task_duration_us is None  # correctness runs are not timed on the device


def test_device_errors_become_typed_statuses(npu):
    op, case = _op_and_case()
    inputs = make_inputs(case, 1)
    want = {"aicore_exception": (Status.RUNTIME_ERROR, "aicore_exception"),
            "aicore_timeout": (Status.TIMEOUT, "aicore_timeout"),
            "tiling": (Status.TILING_ERROR, "tiling"),
            "crash": (Status.RUNTIME_ERROR, "segfault"),
            "hang": (Status.TIMEOUT, "timeout")}
    for fault, (status, kind) in want.items():
        cand = _with_kernel_marker(op, f"AO_FAKE_FAULT: {fault}")
        r = npu.run(npu.build(cand, DTYPES), cand, case, inputs, timeout_s=2 if fault == "hang" else 30)
        assert (r.status, r.error_kind) == (status, kind), (fault, r.message)
        assert r.message


def test_measure_profiles_warmed_up_repeated_launches_with_msprof(npu):
    op, case = _op_and_case("large")
    b = npu.build(op, DTYPES)
    inputs = make_inputs(case, 2)
    r = npu.measure(b, op, case, inputs, timeout_s=30)
    assert r.status == Status.OK, r.message
    np.testing.assert_allclose(r.outputs["y"], inputs["x"] * 3.0, rtol=1e-6)
    runs = r.profile["runs_us"]
    assert len(runs) == npu.launches and r.task_duration_us == sorted(runs)[len(runs) // 2]
    assert abs(r.task_duration_us - 12.4) < 0.2 and 0 < r.profile["noise_pct"] < 1.0
    assert r.block_dim == 8
    prof = npu.load_profile(r, op.kernel_entry)
    assert prof.basic.task_duration_us == runs[-1] and len(prof.blocks) == 8
    summ = prof.summary(top=3)
    # 8 cores move 12 MB of GM in 10.6 us: 77 % of the HBM bandwidth, more than MTE2's 61 % busy
    assert summ.bound == "HBM" and summ.pipe_ratio_slowest["MTE2"] == pytest.approx(0.61)

