"""Issue 18, item 3: the checks inside an evaluation that a cheating kernel runs into."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.base import Backend
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.evaluate.evaluator import PROFILE_SEED_OFFSET, EvalConfig, Evaluator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


def edit(op: Operator, old: str, new: str) -> Operator:
    text = op.files[KERNEL]
    assert old in text, f"fixture changed: {old!r}"
    return op.with_file(KERNEL, text.replace(old, new, 1), origin="test/cheat")


def test_a_kernel_writing_its_input_is_caught(backend, base, cases):
    op = edit(base, "DataCopyPad(yGm[i * tileLength], yLocal, params);",
              "DataCopyPad(yGm[i * tileLength], yLocal, params);\n        DataCopyPad(xGm[i * tileLength], yLocal, params);")
    [res] = check_operator(backend, op, [cases["many_cores"]], cfg=CheckConfig(timeout_s=30.0))
    assert (res.status, res.error_kind) == ("runtime_error", "input_modified"), res.message
    assert "input x" in res.message


def test_partial_work_on_some_cores_is_caught(backend, base, cases):
    # The last core skips its share: the outputs keep the runtime's garbage fill there.
    op = edit(base, "op.Process();", "if (GetBlockIdx() + 1 < GetBlockNum()) op.Process();")
    results = check_operator(backend, op, list(cases.values()), cfg=CheckConfig(timeout_s=30.0))
    assert any(r.status == "wrong_result" for r in results), [(r.name, r.status) for r in results]


def test_inputs_are_fresh_per_evaluation_and_differ_for_separate_timed_runs(backend, base, cases):
    # repeats ask for separate timed runs: each draws fresh inputs
    ev = Evaluator(backend, EvalConfig(seed=7, profile_repeats=2)).evaluate(base, [cases["small_tail"]])
    assert ev.status == "ok"
    [check] = ev.cases
    assert len(ev.benchmark) == 2
    assert all(t.seed != check.seed and t.seed - check.seed >= PROFILE_SEED_OFFSET for t in ev.benchmark)
    other = Evaluator(backend, EvalConfig(seed=8)).evaluate(base, [cases["small_tail"]])
    assert other.cases[0].seed != check.seed  # and per evaluation config


def test_on_an_exact_backend_the_timed_run_is_the_checked_run(backend, base, cases):
    """The simulator times every run: the benchmark case's correctness run is its timed run, so
    the measured run is exactly the run whose outputs were checked (no second run to behave
    differently in)."""
    calls: list[str] = []
    spy = _WrongOnSecondRun(backend)
    real = spy.run
    spy.run = lambda *a, **kw: (calls.append(a[2].name), real(*a, **kw))[1]
    ev = Evaluator(spy, EvalConfig(jobs=1)).evaluate(base, [cases["small_tail"], cases["many_cores"]])
    assert ev.status == "ok", ev.error
    assert sorted(calls) == ["many_cores", "small_tail"]  # one run per case, none extra
    [timed] = ev.benchmark
    assert timed is ev.cases[1] and timed.task_duration_us and ev.latency_us == timed.task_duration_us


class _WrongOnSecondRun(Backend):
    """Wraps the backend: the second run of a case returns corrupted outputs (a kernel that
    caches or only behaves while it believes it is checked)."""

    def __init__(self, inner):
        self.inner, self.seen, self.name, self.noise_pct = inner, set(), inner.name, 0.0
        self.soc = inner.soc

    def build(self, op, dtypes):
        return self.inner.build(op, dtypes)

    def run(self, build, op, case, inputs, timeout_s=60.0, **kw):
        r = self.inner.run(build, op, case, inputs, timeout_s=timeout_s, **kw)
        if case.name in self.seen and r.outputs:
            r.outputs = {k: np.zeros_like(v) + 1 for k, v in r.outputs.items()}
        self.seen.add(case.name)
        return r


def test_outputs_are_checked_after_the_timed_run_too(backend, base, cases):
    ev = Evaluator(_WrongOnSecondRun(backend), EvalConfig(jobs=1, profile_repeats=2)).evaluate(
        base, [cases["small_tail"]])
    assert ev.status == "wrong_result" and "benchmark run" in ev.error, (ev.status, ev.error)


def test_the_runner_never_sees_expected_outputs(backend, base, cases, monkeypatch):
    """Only the manifest and the inputs are in the runner's scratch directory; the golden and
    its results stay in the driver (and the sandbox binds nothing else)."""
    from ascendopt.backends.sim import backend as sim_backend

    seen: list[list[str]] = []
    real = sim_backend._run_bounded

    def spy(cmd, work, *a, **kw):
        seen.append(sorted(p.name for p in Path(work).iterdir()))
        return real(cmd, work, *a, **kw)

    monkeypatch.setattr(sim_backend, "_run_bounded", spy)
    [res] = check_operator(backend, base, [cases["small_tail"]], cfg=CheckConfig(timeout_s=30.0))
    assert res.status == "ok"
    assert seen and all(set(files) <= {"manifest.txt", "in0.bin"} for files in seen), seen
    golden = FIXTURE_OPS / "scale_copy" / "tests" / "st" / "test_scale_copy.py"
    op = edit(base, "GET_TILING_DATA(tilingData, tiling);",
              f'GET_TILING_DATA(tilingData, tiling);\n    if (fopen("{golden}", "r")) abort();')
    op = op.with_file(KERNEL, "#include <cstdio>\n#include <cstdlib>\n" + op.files[KERNEL], origin="test/cheat")
    [res] = check_operator(backend, op, [cases["small_tail"]], cfg=CheckConfig(timeout_s=30.0))
    assert res.status == "ok", res.message  # the golden is not in the runner's file system
