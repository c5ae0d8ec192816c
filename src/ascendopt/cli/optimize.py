"""``ascendopt optimize``: the episodic agent on one operator or a suite."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional

import typer

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cli.common import console, err_console, fail, load_targets, open_session, usage, validated
from ascendopt.cli.options import AS_JSON, BACKEND, NPU_MODE, TIMEOUT, UNSAFE_NO_SANDBOX, UNSEEN_SHAPES
from ascendopt.agent import DEFAULT_BUDGET, AgentConfig
from ascendopt.session import DEFAULT_BANK_FILE, DEFAULT_DB, RunSpec, Session


def optimize_command(
    op_dirs: List[Path] = typer.Argument(None, help="Operator directories (cann-ops layout)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="'own', a shipped suite (cannops), a manifest or a directory."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where a suite's operators live (e.g. a cann-ops checkout's src/)."),
    budget: int = typer.Option(DEFAULT_BUDGET, "--budget", help="Evaluations per operator, every attempt counted."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1,
                                         help="Outer rounds (--schedule fixed) or slices (gain) at most "
                                              "(default: until the budget is spent)."),
    schedule: str = typer.Option(AgentConfig.schedule, "--schedule",
                                 help="gain: each slice of budget to the stage with the higher recent gain per "
                                      "evaluation; fixed: rounds of --stage1-steps then --stage2-steps."),
    beam_width: int = typer.Option(AgentConfig.beam_width, "--beam-width", min=0,
                                   help="Neutral Stage I rewrites kept to build chains on (0: greedy)."),
    stage1_steps: int = typer.Option(AgentConfig.stage1_steps, "--stage1-steps", min=0, help="Stage I steps per round (--schedule fixed)."),
    stage1_candidates: int = typer.Option(AgentConfig.stage1_candidates, "--stage1-candidates", min=1, help="Rewrites evaluated per Stage I step."),
    stage2_steps: int = typer.Option(AgentConfig.stage2_steps, "--stage2-steps", min=0,
                                     help="Stage II evaluations per round (per Stage II slice with --schedule gain)."),
    rewind_budget: int = typer.Option(AgentConfig.rewind_budget, "--rewind-budget", min=0, help="Rewind's share when the bank does not know the operator."),
    no_experience: bool = typer.Option(False, "--no-experience", help="Stage I without retrieved experiences."),
    only: Optional[str] = typer.Option(None, "--only", help="stage1 or stage2."),
    bank_file: Path = typer.Option(DEFAULT_BANK_FILE, "--bank", help="Experience bank (created from the shipped bank if missing)."),
    freeze_bank: bool = typer.Option(False, "--freeze-bank", help="Never add experiences (ablations)."),
    retrieval: str = typer.Option("value", "--retrieval",
                                  help="Rank retrieved experiences by similarity and learnt value (value) or "
                                       "by similarity only (similarity; ablation)."),
    llm: Optional[Path] = typer.Option(None, "--llm", help="LLM config file (default: offline rewriters)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default ./optimize_<op>)."),
    workers: int = typer.Option(RunSpec.workers, "--workers", min=1, help="Candidates evaluated in parallel (processes)."),
    db: Path = typer.Option(DEFAULT_DB, "--db", help="Record store (SQLite)."),
    resume: bool = typer.Option(False, "--resume", help="Continue this operator's last optimize run in --db."),
    keep_profiles: bool = typer.Option(False, "--keep-profiles",
                                       help="Keep every benchmark run's full profile under OUT/profiles (about 0.5 MB each)."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc"),
    seed: int = typer.Option(RunSpec.seed, "--seed", min=0),
    timeout: float = TIMEOUT,
    as_json: bool = AS_JSON,
    unseen_shapes: int = UNSEEN_SHAPES,
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Optimize operators: rewind (if the bank does not know them), then Stage I (kernel
    rewrites guided by the experience bank and the diagnosis) and Stage II (tiling search),
    the budget going to the stage with the higher recent gain (--schedule gain) or in fixed
    rounds (--schedule fixed)."""
    from ascendopt.bank.store import BankError
    from ascendopt.evaluate.store import StoreError

    spec = validated(RunSpec(command="optimize", backend=backend_kind, soc=soc, seed=seed, budget=budget, workers=workers,
                         db=db, bank=bank_file, llm=llm, timeout_s=timeout, npu_mode=npu_mode,
                         unsafe_no_sandbox=unsafe_no_sandbox))
    if schedule not in ("gain", "fixed"):
        fail(f"--schedule must be gain or fixed, not {schedule!r}")
    if only not in (None, "stage1", "stage2"):
        fail(f"--only must be stage1 or stage2, not {only!r}")
    loaded = load_targets(op_dirs, suite, src)
    if out is not None and out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a directory")
    if retrieval not in ("value", "similarity"):
        fail(f"--retrieval must be value or similarity, not {retrieval!r}")
    session = open_session(spec)
    with usage():
        session.store  # noqa: B018 - opened now: a bad database is a usage error before anything runs
        bank = session.bank()
        rewriter = session.rewriter()  # after the store: the LLM cache is a table of the record database
    bank.retrieval = retrieval
    cfg = AgentConfig(rounds=rounds, schedule=schedule, beam_width=beam_width, stage1_steps=stage1_steps, stage1_candidates=stage1_candidates,
                      stage2_steps=stage2_steps, rewind_budget=rewind_budget, use_experience=not no_experience,
                      only=only, freeze_bank=freeze_bank, seed=spec.seeds.strategy)
    summaries, interrupted = [], False
    for op, cases, bench_names in loaded:
        target = (out / op.name if len(loaded) > 1 else out) if out else Path(f"optimize_{op.name}")
        try:
            res, paths, unseen = _one(session, _Target(op, cases, bench_names), _Agent(cfg, bank, rewriter), resume,
                                      _Output(target, as_json, keep_profiles, unseen_shapes))
        except (StoreError, BankError) as e:  # e.g. another process held the database locked too long
            fail(f"{e}; what was evaluated before is recorded", 1)
        summaries.append({**res.to_dict(), "outputs": paths, **unseen})
        if res.stop_reason == "interrupted":
            interrupted = True
            break
    bank.close()
    speedups = [s["speedup"] or 1.0 for s in summaries]
    gm = math.exp(sum(math.log(x) for x in speedups) / len(speedups)) if speedups else None
    if as_json:
        print(json.dumps({"operators": summaries, "geomean_speedup": gm, "db": str(db), "bank": str(bank_file)},
                         indent=2, default=str))
    elif len(summaries) > 1:
        console.print(f"{len(summaries)} operators, geometric-mean speedup {gm:.3f}x")
    if interrupted:
        err_console.print("[yellow]interrupted[/yellow]: outputs hold the best candidate so far; "
                          "the same command with --resume continues the run")
        raise typer.Exit(130)
    if summaries and all(s["best_us"] is None for s in summaries):
        raise typer.Exit(1)


