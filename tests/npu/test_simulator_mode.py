"""``--backend npu --npu-mode simulator``: the CANN simulator on the fake toolchain (no device)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ascendopt.backends.npu.backend import NpuBackend
from ascendopt.backends.npu.detect import CannUnavailable, detect
from ascendopt.backends.npu.run import run_case
from ascendopt.cases import load_op_cases
from ascendopt.cli import app
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator
from ascendopt.profile import Profile
from tests.npu.conftest import FAKE, NPU_SCALE, fake_environ

SIM_LIB = FAKE / "ascend-toolkit" / "latest" / "tools" / "simulator" / "Ascend910B2" / "lib"
# recorded/msprof_simulator/core_trace.json: one core spans 0 .. 5.765 us, MTE2 busy 4 x 1.2 us;
# the fake starts each of the 8 blocks 0.01 us after the previous one.
RECORDED_SPAN_US = 5.765 + 7 * 0.01
MTE2_RATIO = 4.8 / 5.765


def _invoke(args, env):
    return CliRunner().invoke(app, args, env=env, catch_exceptions=False)


def _sim_op(duration_us: float | None = None) -> Operator:
    op = Operator.load(NPU_SCALE)
    if duration_us is None:
        return op
    return op.with_file(op.kernel_file, op.files[op.kernel_file] + f"\n// AO_FAKE_SIM_DURATION_US: {duration_us}\n")


def test_detect_finds_the_simulator_of_the_soc(cann):
    assert {k: Path(v).resolve() for k, v in cann.simulators.items()} == {"Ascend910B2": SIM_LIB}
    rows = {what: (found, ok) for what, found, ok in cann.report()}
    assert rows["CANN simulator"][1] and "Ascend910B2" in rows["CANN simulator"][0]
    assert cann.missing("simulator") == []


def test_auto_picks_the_simulator_only_without_a_device(tmp_path, cann):
    from ascendopt.backends.npu.project import NpuBuilder

    bare = detect(fake_environ(tmp_path / "bare", with_driver=False), probe_versions=False)
    b = NpuBackend(bare, mode="auto", soc="Ascend910B2", builder=NpuBuilder(bare, "Ascend910B2", tmp_path / "c"),
                   profile_dir=tmp_path / "p")
    assert b.mode == "simulator" and b.soc.name == "Ascend910B2"
    builder = NpuBuilder(cann, cann.soc, tmp_path / "c")
    d = NpuBackend(cann, mode="auto", builder=builder, profile_dir=tmp_path / "q")
    s = NpuBackend(cann, mode="simulator", builder=builder, profile_dir=tmp_path / "r")
    assert d.mode == "device" and s.mode == "simulator" and s.soc.name == d.soc.name
    assert s.identity() != d.identity()  # simulated timings are kept apart from the device's records


def test_simulator_mode_without_the_simulator_names_it(tmp_path):
    info = detect(fake_environ(tmp_path / "h", with_driver=False, with_simulator=False), probe_versions=False)
    assert info.home is not None and info.simulators == {}
    with pytest.raises(CannUnavailable) as e:
        NpuBackend(info, mode="simulator", soc="Ascend910B2")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("--backend npu --npu-mode simulator needs the CANN simulator for "
                                              "Ascend910B2 (no libruntime_camodel.so in ")
    assert "device" not in msg  # the simulator replaces the device


def test_correctness_runs_use_the_simulator_runtime(npu_sim):
    """No driver on this machine: the harness runs only because its libruntime.so is the
    simulator's (the same run with the toolkit's own environment cannot reach a device)."""
    op = _sim_op()
    case = next(c for c in load_op_cases(NPU_SCALE) if c.name == "small")
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    build = npu_sim.build(op, {"x": "float32", "y": "float32"})
    assert build.ok, build.error
    r = npu_sim.run(build, op, case, {"x": x})
    assert r.status.value == "ok", r.message
    np.testing.assert_allclose(r.outputs["y"], 3 * x)
    bare = run_case(build, npu_sim._signature(op), case, {"x": x}, 30.0, npu_sim.cann.env)
    assert (bare.status.value, bare.error_kind) == ("runtime_error", "acl_error_507899")


def test_an_evaluation_on_the_simulator_is_timed_from_its_trace(npu_sim, tmp_path):
    assert npu_sim.mode == "simulator" and npu_sim.noise_pct == 0 and npu_sim.concurrent_timing
    ev = Evaluator(npu_sim, EvalConfig(profile_repeats=2, profile_dir=str(tmp_path / "kept"))).evaluate(
        _sim_op(9.5), load_op_cases(NPU_SCALE))
    assert ev.status == "ok", ev.error
    assert ev.backend == "npu" and ev.soc == "Ascend910B2"
    summary = ev.profile["large"]
    assert summary["runs_us"] == pytest.approx([9.5, 9.5]) and ev.latency_us == pytest.approx(9.5)  # noise 0
    assert summary["block_dim"] == 8 and summary["bound"] == "MTE2"
    assert summary["pipe_ratio_slowest"]["MTE2"] == pytest.approx(MTE2_RATIO, rel=1e-3)
    assert (Path(summary["profile_dir"]) / "OpBasicInfo.csv").exists()  # written in msprof's format


def test_the_simulator_measurement_reads_msprof_simulator_output(npu_sim):
    op = _sim_op()
    case = next(c for c in load_op_cases(NPU_SCALE) if c.name == "large")
    x = np.ones((64, 4000), dtype=np.float32)
    build = npu_sim.build(op, {"x": "float32", "y": "float32"})
    r = npu_sim.measure(build, op, case, {"x": x})
    assert r.status.value == "ok", r.message
    assert r.task_duration_us == pytest.approx(RECORDED_SPAN_US)
    assert r.profile["noise_pct"] == 0.0 and r.profile["runs_us"] == [pytest.approx(RECORDED_SPAN_US)]
    assert r.profile["timing"] == "simulator:Ascend910B2"
    kept = Path(r.profile["msprof_dir"])
    assert (kept / "simulator" / "trace.json").exists() and (kept / "simulator" / "visualize_data.bin").exists()
    prof = npu_sim.load_profile(r, op.kernel_entry)
    assert prof.basic.op_type == "vector" and prof.basic.block_dim == 8
    assert [(b.block_id, b.sub_block) for b in prof.blocks] == [(i, "vector0") for i in range(8)]
    assert set(prof.blocks[0].pipes) == {"S", "MTE2", "V", "MTE3"}  # FLOWCTRL is not a pipe of ours
    assert prof.blocks[0].ratio("MTE2") == pytest.approx(MTE2_RATIO, rel=1e-3)
    assert len(prof.flows) == 4 and {(f.src_pipe, f.dst_pipe) for f in prof.flows} == {("MTE2", "V")}
    assert prof.summary().top_instructions[0]["name"] == "MOV_OUT_TO_UB"


def test_simulator_trace_of_named_cores_and_string_pipes(tmp_path):
    """msprof op simulator's trace: pid names the core (two AIVs of one block stay two rows),
    tid names the pipe, flows end with 't'; the launch's span is the task duration."""
    ev = [{"name": "MOV_OUT_TO_UB", "ph": "X", "pid": "core0.veccore0", "tid": "MTE2", "ts": 1.0, "dur": 2.0},
          {"name": "VADD", "ph": "X", "pid": "core0.veccore1", "tid": "VECTOR", "ts": 1.5, "dur": 1.0},
          {"name": "MMAD", "ph": "X", "pid": "core0.cubecore0", "tid": "CUBE", "ts": 1.2, "dur": 0.5},
          {"name": "JUMP", "ph": "X", "pid": "core0.veccore1", "tid": "FLOWCTRL", "ts": 3.0, "dur": 1.0},
          {"cat": "MTE2ToVECTOR", "id": 1, "name": "flow", "ph": "s", "pid": "core0.veccore0", "tid": "MTE2", "ts": 3.0},
          {"cat": "MTE2ToVECTOR", "id": 1, "name": "flow", "ph": "t", "pid": "core0.veccore0", "tid": "VECTOR",
           "ts": 3.1}]
    (tmp_path / "OPPROF_1_X" / "simulator").mkdir(parents=True)
    (tmp_path / "OPPROF_1_X" / "simulator" / "trace.json").write_text(json.dumps(ev))
    p = Profile.load(tmp_path)
    rows = {(b.block_id, b.sub_block): b for b in p.blocks}
    assert set(rows) == {(0, "vector0"), (0, "vector1"), (0, "cube0")}
    assert rows[(0, "cube0")].core_type == "aic" and set(rows[(0, "cube0")].pipes) == {"M"}
    assert set(rows[(0, "vector1")].pipes) == {"V"} and rows[(0, "vector1")].time_us == pytest.approx(2.5)
    assert p.basic.task_duration_us == pytest.approx(3.0) and p.basic.op_type == "mix"
    assert [(f.src_pipe, f.dst_pipe) for f in p.flows] == [("MTE2", "V")]


