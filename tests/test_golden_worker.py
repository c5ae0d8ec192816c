"""Goldens run in a child process with a timeout; they do not pile up in sys.modules."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ascendopt.cases import CaseError, load_op_cases, make_inputs
from ascendopt.cases.golden_worker import GoldenWorker

from .conftest import FIXTURE_OPS


@pytest.fixture(scope="module")
def case():
    return load_op_cases(FIXTURE_OPS / "scale_copy")[0]


def golden_file(tmp_path, body: str) -> str:
    f = tmp_path / "g.py"
    f.write_text("import numpy as np\nimport os, time\n\ndef calc(x, y, **kw):\n" + body)
    return f"{f}:calc"


def test_a_good_golden_runs_and_is_imported_once(tmp_path, case):
    spec = golden_file(tmp_path, "    return [np.asarray(x['value']) * 0]\n")
    w = GoldenWorker(timeout_s=30)
    inputs = make_inputs(case, 1)
    w.run(spec, case, inputs)  # starts the child (multiprocessing's own modules load here)
    before = len(sys.modules)
    for _ in range(3):
        (out,) = w.run(spec, case, inputs)
        assert out.shape == tuple(case.outputs[0].shape) and not np.any(out)
    assert len(sys.modules) == before  # the driver imports nothing
    w.close()


def test_a_hanging_golden_is_killed(tmp_path, case):
    spec = golden_file(tmp_path, "    time.sleep(60)\n")
    w = GoldenWorker(timeout_s=1)
    with pytest.raises(CaseError, match="did not finish within 1 s"):
        w.run(spec, case, make_inputs(case, 1))
    good = golden_file(tmp_path, "    return [np.asarray(x['value'])]\n")
    assert len(w.run(good, case, make_inputs(case, 1))) == 1  # a fresh child takes the next call
    w.close()


def test_a_golden_that_kills_its_process_or_raises(tmp_path, case):
    w = GoldenWorker(timeout_s=30)
    with pytest.raises(CaseError, match="killed its process"):
        w.run(golden_file(tmp_path, "    os._exit(3)\n"), case, make_inputs(case, 1))
    with pytest.raises(CaseError, match="ZeroDivisionError"):
        w.run(golden_file(tmp_path, "    return 1 / 0\n"), case, make_inputs(case, 1))
    w.close()
