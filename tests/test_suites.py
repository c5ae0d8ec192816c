"""Suite manifests (format 1): resolution against --src, goldens and case files of our own,
benchmark case names, errors; ``run --suite``. The shipped cann-ops suite is checked against a
checkout only when CANNOPS_DIR is set."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ascendopt.suites import SUITES_DIR, SuiteError, load_suite, resolve_suite

from .conftest import FIXTURE_OPS

MANIFEST = """format = 1
name = "mine"
source = "tests/fixtures/ops"

[[op]]
dir = "scale_copy"
level = 1
golden = "goldens.py:triple"
cases = ["cases/big.json"]
own_cases = false
benchmark = ["big"]

[[op]]
dir = "block_sum"
level = 2
"""

CASE = [{"case_name": "big", "op": "ScaleCopy",
         "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [48, 1024],
                         "data_distribute": ["uniform"], "value_range": [[-1.0, 1.0]]}],
         "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [48, 1024]}]}]


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    d = tmp_path / "suite"
    (d / "cases").mkdir(parents=True)
    (d / "suite.toml").write_text(MANIFEST)
    (d / "goldens.py").write_text("def triple(x, y):\n    return [x['value'] * 3.0]\n")
    (d / "cases" / "big.json").write_text(json.dumps(CASE))
    return d


def test_manifest_resolves_against_src(suite_dir):
    s = load_suite(str(suite_dir / "suite.toml"), FIXTURE_OPS)
    assert s.name == "mine" and [o.name for o in s.ops] == ["scale_copy", "block_sum"]
    sc, bs = s.ops
    assert (sc.level, bs.level) == (1, 2) and sc.benchmark == ("big",) and not sc.own_cases
    assert sc.golden == f"{(suite_dir / 'goldens.py').resolve()}:triple"
    cases = sc.load_cases()
    assert [c.name for c in cases] == ["big"] and cases[0].golden.endswith(":triple")
    assert len(bs.load_cases()) >= 1  # own case files, their golden
    assert load_suite(str(suite_dir), FIXTURE_OPS).dirs == s.dirs == resolve_suite(str(suite_dir), src=FIXTURE_OPS)


@pytest.mark.parametrize("edit, src, words", [
    (None, None, "give --src"),
    (None, "missing", "not a directory"),
    (("format = 1", "format = 2"), "ok", "format 2 is not supported"),
    (('dir = "block_sum"', 'dir = "nope"'), "ok", "missing, e.g."),
    (('golden = "goldens.py:triple"', 'golden = "goldens.py"'), "ok", "FILE.py:FUNC"),
    (("level = 2", "level = 7"), "ok", "level must be"),
    (("level = 2", "levle = 2"), "ok", "unknown key"),
    (("level = 2", 'level = 2\nsoc = "Ascend999"'), "ok", "soc must be one of"),
])
def test_manifest_errors_are_named(suite_dir, tmp_path, edit, src, words):
    if edit:
        p = suite_dir / "suite.toml"
        p.write_text(p.read_text().replace(*edit))
    where = {None: None, "missing": tmp_path / "none", "ok": FIXTURE_OPS}[src]
    with pytest.raises(SuiteError, match=words):
        load_suite(str(suite_dir / "suite.toml"), where)


def test_own_directories_and_unknown_names():
    own = load_suite("own")
    assert own.ops and all(1 <= o.level <= 3 for o in own.ops)
    assert load_suite(str(FIXTURE_OPS)).dirs == resolve_suite(str(FIXTURE_OPS))
    assert load_suite("scale_copy", FIXTURE_OPS).dirs == [FIXTURE_OPS / "scale_copy"]  # a dir under --src
    with pytest.raises(SuiteError, match="shipped suite"):
        load_suite("no-such-suite")


def test_shipped_cannops_manifest_is_complete():
    import tomllib

    data = tomllib.loads((SUITES_DIR / "cannops" / "suite.toml").read_text())
    assert data["format"] == 1 and data["op"]
    for entry in data["op"]:
        file, func = entry["golden"].split(":")
        assert f"def {func}(" in (SUITES_DIR / "cannops" / file).read_text(), entry
        names = {k["case_name"] for c in entry.get("cases", [])
                 for k in json.loads((SUITES_DIR / "cannops" / c).read_text())}
        assert set(entry.get("benchmark", [])) <= names, entry


@pytest.mark.skipif(not os.environ.get("CANNOPS_DIR"), reason="needs a cann-ops checkout: set CANNOPS_DIR "
                    "(its src/ is the suite's --src)")
def test_shipped_cannops_suite_resolves_against_a_checkout():
    s = load_suite("cannops", Path(os.environ["CANNOPS_DIR"]) / "src")
    assert all(o.load_cases() for o in s.ops)


def test_run_cli_takes_a_suite(suite_dir, sim_cache, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    root = tmp_path / "cache"
    root.mkdir()
    (root / "sim").symlink_to(sim_cache, target_is_directory=True)
    monkeypatch.setenv("ASCENDOPT_CACHE", str(root))
    runner = CliRunner()
    res = runner.invoke(app, ["run", "scale_copy", "--suite", str(suite_dir / "suite.toml"), "--src",
                              str(FIXTURE_OPS), "--json"])
    assert res.exit_code == 1, res.output  # the suite's golden triples: y = 2x is a wrong result
    doc = json.loads(res.stdout)
    assert doc["suite"] == str(suite_dir / "suite.toml") and [o["cases"][0]["name"] for o in doc["ops"]] == ["big"]
    assert doc["ops"][0]["cases"][0]["status"] == "wrong_result"
    res = runner.invoke(app, ["run", "--suite", str(suite_dir / "suite.toml")])
    assert res.exit_code == 2 and "give --src" in res.output


def test_an_operator_runs_on_the_soc_its_suite_names(suite_dir, sim_cache, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app
    from ascendopt.compat.targets import suite_targets

    p = suite_dir / "suite.toml"
    p.write_text(p.read_text().replace("level = 2", 'level = 2\nsoc = "Ascend910B4"'))
    s = load_suite(str(p), FIXTURE_OPS)
    assert [o.soc for o in s.ops] == [None, "Ascend910B4"]
    assert [t.soc for t in suite_targets(str(p), FIXTURE_OPS)] == ["", "Ascend910B4"]
    root = tmp_path / "cache"
    root.mkdir()
    (root / "sim").symlink_to(sim_cache, target_is_directory=True)
    monkeypatch.setenv("ASCENDOPT_CACHE", str(root))
    res = CliRunner().invoke(app, ["run", "block_sum", "--suite", str(p), "--src", str(FIXTURE_OPS), "--json"])
    assert res.exit_code == 0, res.output
    op = json.loads(res.stdout)["ops"][0]
    # 3001 rows over the 40 vector cores of a 910B4 (48 on the default 910B2): 76 rows per core
    assert op["soc"] == "Ascend910B4" and op["cases"][0]["block_dim"] == 40


# Our cann-ops goldens are checked without a checkout: every manifest entry resolves against a
# stand-in --src (empty op_host/ + op_kernel/ per dir), and every golden runs on every case file
# of ours (inputs generated as the runner generates them; cases above _GOLDEN_SMOKE_LIMIT input
# elements only parse), returning arrays of the outputs' sizes.
_GOLDEN_SMOKE_LIMIT = 1 << 21


@pytest.fixture(scope="module")
def cannops_suite(tmp_path_factory):
    import tomllib

    src = tmp_path_factory.mktemp("cannops_src")
    data = tomllib.loads((SUITES_DIR / "cannops" / "suite.toml").read_text())
    for entry in data["op"]:
        for sub in ("op_host", "op_kernel"):
            (src / entry["dir"] / sub).mkdir(parents=True, exist_ok=True)
    return load_suite("cannops", src)


def test_shipped_cannops_entries_parse(cannops_suite):
    dirs = [o.dir for o in cannops_suite.ops]
    assert len(dirs) == len(set(dirs)), "an operator is listed twice"
    for op in cannops_suite.ops:
        assert op.level in (1, 2, 3) and op.golden and op.cases, op.name


def _cannops_ids():
    import tomllib

    data = tomllib.loads((SUITES_DIR / "cannops" / "suite.toml").read_text())
    return [e["dir"] for e in data["op"]]


@pytest.mark.parametrize("op_dir", _cannops_ids())
def test_shipped_cannops_golden_runs_on_our_cases(cannops_suite, op_dir):
    import math

    from ascendopt.cases import load_golden, load_op_cases, make_inputs, run_golden

    op = next(o for o in cannops_suite.ops if str(o.dir).endswith(op_dir))
    cases = load_op_cases(op.dir, op.cases, op.golden, own=False)
    assert cases, op_dir
    golden = load_golden(op.golden)
    def size(case) -> int:
        return sum(math.prod(s.shape) for s in case.inputs)

    # the small cases; an operator whose only case of ours is its (large) benchmark case runs that one
    small = [c for c in cases if size(c) <= _GOLDEN_SMOKE_LIMIT] or [min(cases, key=size)]
    for case in small:
        outs = run_golden(golden, case, make_inputs(case, seed=0))
        # None: an output the operator documents as not computed (left unchecked)
        assert [None if o is None else o.shape for o in outs] == [
            None if o is None else tuple(s.shape) for o, s in zip(outs, case.outputs)], case.name
        assert len(outs) == len(case.outputs), case.name
