"""Issue 18: the sandbox policy (``--unsafe-no-sandbox`` or not) is the backend's, so evaluation
workers apply the driver's policy, and every command that compiles or runs operator code takes
the flag."""

from __future__ import annotations

import pickle

import pytest
import typer
from typer.testing import CliRunner

from ascendopt import sandbox
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases
from ascendopt.cli import app
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.executors import EvalTask, LocalExecutor
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

SCALE_COPY = FIXTURE_OPS / "scale_copy"
KERNEL = "op_kernel/scale_copy.cpp"
MISSING = sandbox.Support(None, None, "no bwrap (test)")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(SCALE_COPY)}


@pytest.fixture
def restore_policy():
    previous = sandbox.current()
    yield
    sandbox.configure(previous)


def test_the_backend_keeps_its_policy_through_pickling(sim_cache):
    policy = sandbox.Sandbox(allow_unsafe=True, _support=MISSING)
    b = pickle.loads(pickle.dumps(SimBackend(builder=SimBuilder(cache_dir=sim_cache), sandbox=policy)))
    assert b.sandbox == policy and b.sandbox.support.reason == MISSING.reason and not b.sandbox.active


def test_the_backend_takes_the_policy_in_force_when_made(sim_cache, restore_policy):
    unsafe = sandbox.Sandbox(allow_unsafe=True)
    sandbox.configure(unsafe)
    b = SimBackend(builder=SimBuilder(cache_dir=sim_cache))
    sandbox.configure(sandbox.Sandbox())
    assert b.sandbox is unsafe


@pytest.mark.parametrize("unsafe", [True, False])
def test_workers_apply_the_drivers_policy(sim_cache, cases, unsafe):
    """A kernel that only passes where the host's files are visible, evaluated in two worker
    processes: it passes exactly when the driver's policy (no sandbox here, and
    ``--unsafe-no-sandbox``) lets it run unconfined."""
    marker = sim_cache / "only_visible_unconfined"  # one path: both cases share the build
    marker.write_text("x")
    base = Operator.load(SCALE_COPY)
    anchor = "GET_TILING_DATA(tilingData, tiling);"
    op = base.with_file(KERNEL, "#include <unistd.h>\n#include <cstdlib>\n" + base.files[KERNEL].replace(
        anchor, anchor + f'\n    if (access("{marker}", F_OK) != 0) abort();', 1), origin="test/policy")
    policy = sandbox.Sandbox(allow_unsafe=True, _support=MISSING) if unsafe else sandbox.Sandbox()
    ev = Evaluator(SimBackend(builder=SimBuilder(cache_dir=sim_cache), sandbox=policy), EvalConfig(jobs=1))
    case = (cases["small_tail"],)
    tasks = [EvalTask(op, case, seed, ev.config_key(case)) for seed in (1, 2)]
    with LocalExecutor(workers=2) as ex:
        results = dict(ex.run(ev, tasks))
    statuses = {i: (r.status, r.error_kind) for i, r in results.items()}
    want = ("ok", "") if unsafe else ("runtime_error", "abort")
    assert statuses == {0: want, 1: want}, {i: r.error for i, r in results.items()}


COMMANDS = ["run", "profile", "tune", "rewind", "optimize", "bench", "compat"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_runs_operator_code_takes_the_flag(command):
    res = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert "--unsafe-no-sandbox" in res.output


def test_profile_refuses_without_a_sandbox_unless_unsafe(monkeypatch, tmp_path, sim_cache, restore_policy):
    root = tmp_path / "cache"
    root.mkdir()
    (root / "sim").symlink_to(sim_cache, target_is_directory=True)
    monkeypatch.setenv("ASCENDOPT_CACHE", str(root))
    monkeypatch.setattr(sandbox, "probe", lambda: MISSING)
    args = ["profile", str(SCALE_COPY), "--case", "small_tail", "--out", str(tmp_path / "prof"), "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "--unsafe-no-sandbox" in res.output, res.output
    res = CliRunner().invoke(app, [*args, "--unsafe-no-sandbox"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "prof").is_dir()


def test_cli_backend_holds_the_policy(monkeypatch, restore_policy):
    from ascendopt.cli import common as cli_common

    monkeypatch.setattr(sandbox, "probe", lambda: MISSING)
    with pytest.raises(typer.Exit):
        cli_common.backend("Ascend910B2")
    b = cli_common.backend("Ascend910B2", unsafe_no_sandbox=True)
    assert b.sandbox.allow_unsafe and pickle.loads(pickle.dumps(b)).sandbox.allow_unsafe