# ----------------------------------------------------------------------------------------- CLI
def test_profile_command_on_the_simulator(tmp_path):
    env = fake_environ(tmp_path / "home", with_driver=False)
    env["ASCENDOPT_CACHE"] = str(tmp_path / "cache")
    out = tmp_path / "prof"
    r = _invoke(["profile", str(NPU_SCALE), "--backend", "npu", "--npu-mode", "simulator", "--unsafe-no-sandbox",
                 "--out", str(out), "--json"], env)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["check"]["status"] == "ok" and doc["summary"]["block_dim"] == 8
    assert doc["summary"]["task_duration_us"] == pytest.approx(RECORDED_SPAN_US)
    assert (out / "OpBasicInfo.csv").exists()


def test_simulator_mode_without_the_simulator_fails_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = fake_environ(tmp_path / "home", with_driver=False, with_simulator=False)
    r = _invoke(["run", str(NPU_SCALE), "--backend", "npu", "--npu-mode", "simulator", "--unsafe-no-sandbox"], env)
    assert r.exit_code == 2, r.output
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "needs the CANN simulator for Ascend910B2" in errors[0], r.output


def test_npu_mode_is_refused_without_backend_npu(tmp_path):
    r = _invoke(["run", str(NPU_SCALE), "--npu-mode", "simulator", "--unsafe-no-sandbox"],
                fake_environ(tmp_path / "home"))
    assert r.exit_code == 2 and "--npu-mode is for --backend npu" in r.output


def test_doctor_reports_the_simulator(tmp_path):
    doc = json.loads(_invoke(["doctor", "--json"], fake_environ(tmp_path / "a")).output)
    rows = {row["what"]: row for row in doc["rows"]}
    assert doc["simulator_ready"] and list(doc["simulators"]) == ["Ascend910B2"]
    assert rows["CANN simulator"]["ok"] and "(Ascend910B2)" in rows["CANN simulator"]["found"]
    r = _invoke(["doctor", "--json"], fake_environ(tmp_path / "b", with_simulator=False))
    doc = json.loads(r.output)
    rows = {row["what"]: row for row in doc["rows"]}
    assert r.exit_code == 0 and doc["npu_ready"] and not doc["simulator_ready"]  # the device still works
    assert not rows["CANN simulator"]["ok"] and "not found for Ascend910B2" in rows["CANN simulator"]["found"]
    r = _invoke(["doctor"], fake_environ(tmp_path / "c", with_driver=False))
    assert r.exit_code == 1 and "--npu-mode simulator: ready (Ascend910B2 on the CANN simulator)" in r.output
