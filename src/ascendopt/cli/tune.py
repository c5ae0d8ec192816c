"""``ascendopt tune``: Stage II tiling search from the command line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cli.options import AS_JSON, BACKEND, NPU_MODE, TIMEOUT, UNSAFE_NO_SANDBOX, UNSEEN_SHAPES
from ascendopt.session import DEFAULT_DB, RunSpec


def show_space(space, as_json: bool) -> None:
    from ascendopt.cli.common import console

    if as_json:
        print(json.dumps(space.to_json(), indent=2, default=str))
        return
    if not space.knobs:
        console.print("no knobs found (no tiling function located, or it has no tunable constants)")
        return
    table = Table(title="tiling knobs")
    for col in ("knob", "location", "default", "range", "role"):
        table.add_column(col, overflow="fold")  # a narrow terminal wraps long cells, never cuts them
    for k in space.knobs:
        d = k.domain
        rng = f"{{{', '.join(map(str, d.choices))}}}" if d.kind == "cat" else f"{d.kind} [{d.lo}, {d.hi}]"
        source = k.text.strip()[:40]
        default = str(k.default) if source == str(k.default) else f"{k.default} ({source})"
        role = k.role + (f", {k.rebuild} rebuild" if k.rebuild and k.rebuild != "host" else "")
        table.add_row(k.id, f"{k.file}:{k.line}", default, rng, role)
    console.print(table)


def _target(op_dir: Optional[str], suite: Optional[str], src: Optional[Path], cases_files: List[Path],
            golden: Optional[str], names: List[str]):
    """The one operator ``tune`` works on, as ``(Operator, cases, benchmark case names)``: a
    directory, or one operator of ``--suite`` (its goldens, cases and benchmark cases)."""
    from ascendopt.cli.common import fail, load, load_targets

    if suite is None:
        if op_dir is None:
            fail("give an operator directory or --suite with an operator name")
        if src is not None:
            fail("--src goes with --suite")
        return (*load(Path(op_dir), cases_files, golden, names), ())
    if cases_files or golden:
        fail("--cases and --golden go without --suite (the suite names its cases and golden)")
    if op_dir is None:
        fail(f"--suite {suite}: name one of its operators (tune works on one)")
    op, cases, bench = load_targets(None, suite, src, only=op_dir)[0]
    if names:
        bad = [n for n in names if n not in {c.name for c in cases}]
        if bad:
            fail(f"unknown case(s) {', '.join(bad)}; available: {', '.join(sorted(c.name for c in cases))}")
        cases = [c for c in cases if c.name in names]
    return op, cases, bench


def tune_command(
    op_dir: Optional[str] = typer.Argument(None, help="Operator directory (cann-ops layout); with --suite, the "
                                           "name of one of the suite's operators."),
    suite: Optional[str] = typer.Option(None, "--suite", help="'own', a shipped suite (cannops), a manifest "
                                        "FILE.toml or a directory of operators: its goldens, cases and "
                                        "benchmark cases are used."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where a suite manifest's operator dirs are "
                                       "(e.g. a cann-ops checkout's src/)."),
    budget: int = typer.Option(50, "--budget", help="Evaluations allowed (every built/run candidate counts)."),
    strategy: str = typer.Option("evo", "--strategy", help="evo, random, tpe, cmaes or nsga2."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default ./tune_<op>)."),
    show_space_only: bool = typer.Option(False, "--show-space", help="Print the knob space and exit."),
    case: List[str] = typer.Option([], "--case", help="Check only these cases (repeatable)."),
    cases_files: List[Path] = typer.Option([], "--cases", help="Extra msopst case file(s)."),
    golden: Optional[str] = typer.Option(None, "--golden", help="FILE.py:FUNC golden override."),
    bench_case: List[str] = typer.Option([], "--bench-case", help="Benchmark case(s) (default: the largest)."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc"),
    seed: int = typer.Option(RunSpec.seed, "--seed", min=0, help="Seed of the strategy and of the inputs."),
    workers: int = typer.Option(RunSpec.workers, "--workers", min=1, help="Candidates evaluated in parallel (processes)."),
    db: Path = typer.Option(DEFAULT_DB, "--db", help="Record store (SQLite)."),
    llm: Optional[Path] = typer.Option(None, "--llm", help="LLM config file: the evo strategy's LLM tiling mutator "
                                     "rewrites the region's logic in some asks (default: the environment's endpoint, else offline)."),
    resume: bool = typer.Option(False, "--resume", help="Continue this operator's last tune run in --db (its "
                                "evaluations come back without charge; the rest of its budget is spent)."),
    lazy_verify: bool = typer.Option(False, "--lazy-verify", help="Time a candidate first and skip its other "
                                     "cases when it is slower than the strategy's bar (recorded 'unverified')."),
    timeout: float = TIMEOUT,
    as_json: bool = AS_JSON,
    unseen_shapes: int = UNSEEN_SHAPES,
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Stage II: search the host tiling program's knobs with profiling in the loop."""
    from ascendopt.cli.common import console, err_console, fail as _fail, open_session, usage, validated
    from ascendopt.llm.tiling_mutator import strategy_options
    from ascendopt.tiling.search import tune, write_outputs
    from ascendopt.tiling.space import KnobSpace
    from ascendopt.tiling.strategies import STRATEGIES, make_strategy

    op, cases, suite_bench = _target(op_dir, suite, src, cases_files, golden, case)
    bench_case = list(bench_case) or list(suite_bench)
    spec = RunSpec(command="tune", backend=backend_kind, soc=soc, seed=seed, budget=budget, workers=workers, db=db, llm=llm,
                   timeout_s=timeout, npu_mode=npu_mode, unsafe_no_sandbox=unsafe_no_sandbox, lazy_verify=lazy_verify)
    # the device's SoC on npu (the knob space's limits): the session (and its device checks) first
    session = open_session(validated(spec)) if backend_kind == "npu" else None
    space = KnobSpace.from_operator(op, soc=session.soc if session is not None else soc)
    if show_space_only:
        show_space(space, as_json)
        return
    if strategy not in STRATEGIES:
        _fail(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    spec = validated(spec)
    if not space.knobs:
        _fail(f"{op.root}: no tunable knobs found in the tiling program (see --show-space)")
    names = {c.name for c in cases}
    bad = [b for b in bench_case if b not in names]
    if bad:
        _fail(f"unknown benchmark case(s) {', '.join(bad)}")
    out = out or Path(f"tune_{op.name}")
    if out.exists() and not out.is_dir():
        _fail(f"--out {out}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _fail(f"--out {out}: cannot create the output directory: {e}")
    session = session or open_session(spec)
    evaluator = session.evaluator(tuple(bench_case))
    with usage():
        session.store  # noqa: B018 - opened here: a bad database is a usage error
        run_id = session.resume_run(op.name) if resume else None
    beval = session.budgeted(evaluator, op.name, {"strategy": strategy, "seed": seed, "op_dir": str(op.root),
                                                  "suite": suite}, session.executor(), run_id)
    with usage():
        client = session.llm_client()
    strat = make_strategy(strategy, space, seed=spec.seeds.strategy, **strategy_options(client, op, strategy))
    try:
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[best]}"), TimeElapsedColumn(), console=err_console,
                      disable=as_json or not err_console.is_terminal and os.environ.get("CI") == "true") as prog:
            task = prog.add_task(f"{op.op_type} ({strategy})", total=budget, best="")

            def on_trial(trial, res):
                best = f"best {res.best_latency_us:.2f} us" if res.best_latency_us else "no correct candidate yet"
                prog.update(task, completed=trial.index, best=best)

            result = tune(op, cases, beval, space, strat, strategy, batch=max(1, workers), on_trial=on_trial)
    finally:
        session.close()
        beval.finish()
    from ascendopt.evaluate.unseen_check import adopt_tune, check_run, RunRef, markdown

    unseen = None
    if result.best_op is not None and result.stop_reason != "interrupted":
        unseen = check_run(session.backend, RunRef(session.store, beval.run_id, result.best_digest), op, cases,
                           unseen_shapes, timeout)
        adopt_tune(result, unseen)
    try:
        paths = write_outputs(result, op, space, out)
        if unseen is not None:
            with open(paths["report"], "a") as f:
                f.write(markdown(unseen))
    except OSError as e:
        _fail(f"cannot write the outputs to {out}: {e}\nthe {result.charged} evaluations are recorded in {db} "
              f"(run {beval.run_id}): the same command with a writable --out replays them without charge", code=1)
    if as_json:
        print(json.dumps({**result.to_dict(), "unseen": None if unseen is None else unseen.to_dict(), "outputs": paths,
                          "run_id": beval.run_id, "db": str(db)},
                         indent=2, default=str))
    else:
        console.print(f"[bold]{op.op_type}[/bold]: {result.charged} evaluations charged, {result.duplicates} "
                      f"answered from records, {result.equivalents} of them by the same device program"
                      + (f", {result.probes} tiling-only probes" if result.probes else "") + f" ({result.stop_reason})")
        if result.best_latency_us is None:
            console.print("[red]no correct candidate found[/red]")
        else:
            sp = f" — speedup {result.speedup:.3f}x" if result.speedup else ""
            base = f"{result.baseline_latency_us:.3f} us" if result.baseline_latency_us else "original failed"
            console.print(f"original {base} → best {result.best_latency_us:.3f} us{sp}")
        if unseen is not None:
            console.print(unseen.summary(), highlight=False, markup=False)
        console.print(f"report: {paths['report']}  patch: {paths['patch']}  best operator: {paths['best']}")
        console.print(f"records: {db} (run {beval.run_id})")
    if result.best_latency_us is None and result.stop_reason != "interrupted":
        raise typer.Exit(1)  # outputs written, but nothing correct was found: scripts must see it
    if result.stop_reason == "interrupted":
        if not as_json:
            err_console.print("[yellow]interrupted[/yellow]: the outputs hold the best candidate evaluated so far; "
                              "the same command with --resume replays the recorded evaluations without charge and goes on")
        raise typer.Exit(130)
