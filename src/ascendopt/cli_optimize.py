"""``ascendopt optimize``: the episodic agent on one operator or a suite."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import List, Optional

import typer

from ascendopt.backends.sim.soc import DEFAULT_SOC
from ascendopt.cli_common import backend as make_backend
from ascendopt.cli_common import console, err_console, fail, load_targets, open_store
from ascendopt.cli_options import BACKEND, NPU_MODE, UNSAFE_NO_SANDBOX, UNSEEN_SHAPES, positive

DEFAULT_BANK_FILE = Path("ascendopt-bank.db")


def optimize_command(
    op_dirs: List[Path] = typer.Argument(None, help="Operator directories (cann-ops layout)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="'own', a shipped suite (cannops), a manifest or a directory."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where a suite's operators live (e.g. a cann-ops checkout's src/)."),
    budget: int = typer.Option(230, "--budget", help="Evaluations per operator, every attempt counted."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1,
                                         help="Outer rounds (--schedule fixed) or slices (gain) at most "
                                              "(default: until the budget is spent)."),
    schedule: str = typer.Option("gain", "--schedule",
                                 help="gain: each slice of budget to the stage with the higher recent gain per "
                                      "evaluation; fixed: rounds of --stage1-steps then --stage2-steps."),
    beam_width: int = typer.Option(2, "--beam-width", min=0,
                                   help="Neutral Stage I rewrites kept to build chains on (0: greedy)."),
    stage1_steps: int = typer.Option(2, "--stage1-steps", min=0, help="Stage I steps per round (--schedule fixed)."),
    stage1_candidates: int = typer.Option(3, "--stage1-candidates", min=1, help="Rewrites evaluated per Stage I step."),
    stage2_steps: int = typer.Option(20, "--stage2-steps", min=0,
                                     help="Stage II evaluations per round (per Stage II slice with --schedule gain)."),
    rewind_budget: int = typer.Option(20, "--rewind-budget", min=0, help="Rewind's share when the bank does not know the operator."),
    no_experience: bool = typer.Option(False, "--no-experience", help="Stage I without retrieved experiences."),
    only: Optional[str] = typer.Option(None, "--only", help="stage1 or stage2."),
    bank_file: Path = typer.Option(DEFAULT_BANK_FILE, "--bank", help="Experience bank (created from the shipped bank if missing)."),
    freeze_bank: bool = typer.Option(False, "--freeze-bank", help="Never add experiences (ablations)."),
    retrieval: str = typer.Option("value", "--retrieval",
                                  help="Rank retrieved experiences by similarity and learnt value (value) or "
                                       "by similarity only (similarity; ablation)."),
    llm: Optional[Path] = typer.Option(None, "--llm", help="LLM config file (default: offline rewriters)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default ./optimize_<op>)."),
    workers: int = typer.Option(1, "--workers", min=1, help="Candidates evaluated in parallel (processes)."),
    db: Path = typer.Option(Path("ascendopt.db"), "--db", help="Record store (SQLite)."),
    resume: bool = typer.Option(False, "--resume", help="Continue this operator's last optimize run in --db."),
    keep_profiles: bool = typer.Option(False, "--keep-profiles",
                                       help="Keep every benchmark run's full profile under OUT/profiles (about 0.5 MB each)."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc"),
    seed: int = typer.Option(0, "--seed", min=0),
    timeout: float = typer.Option(60.0, "--timeout", callback=positive, help="Seconds allowed per case run."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    unseen_shapes: int = UNSEEN_SHAPES,
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Optimize operators: rewind (if the bank does not know them), then Stage I (kernel
    rewrites guided by the experience bank and the diagnosis) and Stage II (tiling search),
    the budget going to the stage with the higher recent gain (--schedule gain) or in fixed
    rounds (--schedule fixed)."""
    from ascendopt.agent import AgentConfig
    from ascendopt.bank.store import DEFAULT_BANK_JSON, BankError, ExperienceBank
    from ascendopt.evaluate.store import StoreError

    if budget < 1:
        fail("--budget must be at least 1")
    if schedule not in ("gain", "fixed"):
        fail(f"--schedule must be gain or fixed, not {schedule!r}")
    if only not in (None, "stage1", "stage2"):
        fail(f"--only must be stage1 or stage2, not {only!r}")
    if llm is not None and not llm.is_file():
        fail(f"--llm {llm}: no such file")
    loaded = load_targets(op_dirs, suite, src)
    if out is not None and out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a directory")
    backend = make_backend(soc, unsafe_no_sandbox=unsafe_no_sandbox, name=backend_kind, npu_mode=npu_mode)
    store = open_store(db)
    try:
        fresh = not bank_file.exists()
        bank = ExperienceBank(bank_file)
        if fresh and DEFAULT_BANK_JSON.exists():
            bank.import_json(DEFAULT_BANK_JSON)
    except (BankError, OSError) as e:
        fail(f"cannot open experience bank: {e}" if str(bank_file) in str(e) else f"cannot open experience bank {bank_file}: {e}")
    if retrieval not in ("value", "similarity"):
        fail(f"--retrieval must be value or similarity, not {retrieval!r}")
    bank.retrieval = retrieval
    rewriter = _rewriter(llm, db)  # after the store: the LLM cache is a table of the record database
    cfg = AgentConfig(rounds=rounds, schedule=schedule, beam_width=beam_width, stage1_steps=stage1_steps, stage1_candidates=stage1_candidates,
                      stage2_steps=stage2_steps, rewind_budget=rewind_budget, use_experience=not no_experience,
                      only=only, freeze_bank=freeze_bank, seed=seed)
    summaries, interrupted = [], False
    for op, cases, bench_names in loaded:
        target = (out / op.name if len(loaded) > 1 else out) if out else Path(f"optimize_{op.name}")
        try:
            res, paths, unseen = _one(op, cases, store, backend, bank, rewriter, cfg, budget, workers, db, resume, seed,
                              timeout, target, as_json, keep_profiles, bench_names, unseen_shapes)
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


