"""``ascendopt compat`` on a small tree made from the project's own operators: two that pass,
one whose kernel calls an AscendC API we do not emulate, one that includes a header we do not
provide. Usage errors exit 2 in one line; ``CANNOPS_DIR`` runs it on a real checkout."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.compat import CompatConfig, Target, run_targets

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "ops" / "level1"


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """math/{abs_custom,not_emulated,no_header}, act/mul_custom."""
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(OPS / "abs_custom", root / "math" / "abs_custom")
    shutil.copytree(OPS / "mul_custom", root / "act" / "mul_custom")
    broken = shutil.copytree(OPS / "abs_custom", root / "math" / "not_emulated")
    kernel = broken / "op_kernel" / "abs_custom.cpp"
    text = kernel.read_text()
    assert "inQueueX.EnQue(xLocal);" in text
    kernel.write_text(text.replace("inQueueX.EnQue(xLocal);", "AscendC::NotARealApi(xLocal, count);\n"
                                   "        inQueueX.EnQue(xLocal);", 1))
    hdr = shutil.copytree(OPS / "abs_custom", root / "math" / "no_header")
    host = hdr / "op_host" / "abs_custom.cpp"
    host.write_text(host.read_text().replace('#include "abs_custom_tiling.h"',
                                             '#include "abs_custom_tiling.h"\n#include "tiling/not_a_header.h"', 1))
    return root


def compat(*args: str):
    return CliRunner().invoke(app, ["compat", *args, "--unsafe-no-sandbox"])


def line_of(lines: list[str], op: str) -> str:
    return next(ln for ln in lines if ln.split()[0].endswith("/" + op))


def _line_number(path: Path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


@pytest.mark.slow
def test_lines_statuses_causes_and_totals(tree):
    r = compat(str(tree), "--max-cases", "1", "--workers", "2")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert line_of(lines, "abs_custom").split()[1:3] == ["pass", "1/1"]
    assert line_of(lines, "mul_custom").split()[1:3] == ["pass", "1/1"]
    use = _line_number(tree / "math/not_emulated/op_kernel/abs_custom.cpp", "NotARealApi")
    assert ("compile_error" in line_of(lines, "not_emulated") and "AscendC API `NotARealApi` is not emulated by the "
            f"simulator (op_kernel/abs_custom.cpp:{use})" in line_of(lines, "not_emulated"))
    assert "header `tiling/not_a_header.h` is not provided by the simulator (op_host/abs_custom.cpp:" in \
        line_of(lines, "no_header")
    assert "by category" in r.stdout and "by cause" in r.stdout and "wall time" in r.stdout


@pytest.mark.slow
def test_json_document(tree):
    r = compat(str(tree), "--max-cases", "1", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert (doc["format"], doc["version"], doc["interrupted"]) == ("ascendopt-compat", 2, False)
    assert doc["wall_s"] > 0 and doc["config"]["max_cases"] == 1
    assert doc["categories"] == {"act": {"total": 1, "built": 1, "ran": 1, "passed": 1},
                                 "math": {"total": 3, "built": 1, "ran": 1, "passed": 1},
                                 "all": {"total": 4, "built": 2, "ran": 2, "passed": 2}}
    rows = {r["op"]: r for r in doc["ops"]}
    assert set(rows) == {"abs_custom", "mul_custom", "not_emulated", "no_header"}
    bad = rows["not_emulated"]
    assert (bad["status"], bad["origin"], bad["built"]) == ("compile_error", "simulator", False)
    assert bad["cause"] == "AscendC API `NotARealApi` is not emulated by the simulator"
    assert bad["where"].startswith("op_kernel/abs_custom.cpp:") and bad["seconds"] > 0
    assert {c["cause"]: c["count"] for c in doc["causes"]} == {
        "AscendC API `NotARealApi` is not emulated by the simulator": 1,
        "header `tiling/not_a_header.h` is not provided by the simulator": 1}
    assert doc["origins"] == {"simulator": 2}


@pytest.mark.slow
def test_goldens_by_directory_or_opdef_name(tree, tmp_path):
    op = shutil.copytree(tree / "math" / "abs_custom", tmp_path / "ops" / "my_abs")  # OpDef type AbsCustom
    shutil.copytree(tree / "act" / "mul_custom", tmp_path / "ops" / "mul_custom")
    goldens = tmp_path / "goldens.py"
    goldens.write_text("import numpy as np\n\n"
                       "def abs_custom(x, y):\n    return [np.abs(x['value']) + 1]\n\n"
                       "def mul_custom(x1, x2, y):\n    return [x1['value'] * x2['value']]\n\n"
                       "def _helper():\n    pass\n")
    r = compat(str(tmp_path / "ops"), "--goldens", str(goldens), "--max-cases", "1", "--json")
    assert r.exit_code == 0, r.output
    rows = {r["op"]: r for r in json.loads(r.stdout)["ops"]}
    assert rows["my_abs"]["golden"] == f"{goldens}:abs_custom" and rows["my_abs"]["status"] == "wrong_result"
    assert "max abs err 1" in rows["my_abs"]["detail"] and rows["my_abs"]["origin"] == "run"
    assert rows["mul_custom"]["golden"] == f"{goldens}:mul_custom" and rows["mul_custom"]["status"] == "pass"
    assert op.is_dir()


def _one_line_error(r) -> str:
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output
    return r.stderr.strip()


def test_usage_errors_exit_2_in_one_line(tmp_path, tree):
    assert "not a directory" in _one_line_error(compat(str(tmp_path / "nope")))
    (tmp_path / "empty").mkdir()
    assert "no operators under" in _one_line_error(compat(str(tmp_path / "empty")))
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n")
    assert "--goldens" in _one_line_error(compat(str(tree), "--goldens", str(bad)))
    assert "not found" in _one_line_error(compat(str(tree), "--goldens", str(tmp_path / "missing.py")))
    (tmp_path / "none.py").write_text("import numpy as np\n")
    assert "defines no golden function" in _one_line_error(compat(str(tree), "--goldens", str(tmp_path / "none.py")))
    assert "--only: no operator named zzz" in _one_line_error(compat(str(tree), "--only", "zzz"))
    assert "not both" in _one_line_error(compat(str(tree), "--suite", "own"))
    assert "not both" in _one_line_error(compat())
    assert "--src goes with --suite" in _one_line_error(compat(str(tree), "--src", str(tmp_path)))
    assert "give --src" in _one_line_error(compat("--suite", "cannops"))


def test_an_operator_past_its_timeout_is_killed_with_its_group(tree):
    t0 = time.perf_counter()
    run = run_targets([Target(tree / "math" / "abs_custom", "math")], CompatConfig(timeout_s=0.3))
    assert time.perf_counter() - t0 < 10
    (row,) = run.rows
    assert (row.status, row.kind, row.built) == ("timeout", "operator", False)
    assert "--timeout" in row.cause


def test_interrupt_returns_what_finished(tree):
    targets = [Target(tree / "math" / "no_header", "math"), Target(tree / "math" / "not_emulated", "math")]

    def stop(row):
        raise KeyboardInterrupt

    run = run_targets(targets, CompatConfig(max_cases=1, unsafe_no_sandbox=True), on_row=stop)
    assert run.interrupted and [r.op for r in run.rows] == ["no_header"]


@pytest.mark.skipif(not os.environ.get("CANNOPS_DIR"), reason="CANNOPS_DIR is not set: no cann-ops checkout "
                    "(fetch github:Hayden727/cann-ops and point CANNOPS_DIR at it)")
def test_a_cannops_category():
    r = compat(str(Path(os.environ["CANNOPS_DIR"]) / "src" / "activation"), "--max-cases", "2", "--json",
               "--goldens", str(ROOT / "suites" / "cannops" / "goldens" / "math.py"))
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["categories"]["all"]["total"] == len(doc["ops"]) > 0
    assert all(row["status"] == "pass" or row["cause"] for row in doc["ops"])
    assert not any(row["status"] == "crash" for row in doc["ops"])
