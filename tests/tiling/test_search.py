"""Stage II loop end to end on the simulator: budget, best-so-far, outputs."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.tiling.search import tune, unified_patch, write_outputs
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import make_strategy

from ..conftest import FIXTURE_OPS

OPS = FIXTURE_OPS.parents[2] / "ops"


@pytest.fixture(scope="module")
def setup(backend):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    cases = load_op_cases(FIXTURE_OPS / "scale_copy")
    space = KnobSpace.from_operator(op)
    return op, cases, space, Evaluator(backend, EvalConfig(seed=0))


def test_search_respects_budget_and_returns_fastest_correct(setup, tmp_path):
    op, cases, space, evaluator = setup
    beval = BudgetedEvaluator(evaluator, MemoryStore(), budget=6, run_label=op.name)
    res = tune(op, cases, beval, space, make_strategy("evo", space, seed=1), "evo")
    assert res.charged == 6
    assert res.baseline_latency_us is not None  # the original is evaluated first
    ok = [t for t in res.trials if t.status == "ok"]
    assert res.best_latency_us == min(t.latency_us for t in ok)
    assert res.best_latency_us <= res.baseline_latency_us
    best = [t for t in res.trials if t.digest == res.best_digest][0]
    assert best.status == "ok"
    paths = write_outputs(res, op, space, tmp_path / "out")
    for k in ("report", "patch", "plot", "best", "trials"):
        assert (tmp_path / "out").exists() and paths[k]
    assert (tmp_path / "out" / "convergence.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "out" / "best" / "op_host" / "scale_copy.cpp").exists()
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## What the profiles say" in report and "| original |" in report
    assert all(t.profile for t in res.trials if t.status == "ok")
    if res.best_digest != op.digest:
        assert "+++ b/op_" in unified_patch(op, res.best_op)


def test_strategy_is_told_the_profile_of_correct_candidates(setup):
    op, cases, space, evaluator = setup
    beval = BudgetedEvaluator(evaluator, MemoryStore(), budget=3, run_label=op.name)
    strategy = make_strategy("evo", space, seed=1)
    tune(op, cases, beval, space, strategy, "evo")
    told = [r for _, r in strategy.history]
    assert told and all((r.profile is not None) == r.usable for r in told)
    p = next(r.profile for r in told if r.profile)
    assert p["block_dim"] >= 1 and p["bound"] and "MTE2" in p["pipe_ratio_mean"] and p["transfers"] > 0


def test_failures_never_become_best(setup):
    op, cases, space, evaluator = setup
    # Start from a candidate whose tile overflows UB: every trial with it fails.
    tile = next(k for k in space.knobs if k.id.startswith("tileLength"))
    bad = space.apply(op, {tile.id: 60000})
    bad_space = KnobSpace.from_operator(bad)
    beval = BudgetedEvaluator(evaluator, MemoryStore(), budget=4, run_label=op.name)
    res = tune(bad, cases, beval, bad_space, make_strategy("random", bad_space, seed=3), "random")
    assert res.trials[0].status == "runtime_error" and res.trials[0].error_kind == "ub_overflow"
    assert res.baseline_latency_us is None
    for t in res.trials:
        if t.digest == res.best_digest:
            assert t.status == "ok"


def test_tune_cli_writes_outputs_and_json(sim_cache, tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", str(sim_cache))
    out = tmp_path / "tuned"
    res = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "3", "--strategy", "random",
                                   "--out", str(out), "--db", str(tmp_path / "r.db"), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["charged"] == 3 and data["best_latency_us"] is not None and data["probes"] == 0  # random asks no oracle
    assert (out / "report.md").exists() and (out / "convergence.png").exists() and (out / "best.patch").exists()
    listing = CliRunner().invoke(app, ["records", str(tmp_path / "r.db"), "--json"])
    assert listing.exit_code == 0 and "stage2/random" in listing.output


def test_tune_cli_rejects_bad_input(tmp_path):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    r = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--strategy", "nope"])
    assert r.exit_code == 2 and "unknown strategy" in r.output
    r = CliRunner().invoke(app, ["tune", str(tmp_path / "missing")])
    assert r.exit_code == 2


def test_tune_cli_rejects_an_output_path_that_is_a_file_before_searching(sim_cache, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", str(sim_cache))
    taken = tmp_path / "taken"
    taken.write_text("not a directory")
    db = tmp_path / "r.db"
    r = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "2", "--out", str(taken),
                                 "--db", str(db)])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.output
    assert "not a directory" in r.output
    assert not db.exists()  # refused before anything was evaluated


def test_tune_cli_keeps_the_evaluations_when_the_outputs_cannot_be_written(sim_cache, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import ascendopt.tiling.search as search
    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", str(sim_cache))

    def full_disk(*a, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(search, "write_outputs", full_disk)
    db = tmp_path / "r.db"
    args = ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "2", "--strategy", "random",
            "--out", str(tmp_path / "o"), "--db", str(db)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert "No space left" in r.output and "recorded" in r.output
    listing = CliRunner().invoke(app, ["records", str(db), "--json"])
    assert listing.exit_code == 0 and "stage2/random" in listing.output


@pytest.mark.parametrize("args, option", [
    (["tune", "--seed", "-5"], "--seed"), (["tune", "--timeout", "0"], "--timeout"),
    (["tune", "--workers", "0"], "--workers"), (["run", "--timeout", "-1"], "--timeout"),
    (["run", "--seed", "-1"], "--seed"), (["run", "--noise-pct", "-1"], "--noise-pct"),
    (["profile", "--top", "0"], "--top"), (["profile", "--timeout", "0"], "--timeout"),
])
def test_cli_rejects_out_of_range_numbers_as_usage_errors(args, option, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.chdir(tmp_path)  # nothing is written where the tests run, even if a check is missing

    r = CliRunner().invoke(app, [args[0], str(FIXTURE_OPS / "scale_copy"), *args[1:]])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.output
    assert option in r.output


def test_tune_cli_exits_1_when_no_candidate_is_correct(sim_cache, tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", str(sim_cache))
    out = tmp_path / "o"
    r = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "2", "--strategy", "random",
                                 "--timeout", "0.000001", "--out", str(out), "--db", str(tmp_path / "r.db"), "--json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    assert data["best_latency_us"] is None and {t["status"] for t in data["trials"]} == {"timeout"}
    assert (out / "report.md").exists()


def test_show_space_lists_knobs():
    from typer.testing import CliRunner

    from ascendopt.cli import app

    r = CliRunner().invoke(app, ["tune", str(FIXTURE_OPS / "scale_copy"), "--show-space", "--json"])
    assert r.exit_code == 0, r.output
    assert "tileLength" in r.output
    # the table on a terminal of 80 columns wraps long cells instead of cutting them ("op_host/add_bro…")
    r = CliRunner().invoke(app, ["tune", str(OPS / "level1" / "add_broadcast"), "--show-space"])
    assert r.exit_code == 0 and "BUFFER_NUM" in r.output and "…" not in r.output, r.output
    r = CliRunner().invoke(app, ["ops", str(OPS)])  # the same for the paths of `ascendopt ops`
    assert r.exit_code == 0 and "…" not in r.output and "MatmulCustom" in r.output, r.output


class Listed:
    """Asks a fixed list of configs, then repeats the last one."""

    def __init__(self, space, configs):
        self.space, self.configs, self.told = space, list(configs), []

    def ask(self, n=1):
        return [self.space.complete(self.configs.pop(0) if len(self.configs) > 1 else self.configs[0])
                for _ in range(n)]

    def tell(self, config, result):
        self.told.append((config, result))


def test_candidates_launching_the_same_program_are_not_charged(setup, tmp_path):
    op, cases, _, evaluator = setup
    h = "op_host/scale_copy.cpp"
    capped = op.with_file(h, op.files[h].replace(
        "uint32_t tileLength = 1024;",
        "uint32_t tileLength = 1024;\n    uint32_t maxTileLength = 4096;\n"
        "    tileLength = tileLength < maxTileLength ? tileLength : maxTileLength;"), origin="original")
    space = KnobSpace.from_operator(capped)
    strategy = Listed(space, [{}, {"maxTileLength": 8192}, {"maxTileLength": 2048}, {"maxTileLength": 512},
                              {"maxTileLength": 16384}])
    beval = BudgetedEvaluator(evaluator, MemoryStore(), budget=2, run_label=op.name)
    res = tune(capped, cases, beval, space, strategy, "listed")
    # caps at or above the tile length (1024) launch the original's program: told, not charged
    assert [(t.index, t.duplicate, bool(t.same_as)) for t in res.trials[:4]] == [
        (1, False, False), (1, True, True), (1, True, True), (2, False, False)]
    assert res.charged == 2 and res.equivalents == 2 and len(res.trials) == 4 and res.stop_reason == "budget spent"
    assert [r.latency_us for _, r in strategy.told[:3]] == [res.trials[0].latency_us] * 3
    # a strategy that takes a program oracle gets one: launch keys on the benchmark case
    strategy.program_of = None
    tune(capped, cases, BudgetedEvaluator(evaluator, MemoryStore(), budget=1, run_label=op.name), space,
         strategy, "listed")
    program_of = strategy.program_of
    d = space.defaults()
    assert program_of(d) and program_of({**d, "maxTileLength": 8192}) == program_of(d)
    assert program_of({**d, "maxTileLength": 512}) not in (None, program_of(d))
    assert program_of.probes == 3                          # tiling-only runs: one per config asked
    write_outputs(res, capped, space, tmp_path / "out")
    report = (tmp_path / "out" / "report.md").read_text()
    assert "of which 2 by an evaluated candidate launching the same device program" in report
    assert "probes" not in report                          # the listed strategy asked the oracle nothing


class Probing(Listed):
    """Asks the program oracle about two configs before its first proposal."""

    program_of = None

    def ask(self, n=1):
        if self.program_of is not None and not self.told:
            self.program_of({"tileLength": 512}), self.program_of({"tileLength": 512}), self.program_of({})
        return super().ask(n)


def test_tune_counts_the_oracles_tiling_only_probes(setup, tmp_path):
    op, cases, _, evaluator = setup
    space = KnobSpace.from_operator(op)
    res = tune(op, cases, BudgetedEvaluator(evaluator, MemoryStore(), budget=1, run_label=op.name), space,
               Probing(space, [{}]), "probing")
    assert res.probes == 2 and res.to_dict()["probes"] == 2
    write_outputs(res, op, space, tmp_path / "out")
    assert "2 tiling-only probes of adjacent programs" in (tmp_path / "out" / "report.md").read_text()
    # without equivalence (no launch keys) there is no oracle and nothing is probed
    res = tune(op, cases, BudgetedEvaluator(evaluator, MemoryStore(), budget=1, run_label=op.name,
                                            reuse=ReuseConfig(equivalence=False)), space, Probing(space, [{}]), "probing")
    assert res.probes == 0


class Interrupted(Listed):
    """Asks its configs, and is interrupted (Ctrl-C) when asked for the third."""

    def ask(self, n=1):
        if len(self.told) == 2:
            raise KeyboardInterrupt
        return super().ask(n)


def test_an_interrupted_search_keeps_what_it_evaluated(setup, tmp_path):
    op, cases, space, evaluator = setup
    tile = space.knobs[0].id
    res = tune(op, cases, BudgetedEvaluator(evaluator, MemoryStore(), budget=5, run_label=op.name), space,
               Interrupted(space, [{}, {tile: 512}, {tile: 256}]), "listed")
    assert res.stop_reason == "interrupted" and res.charged == 2 and len(res.trials) == 2
    assert res.best_latency_us == min(t.latency_us for t in res.trials)
    write_outputs(res, op, space, tmp_path / "out")
    assert "- stop: interrupted" in (tmp_path / "out" / "report.md").read_text()


def test_tune_cli_writes_the_outputs_of_an_interrupted_search(sim_cache, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import ascendopt.tiling.strategies as strategies
    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", str(sim_cache))
    made = []

    def interrupted(name, space, seed=0, **kw):
        made.append(Interrupted(space, [{}, {space.knobs[0].id: 512}, {space.knobs[0].id: 256}]))
        return made[-1]

    monkeypatch.setattr(strategies, "make_strategy", interrupted)
    out, db = tmp_path / "tuned", tmp_path / "r.db"
    args = ["tune", str(FIXTURE_OPS / "scale_copy"), "--budget", "5", "--out", str(out), "--db", str(db)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 130, res.output
    assert "interrupted" in res.output and (out / "report.md").exists() and (out / "best.patch").exists()
    # the same command again: the recorded evaluations are answered without charge
    res = CliRunner().invoke(app, args + ["--json"])
    assert res.exit_code == 130
    import json

    data = json.loads(res.output[: res.output.rindex("}") + 1])
    assert data["charged"] == 0 and data["duplicates"] == 2 and data["stop_reason"] == "interrupted"


class Exhausting(Listed):
    """Has nothing left to ask once it was told two results (as evo with every knob retired)."""

    @property
    def exhausted(self):
        return "nothing left" if len(self.told) >= 2 else ""


def test_a_search_stops_when_its_strategy_is_exhausted(setup):
    op, cases, space, evaluator = setup
    tile = space.knobs[0].id
    res = tune(op, cases, BudgetedEvaluator(evaluator, MemoryStore(), budget=5, run_label=op.name), space,
               Exhausting(space, [{}, {tile: 512}, {tile: 256}]), "listed")
    assert res.stop_reason == "nothing left" and res.charged == 2 and len(res.trials) == 2
