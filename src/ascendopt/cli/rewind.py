"""``ascendopt rewind``: de-optimize strong operators into experiences of the bank."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer
from rich import box
from rich.table import Table

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cli.common import console, err_console, fail, load_targets, open_session, usage, validated
from ascendopt.cli.options import AS_JSON, BACKEND, NPU_MODE, TIMEOUT, UNSAFE_NO_SANDBOX, positive
from ascendopt.evaluate.verdict import DEFAULT_MIN_EFFECT_PCT, DEFAULT_SIGMAS
from ascendopt.rewind.engine import DEFAULT_BUDGET, DEFAULT_DEPTH
from ascendopt.session import DEFAULT_BANK_FILE, DEFAULT_DB, RunSpec


def rewind_command(
    op_dirs: List[Path] = typer.Argument(None, help="Operator directories (cann-ops layout)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="'own', a shipped suite (cannops), a manifest or a directory."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where a suite's operators live (e.g. a cann-ops checkout's src/)."),
    budget: int = typer.Option(DEFAULT_BUDGET, "--budget", help="Evaluations per operator (every attempt counts)."),
    depth: int = typer.Option(DEFAULT_DEPTH, "--depth", help="Removals chained from the original (1: no chains)."),
    bank_file: Path = typer.Option(DEFAULT_BANK_FILE, "--bank", help="Experience bank to add to (created if missing)."),
    motifs: Optional[str] = typer.Option(None, "--motifs", help="Comma-separated motif names (default: all)."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc"),
    seed: int = typer.Option(RunSpec.seed, "--seed", min=0, help="Seed of the inputs (and of the noise)."),
    noise_pct: float = typer.Option(0.0, "--noise-pct", min=0.0, help="Seeded timing noise (percent std)."),
    repeats: int = typer.Option(0, "--repeats", min=0,
                                help="Timed runs per candidate, for tau (default: 1 on the noise-free simulator, "
                                     "else 5)."),
    sigmas: float = typer.Option(DEFAULT_SIGMAS, "--sigmas", callback=positive, help="tau = this many sigmas of the repeats."),
    min_effect: float = typer.Option(DEFAULT_MIN_EFFECT_PCT, "--min-effect-pct", min=0.0, help="tau is at least this share of the latency."),
    workers: int = typer.Option(RunSpec.workers, "--workers", min=1, help="Candidates evaluated in parallel (processes)."),
    db: Path = typer.Option(DEFAULT_DB, "--db", help="Record store (SQLite)."),
    timeout: float = TIMEOUT,
    as_json: bool = AS_JSON,
    llm: Optional[Path] = typer.Option(None, "--llm", help="LLM config file: adds the LLM rewinder to the motifs and "
                                       "distills with the LLM (default: the environment, else offline)."),
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Rewind: remove one optimization at a time, keep the removals that measurably hurt, and
    distill each kept pair into an experience of the bank."""
    from ascendopt.bank.store import BankError
    from ascendopt.evaluate.store import StoreError
    from ascendopt.rewind.engine import RewindConfig, rewind
    from ascendopt.transforms import MOTIFS

    spec = validated(RunSpec(command="rewind", backend=backend_kind, soc=soc, seed=seed, budget=budget, workers=workers,
                             db=db, bank=bank_file, llm=llm, timeout_s=timeout, noise_pct=noise_pct, npu_mode=npu_mode,
                             unsafe_no_sandbox=unsafe_no_sandbox))
    if depth < 1:
        fail("--depth must be at least 1")
    rw_cfg = RewindConfig(depth=depth, sigmas=sigmas, min_effect_pct=min_effect, batch=workers)
    reg = MOTIFS.all()
    chosen = list(reg) if not motifs else [m.strip() for m in motifs.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in reg]
    if unknown:
        fail(f"unknown motif(s) {', '.join(unknown)}; known: {', '.join(reg)}")
    loaded = load_targets(op_dirs, suite, src)  # every usage error before anything runs
    _llm_client(llm, None)  # a bad LLM configuration is one too (nothing is opened yet)
    session = open_session(spec)
    reps = repeats or (1 if session.backend.concurrent_timing else 5)  # noise (injected or measured): repeats
    session = open_session(replace(spec, profile_repeats=reps), session.backend)
    with usage():
        session.store  # noqa: B018 - opened first: a bad database is a usage error
        client = session.llm_client()  # after the store: its response cache is a table of the record database
        bank = session.bank(seeded=False)
    executor = session.executor()
    llm_motifs, distiller = _llm_roles(client)
    results = []
    interrupted = False
    try:
        for op, cases, bench_names in loaded:
            # every dtype path is timed: a motif may only touch the path of one dtype
            evaluator = session.evaluator(bench_names, cases)
            beval = session.budgeted(evaluator, op.name, {"depth": depth, "seed": seed,
                                                          "motifs": chosen + [m.name for m in llm_motifs],
                                                          "op_dir": str(op.root)}, executor)
            with console.status(f"rewinding {op.name} ...", spinner="dots") as st:
                def progress(a, _op=op, _st=st, _b=beval):
                    _st.update(f"rewinding {_op.name}: {_b.report(_op.name).charged}/{budget} evaluations, "
                               f"last {a.motif} -> {a.reason}")
                try:
                    res = rewind(op, cases, beval, session.motifs(chosen) + llm_motifs, rw_cfg,
                                 bank=bank, distiller=distiller, on_attempt=None if as_json else progress)
                except KeyboardInterrupt:
                    beval.finish("interrupted")
                    interrupted = True
                    break
                except (StoreError, BankError) as e:  # e.g. another process held the database locked too long
                    fail(f"{e}; what was evaluated before is recorded", 1)
            beval.finish()
            results.append(res)
            if not as_json:
                _print_result(res)
    finally:
        session.close()
        if client is not None:
            client.close()
    size, families = len(bank), bank.families()
    bank.close()
    if as_json:
        print(json.dumps({"bank": str(bank_file), "bank_size": size, "families": families, "db": str(db),
                          "interrupted": interrupted, "operators": [r.to_dict() for r in results],
                          "llm": None if client is None else client.usage.to_dict()}, indent=2,
                         default=str))
    else:
        kept = sum(len(r.kept) for r in results)
        console.print(f"{kept} experiences kept from {len(results)} operator(s); bank {bank_file}: {size} experiences "
                      f"in {len(families)} families ({', '.join(f'{k} {v}' for k, v in families.items())})")
    if interrupted:
        err_console.print("[yellow]interrupted[/yellow]: kept experiences are in the bank; evaluations are recorded")
        raise typer.Exit(130)
    if results and all(r.stop_reason == "root_failed" for r in results):
        raise typer.Exit(1)


