"""The composition root: one validated run spec, the same evaluation for every command and the
benchmark, per-component seeds from one seed, the run's SoC reaching rewind's motifs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.bench.pair import PairTask
from ascendopt.cases import load_op_cases
from ascendopt.session import RunSpec, Seeds, Session, SessionError, motifs_for

ROOT = Path(__file__).resolve().parents[1]
OP = ROOT / "ops" / "level1" / "abs_custom"


@pytest.mark.parametrize("bad, msg", [
    (dict(budget=0), "--budget must be at least 1"),
    (dict(backend="gpu"), "not a backend"),
    (dict(llm=Path("/nonexistent/llm.toml")), "no such file"),
    (dict(backend="npu", noise_pct=1.0), "noise"),
    (dict(npu_mode="simulator"), "--npu-mode is for --backend npu"),
    (dict(workers=0), "at least 1"),
])
def test_a_bad_spec_is_refused_before_anything_is_made(bad, msg):
    with pytest.raises(SessionError, match=msg):
        RunSpec("optimize", **bad).validate()


def test_every_component_seed_comes_from_the_one_seed():
    assert Seeds.derive(7) == Seeds(inputs=7, strategy=7, noise=7)
    assert RunSpec("tune", seed=3).seeds.strategy == 3


def test_the_benchmark_evaluates_as_optimize_does(tmp_path):
    """A bench pair composes the evaluation optimize composes: the same EvalConfig (inputs
    seeded from the pair's seed, the same timed cases) and the same budgeted evaluator options."""
    cases = load_op_cases(OP)
    opt = Session(RunSpec("optimize", seed=2, budget=5, db=None, bank=None))
    task = PairTask("abs_custom|full|2", str(OP), "full", 2, 5, opt.spec.soc)
    bench = Session(task.spec())
    assert bench.eval_config((), cases) == opt.eval_config((), cases)
    assert bench.eval_config((), cases).seed == 2 and bench.spec.lazy_probes == opt.spec.lazy_probes
    assert (bench.spec.budget, bench.spec.soc, bench.spec.seeds) == (opt.spec.budget, opt.spec.soc, opt.spec.seeds)


def test_rewind_motifs_are_built_for_the_run_soc():
    by_name = {type(m).__name__: m for m in motifs_for("Ascend310P3")}
    socs = {n: m.soc for n, m in by_name.items() if hasattr(m, "soc")}
    assert socs and set(socs.values()) == {"Ascend310P3"}
    spec = RunSpec("rewind", soc="Ascend310P3", db=None)
    assert {getattr(m, "soc", "Ascend310P3") for m in Session(spec).motifs()} == {"Ascend310P3"}


def test_only_the_soc_registry_names_a_default_soc():
    src = ROOT / "src" / "ascendopt"
    named = [p.relative_to(src).as_posix() for p in src.rglob("*.py") if '"Ascend910B2"' in p.read_text()]
    assert len(named) == 1 and named[0].endswith("soc.py"), named


def test_tune_and_optimize_resume_their_last_run(tmp_path):
    """``--resume`` on the command line: tune reopens its run and spends only the rest of the
    budget; optimize without a run to resume is a usage error (exit 2)."""
    import json

    from typer.testing import CliRunner

    from ascendopt.cli import app
    from ascendopt.evaluate.store import SQLiteStore

    from .conftest import FIXTURE_OPS

    db, op = tmp_path / "r.db", str(FIXTURE_OPS / "scale_copy")
    common = ["--db", str(db), "--out", str(tmp_path / "out"), "--json", "--unsafe-no-sandbox"]
    first = CliRunner().invoke(app, ["tune", op, "--budget", "2", *common])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, ["tune", op, "--budget", "3", "--resume", *common])
    assert again.exit_code == 0, again.output
    with SQLiteStore(db, readonly=True) as store:
        [run] = store.list_runs()
        assert sum(r.charged for r in store.list_evaluations(run.id)) == 3
    assert json.loads(again.stdout)["run_id"] == json.loads(first.stdout)["run_id"] == run.id
    res = CliRunner().invoke(app, ["optimize", op, "--budget", "2", "--resume", "--db", str(tmp_path / "o.db"),
                                   "--unsafe-no-sandbox"])
    assert res.exit_code == 2 and "--resume: no optimize run of scale_copy" in res.output, res.output