def _rewriter(llm: Optional[Path], db: Path):
    """The LLM rewriter when an endpoint is configured (``--llm`` file or environment), else
    the offline one."""
    from ascendopt.llm.client import open_client
    from ascendopt.llm.config import ConfigError
    from ascendopt.llm.errors import LLMError
    from ascendopt.refine.llm_rewriter import LLMRewriter
    from ascendopt.refine.rewriter import OfflineRewriter

    try:
        client = open_client(llm, db)
    except (ConfigError, LLMError) as e:
        fail(f"LLM configuration: {e}")
    return OfflineRewriter() if client is None else LLMRewriter(client)


def _one(op, cases, store, backend, bank, rewriter, cfg, budget, workers, db, resume, seed, timeout, out, as_json,
         keep_profiles=False, bench_names=(), unseen_shapes=8):
    import shutil

    from ascendopt.agent import optimize
    from ascendopt.evaluate.budget import BudgetedEvaluator
    from ascendopt.evaluate.evaluator import EvalConfig, Evaluator, largest_per_dtype
    from ascendopt.evaluate.executors import InlineExecutor, LocalExecutor
    from ascendopt.bank.rules import rules
    from ascendopt.optimize_report import render
    from ascendopt.tiling.search import unified_patch

    # full profiles feed the diagnosis during the run (every instruction, not the top five);
    # they stay addressable from the records with --keep-profiles
    profiles = out / "profiles"
    evaluator = Evaluator(backend, EvalConfig(seed=seed, benchmark_cases=bench_names or largest_per_dtype(cases),
                                              run_timeout_s=timeout, profile_dir=str(profiles)))
    run_id = None
    if resume:
        runs = [r for r in store.list_runs() if r.op == op.name and r.config.get("command") == "optimize"]
        if not runs:
            fail(f"--resume: no optimize run of {op.name} in {db}")
        run_id = runs[-1].id
    executor = LocalExecutor(workers) if workers > 1 else InlineExecutor()
    beval = BudgetedEvaluator(evaluator, store, budget=budget, executor=executor, run_id=run_id, run_label=op.name,
                              run_config={"command": "optimize", "op_dir": str(op.root), "seed": seed,
                                          "agent": cfg.__dict__})
    try:
        with console.status(f"optimizing {op.name} ...", spinner="dots") as st:
            def event(kind, data, _st=st):
                if not as_json:
                    rep = beval.report(op.name)
                    _st.update(f"optimizing {op.name}: {rep.charged}/{budget} evaluations; {kind} {data}")

            res = optimize(op, cases, beval, rewriter, bank, cfg, on_event=event)
    finally:
        executor.close()
        beval.finish()
        if not keep_profiles:
            shutil.rmtree(profiles, ignore_errors=True)
    from ascendopt.evaluate.unseen_check import adopt_optimize, check_run, html as unseen_html

    unseen = None
    if res.best_op is not None and res.stop_reason != "interrupted":
        unseen = check_run(backend, store, beval.run_id, op, cases, res.best_op.digest, unseen_shapes, timeout)
        adopt_optimize(res, unseen)
    records = store.list_evaluations(beval.run_id, op.name)
    usage = getattr(getattr(rewriter, "client", None), "usage", None)
    unseen_dict = {} if unseen is None else {"unseen": unseen.to_dict()}
    try:
        out.mkdir(parents=True, exist_ok=True)
        best = res.best_op or op
        best.write_to(out / "best")
        (out / "best.patch").write_text(unified_patch(op, best))
        titles = {e.id: e.experience.title for e in bank.entries()}
        page = render(res, records, titles, None if usage is None else _plain(usage),
                      title=f"ascendopt optimize: {op.op_type} ({op.name})",
                      rule_texts={r.id: r.text() for r in rules(bank)})
        (out / "report.html").write_text(page if unseen is None else page.replace("</body>", unseen_html(unseen)
                                                                                  + "</body>", 1))
        (out / "result.json").write_text(json.dumps({**res.to_dict(), "run_id": beval.run_id, **unseen_dict},
                                                    indent=2, default=str))
    except OSError as e:
        fail(f"cannot write the outputs to {out}: {e}; the evaluations are recorded in {db} (run {beval.run_id})", 1)
    paths = {"best": str(out / "best"), "patch": str(out / "best.patch"), "report": str(out / "report.html"),
             "json": str(out / "result.json")}
    if not as_json:
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
