"""The evaluator on the npu backend (fake CANN): only the protocol, the same statuses and summaries."""

from __future__ import annotations

import ast
from pathlib import Path

from ascendopt.backends.base import Backend, RunResult, Status
from ascendopt.cases import load_op_cases
from ascendopt.evaluate import evaluator as evaluator_module
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator
from tests.npu.conftest import NPU_SCALE


def test_an_evaluation_on_the_device_is_checked_timed_and_profiled(npu, tmp_path):
    op = Operator.load(NPU_SCALE)
    cases = load_op_cases(NPU_SCALE)
    ev = Evaluator(npu, EvalConfig(profile_repeats=2, profile_dir=str(tmp_path / "kept"))).evaluate(op, cases)
    assert ev.status == "ok", ev.error
    assert ev.backend == "npu" and ev.soc == "Ascend910B2"
    assert [c.status for c in ev.cases] == ["ok", "ok"] and len(ev.benchmark) == 2
    summary = ev.profile["large"]
    assert len(summary["runs_us"]) == 2 and abs(ev.latency_us - 12.4) < 0.2
    assert summary["block_dim"] == 8 and summary["bound"] == "HBM"  # 77 % of the HBM bandwidth, MTE2 61 %
    assert (Path(summary["profile_dir"]) / "OpBasicInfo.csv").exists()


def test_device_failures_are_the_simulators_statuses(npu):
    op = Operator.load(NPU_SCALE)
    cases = load_op_cases(NPU_SCALE)
    ev = Evaluator(npu).evaluate(op.with_file(op.kernel_file, op.files[op.kernel_file]
                                              + "\n// AO_FAKE_FAULT: aicore_exception\n"), cases)
    assert (ev.status, ev.error_kind) == ("runtime_error", "aicore_exception")
    bad = op.with_file(op.kernel_file, op.files[op.kernel_file].replace("k.Process();", "FAKE_COMPILE_ERROR;"))
    ev = Evaluator(npu).evaluate(bad, cases)
    assert (ev.status, ev.error_kind) == ("compile_error", "compiler") and "FAKE_COMPILE_ERROR" in ev.error
    wrong = op.with_file(op.kernel_file, op.files[op.kernel_file].replace("y = x * alpha", "y = x * alpha + 1"))
    assert Evaluator(npu).evaluate(wrong, cases).status == "wrong_result"


def test_the_evaluator_asks_a_backend_only_through_the_protocol():
    """No attribute probing of the backend (getattr / hasattr / isinstance beyond the
    constructor's check that it is a Backend)."""
    tree = ast.parse(Path(evaluator_module.__file__).read_text())
    probes = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("getattr", "hasattr") and "backend" in ast.unparse(n)]
    assert probes == []
    checks = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "isinstance" and "backend" in ast.unparse(n)]
    assert checks == ["isinstance(backend, Backend)"]


class _Measured(Backend):
    """Runs are untimed, measurements timed: the evaluator must time only through measure()."""

    name = "measured"

    def __init__(self):
        self.calls = []

    def build(self, op, dtypes):
        from ascendopt.backends.base import BuildResult

        return BuildResult(Path("/bin/true"), key="k")

    def run(self, build, op, case, inputs, timeout_s=60.0):
        self.calls.append("run")
        return RunResult(Status.OK, outputs={s.key: inputs["x"] * 3.0 for s in case.outputs})

    def measure(self, build, op, case, inputs, timeout_s=60.0):
        self.calls.append("measure")
        r = self.run(build, op, case, inputs, timeout_s)
        r.task_duration_us = 7.0
        return r


def test_benchmark_runs_go_through_measure():
    b = _Measured()
    assert b.concurrent_timing  # a default backend without noise may overlap
    op = Operator.load(NPU_SCALE)
    ev = Evaluator(b, EvalConfig(profile_repeats=3)).evaluate(op, load_op_cases(NPU_SCALE))
    assert ev.status == "ok" and ev.latency_us == 7.0
    assert b.calls.count("measure") == 3 and b.calls.count("run") == 2 + 3
    assert ev.profile["large"]["runs_us"] == [7.0, 7.0, 7.0]
