"""``--backend npu`` on every command that takes a backend, and ``ascendopt doctor``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from tests.npu.conftest import NPU_SCALE

COMMANDS = {
    "run": ["run", str(NPU_SCALE)],
    "profile": ["profile", str(NPU_SCALE)],
    "tune": ["tune", str(NPU_SCALE)],
    "rewind": ["rewind", str(NPU_SCALE)],
    "optimize": ["optimize", str(NPU_SCALE)],
    "bench": ["bench", "--suite", str(NPU_SCALE.parent)],
}


def _invoke(args, env):
    return CliRunner().invoke(app, args, env=env, catch_exceptions=False)


def _no_cann_env(tmp_path):
    import os

    env = {k: None for k in os.environ if k.startswith("ASCEND_")}
    env.update({"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    return env


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_without_cann_every_backend_command_fails_at_once_in_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = _invoke([*COMMANDS[command], "--backend", "npu", "--unsafe-no-sandbox"], _no_cann_env(tmp_path))
    assert r.exit_code == 2, r.output
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "--backend npu needs the CANN toolkit" in errors[0], r.output
    assert not list(tmp_path.glob("*.db")) and not list(tmp_path.glob("tune_*"))  # nothing ran


def test_npu_without_unsafe_no_sandbox_says_why(fake_env):
    r = _invoke(["run", str(NPU_SCALE), "--backend", "npu"], fake_env)
    assert r.exit_code == 2 and "--unsafe-no-sandbox" in r.output


def test_doctor_reports_the_fake_toolkit(fake_env):
    r = _invoke(["doctor", "--json"], fake_env)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["npu_ready"] and doc["soc"] == "Ascend910B2" and doc["cann_version"] == "8.0.RC3.fake"
    found = {row["what"]: row for row in doc["rows"]}
    assert found["set_env.sh"]["found"].endswith("ascend-toolkit/set_env.sh")
    assert {"msprof", "msopgen", "cmake", "bisheng", "host C++ compiler", "sandbox"} <= set(found)


def test_doctor_without_cann_names_what_is_missing(tmp_path):
    r = _invoke(["doctor", "--json"], _no_cann_env(tmp_path))
    assert r.exit_code == 1
    doc = json.loads(r.output)
    assert not doc["npu_ready"] and "CANN toolkit" in doc["missing"][0]


def test_run_on_the_fake_device_checks_every_case(fake_env, tmp_path):
    fake_env["ASCENDOPT_CACHE"] = str(tmp_path / "cache")
    r = _invoke(["run", str(NPU_SCALE), "--backend", "npu", "--unsafe-no-sandbox", "--json"], fake_env)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["soc"] == "Ascend910B2" and doc["passed"] == 2 and doc["failed"] == 0


def test_profile_on_the_fake_device_writes_msprof_csvs(fake_env, tmp_path):
    fake_env["ASCENDOPT_CACHE"] = str(tmp_path / "cache")
    out = tmp_path / "prof"
    r = _invoke(["profile", str(NPU_SCALE), "--backend", "npu", "--unsafe-no-sandbox", "--out", str(out), "--json"],
                fake_env)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["case"] == "large" and doc["check"]["status"] == "ok"
    assert abs(doc["summary"]["task_duration_us"] - 12.4) < 0.2 and doc["summary"]["block_dim"] == 8
    assert (out / "OpBasicInfo.csv").exists() and (out / "PipeUtilization.csv").exists()
