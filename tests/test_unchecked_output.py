"""A golden returns None for an output the operator does not compute (its documentation lists it
as not supported): run_golden keeps the None and check_case compares only the other outputs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ascendopt.backends.base import BuildResult, RunResult, Status
from ascendopt.cases import Case, TensorSpec, run_golden
from ascendopt.evaluate.check import check_case

GOLDEN = "def golden(x, y, aux):\n    return [x['value'] * 2, None]\n"


def _case(tmp_path: Path) -> Case:
    (tmp_path / "g.py").write_text(GOLDEN)
    x = TensorSpec("x", "float32", (4,), "ND")
    outs = [TensorSpec("y", "float32", (4,), "ND"), TensorSpec("aux", "float32", (2,), "ND")]
    return Case("c", "Op", [x], outs, {}, {}, f"{tmp_path / 'g.py'}:golden", "mem")


def test_run_golden_keeps_none(tmp_path):
    x = np.arange(4, dtype=np.float32)
    y, aux = run_golden(lambda x, y, aux: [x["value"] * 2, None], _case(tmp_path), {"x": x})
    assert aux is None
    np.testing.assert_array_equal(y, x * 2)


def _check(case: Case, right: bool):
    def run(build, op, case, inputs, **kw):
        y = inputs["x"] * 2 if right else np.zeros(4, np.float32)
        aux = np.full(2, 3.4e38, np.float32)  # whatever was in the buffer
        return RunResult(Status.OK, outputs={"y": y, "aux": aux})
    return check_case(SimpleNamespace(run=run), None, case, BuildResult(artifact=Path("runner")), 0)


def test_only_the_other_outputs_are_checked(tmp_path):
    case = _case(tmp_path)
    assert _check(case, True).status == "ok"
    res = _check(case, False)
    assert res.status == "wrong_result" and res.message.startswith("y:")
