"""``tune --suite NAME --src PATH OP``: one operator of a suite, with its cases and benchmark
case names; usage errors exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app

from .conftest import FIXTURE_OPS

MANIFEST = """format = 1
name = "mine"

[[op]]
dir = "scale_copy"
level = 1
benchmark = ["no_such_case"]
"""


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    p = tmp_path / "suite.toml"
    p.write_text(MANIFEST)
    return p


def test_tune_takes_one_operator_of_a_suite(manifest):
    runner = CliRunner()
    res = runner.invoke(app, ["tune", "scale_copy", "--suite", str(manifest), "--src", str(FIXTURE_OPS),
                              "--show-space", "--json"])
    assert res.exit_code == 0, res.output
    assert {k["id"] for k in json.loads(res.stdout)["knobs"]} == {"tileLength", "BUFFER_NUM"}
    # the suite's benchmark case names are checked like --bench-case
    res = runner.invoke(app, ["tune", "scale_copy", "--suite", str(manifest), "--src", str(FIXTURE_OPS),
                              "--budget", "1"])
    assert res.exit_code == 2 and "unknown benchmark case(s) no_such_case" in res.output


@pytest.mark.parametrize("args, words", [
    ([], "name one of its operators"),
    (["nope"], "has no operator 'nope'"),
    (["scale_copy", "--golden", "g.py:f"], "go without --suite"),
])
def test_tune_suite_usage_errors(manifest, args, words):
    res = CliRunner().invoke(app, ["tune", *args, "--suite", str(manifest), "--src", str(FIXTURE_OPS),
                                   "--show-space"])
    assert res.exit_code == 2 and words in res.output, res.output