@dataclass(frozen=True)
class _Target:
    """One operator of the command, its cases and its benchmark case names (empty: default)."""

    op: Any
    cases: Any
    bench_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Agent:
    """What the agent runs with besides the budget: its config, the bank, the rewriter."""

    cfg: Any
    bank: Any
    rewriter: Any


@dataclass(frozen=True)
class _Output:
    """Where and how the command writes one operator's outputs, and how many unseen shapes the
    returned best is checked on first (:mod:`ascendopt.evaluate.unseen_check`; 0: none)."""

    out: Path
    as_json: bool
    keep_profiles: bool = False
    unseen_shapes: int = 8


def _one(session: Session, target: _Target, agent: _Agent, resume: bool, output: _Output):
    from ascendopt.agent import optimize
    from ascendopt.evaluate.verdict import clean_profiles
    from ascendopt.bank.rules import rules
    from ascendopt.optimize_report import render
    from ascendopt.tiling.search import unified_patch

    op, cases, out, db, store, budget = target.op, target.cases, output.out, session.spec.db, session.store, session.spec.budget
    # full profiles feed the diagnosis during the run (every instruction, not the top five);
    # they stay addressable from the records with --keep-profiles
    profiles = out / "profiles"
    evaluator = session.evaluator(target.bench_names, cases, str(profiles))
    run_id = None
    if resume:
        with usage():
            run_id = session.resume_run(op.name)
    executor = session.executor()
    beval = session.budgeted(evaluator, op.name, {"op_dir": str(op.root), "seed": session.spec.seed,
                                                  "agent": agent.cfg.__dict__}, executor, run_id)
    try:
        with console.status(f"optimizing {op.name} ...", spinner="dots") as st:
            def event(kind, data, _st=st):
                if not output.as_json:
                    rep = beval.report(op.name)
                    _st.update(f"optimizing {op.name}: {rep.charged}/{budget} evaluations; {kind} {data}")

            # the run's last measure callback removes the profiles (kept with --keep-profiles)
            res = optimize(op, cases, beval, agent.rewriter, agent.bank, agent.cfg, on_event=event,
                           callbacks=() if output.keep_profiles else (clean_profiles(profiles),))
    finally:
        session.close()
        beval.finish()
    from ascendopt.evaluate.unseen_check import adopt_optimize, check_run, RunRef, html as unseen_html

    unseen = None
    if res.best_op is not None and res.stop_reason != "interrupted":
        unseen = check_run(session.backend, RunRef(store, beval.run_id, res.best_op.digest), op, cases,
                           output.unseen_shapes, session.spec.timeout_s)
        adopt_optimize(res, unseen)
    records = store.list_evaluations(beval.run_id, op.name)
    llm_usage = getattr(getattr(agent.rewriter, "client", None), "usage", None)
    unseen_dict = {} if unseen is None else {"unseen": unseen.to_dict()}
    try:
        out.mkdir(parents=True, exist_ok=True)
        best = res.best_op or op
        best.write_to(out / "best")
        (out / "best.patch").write_text(unified_patch(op, best))
        titles = {e.id: e.experience.title for e in agent.bank.entries()}
        page = render(res, records, titles, None if llm_usage is None else _plain(llm_usage),
                      title=f"ascendopt optimize: {op.op_type} ({op.name})",
                      rule_texts={r.id: r.text() for r in rules(agent.bank)})
        (out / "report.html").write_text(page if unseen is None else page.replace("</body>", unseen_html(unseen)
                                                                                  + "</body>", 1))
        (out / "result.json").write_text(json.dumps({**res.to_dict(), "run_id": beval.run_id, **unseen_dict},
                                                    indent=2, default=str))
    except OSError as e:
        fail(f"cannot write the outputs to {out}: {e}; the evaluations are recorded in {db} (run {beval.run_id})", 1)
    paths = {"best": str(out / "best"), "patch": str(out / "best.patch"), "report": str(out / "report.html"),
             "json": str(out / "result.json")}
    if not output.as_json:
        sp = f"{res.speedup:.3f}x" if res.speedup else "-"
        base = f"{res.baseline_us:.3f} us" if res.baseline_us else "original failed"
        best_s = f"{res.best_us:.3f} us" if res.best_us else "-"
        console.print(f"[bold]{op.name}[/bold]: {base} -> {best_s} ({sp}); {res.charged} evaluations "
                      f"({', '.join(f'{k} {v}' for k, v in sorted(res.charged_by_stage.items()))}); "
                      f"{len(res.accepted)} accepted change(s); stop: {res.stop_reason}")
        if unseen is not None:
            console.print(unseen.summary(), highlight=False, markup=False)
        console.print(f"report: {paths['report']}  patch: {paths['patch']}  best operator: {paths['best']}",
                      highlight=False)
    return res, paths, unseen_dict


def _plain(usage):
    return usage.to_dict() if hasattr(usage, "to_dict") else usage