def _llm_client(llm: Optional[Path], db: Optional[Path]):
    """The LLM client when an endpoint is configured (``--llm`` file or environment), else None;
    responses cached in ``db`` (the record database). With ``db`` None: only checks the
    configuration (usage error, exit 2) and returns None."""
    from ascendopt.llm.client import open_client
    from ascendopt.llm.config import ConfigError, load_config
    from ascendopt.llm.errors import LLMError

    try:
        if db is None:
            cfg = load_config(llm)
            if cfg.configured:
                cfg.require()
            return None
        return open_client(llm, db)
    except (ConfigError, LLMError) as e:
        fail(f"LLM configuration: {e}")


def _llm_roles(client) -> tuple[list, object]:
    """(extra motifs, distiller): the LLM rewinder and distiller with a client; ``([], None)``
    (the built-in motifs, the offline distiller) without."""
    if client is None:
        return [], None
    from ascendopt.rewind.llm_distiller import LLMDistiller
    from ascendopt.rewind.llm_rewinder import LLMRewinder

    return [LLMRewinder(client)], LLMDistiller(client)


def _print_result(res) -> None:
    if res.stop_reason == "root_failed":
        err = res.attempts[0].detail if res.attempts else ""
        console.print(f"[red]{res.op}: the original fails its own cases; nothing to rewind[/red] {err}")
        return
    table = Table(title=f"{res.op}: baseline {res.baseline_us:.2f} us, tau {res.noise['tau_us']:.3f} us",
                  box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("d", "motif", "site", "result", "x"):
        table.add_column(col, overflow="fold", justify="right" if col in ("d", "x") else "left")
    style = {"kept": "green", "not_slower": "yellow", "failed": "red", "new_hazard": "red"}
    for a in res.attempts:
        x = f"{a.slowdown:.2f}" if a.slowdown else "-"
        reason = a.reason if a.reason != "failed" else f"{a.status}"
        s = style.get(a.reason, "white")
        table.add_row(str(a.depth), a.motif, a.site, f"[{s}]{reason}[/{s}]", x)
    console.print(table)
    console.print(f"{len(res.kept)} kept of {sum(1 for a in res.attempts if a.status)} tried, "
                  f"{res.charged} evaluations charged ({res.stop_reason}), {res.seconds:.0f} s")
