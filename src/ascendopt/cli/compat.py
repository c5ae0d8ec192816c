"""``ascendopt compat``: every operator under a directory (or of a suite) built and run on the
simulator, one line each, then totals by category and by cause."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ascendopt.cli.common import backend, console, err_console, fail
from ascendopt.cli.options import UNSAFE_NO_SANDBOX, positive

_ORIGIN_STYLE = {"simulator": "magenta", "operator": "yellow", "run": "red", "cases": "cyan"}
_STATUS_STYLE = {"pass": "green", "pass*": "yellow", "unchecked": "cyan", "no_cases": "cyan"}


def compat_command(
    op_dir: Optional[Path] = typer.Argument(None, help="A cann-ops checkout, its src/, a category directory or "
                                            "one operator: every directory below holding op_host/ and "
                                            "op_kernel/ is an operator."),
    suite: Optional[str] = typer.Option(None, "--suite", help="Instead of a directory: 'own', a shipped suite "
                                        "(cannops) or a manifest FILE.toml, with its goldens and cases."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where the suite's operator dirs are (e.g. a cann-ops "
                                       "checkout's src/)."),
    goldens: List[Path] = typer.Option([], "--goldens", help="FILE.py of numpy goldens: an operator whose directory "
                                       "name (or OpDef type in snake case) names a function uses it. Repeatable."),
    only: Optional[str] = typer.Option(None, "--only", help="Only these operators (comma-separated directory names)."),
    workers: int = typer.Option(1, "--workers", min=1, help="Operators checked at once."),
    timeout: float = typer.Option(300.0, "--timeout", callback=positive,
                                  help="Seconds per operator (build and all cases); then it is killed."),
    case_timeout: float = typer.Option(60.0, "--case-timeout", callback=positive, help="Seconds per case run."),
    max_cases: Optional[int] = typer.Option(None, "--max-cases", min=1, help="Check at most N cases per operator."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of lines and tables."),
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """How many operators build and pass on the simulator, and why the others do not.

    Each operator runs in its own child process (killed with its process group at
    --timeout). One line per operator as it finishes: status, cases passed/total, seconds and
    the cause: a toolkit API or header the simulator lacks, an error in the operator's own
    code (file:line), a typed runtime failure, a wrong result. Then totals by category and by
    cause. Exit 0 whenever it ran (whatever the pass rate), 2 for a usage error, 130 when
    interrupted (what finished is still reported)."""
    from ascendopt.hw.soc import DEFAULT_SOC
    from ascendopt.compat import CompatConfig, TargetError, dir_targets, document, select, suite_targets, with_goldens

    if (op_dir is None) == (suite is None):
        fail("give a directory of operators or --suite NAME|FILE (not both)")
    if src is not None and suite is None:
        fail("--src goes with --suite")
    try:
        targets = dir_targets(op_dir) if op_dir is not None else suite_targets(suite, src)
        targets = with_goldens(select(targets, (only or "").split(",")), goldens)
    except TargetError as e:
        fail(str(e))
    backend(DEFAULT_SOC, unsafe_no_sandbox=unsafe_no_sandbox)  # no sandbox and no --unsafe-no-sandbox: exit 2
    cfg = CompatConfig(workers=workers, timeout_s=timeout, case_timeout_s=case_timeout, max_cases=max_cases,
                       unsafe_no_sandbox=unsafe_no_sandbox)
    config = {"root": str(op_dir) if op_dir is not None else None, "suite": suite, "src": str(src) if src else None,
              "goldens": [str(g) for g in goldens], "only": only, **cfg.to_dict()}
    if as_json:
        run = _run_with_progress(targets, cfg, err_console, print_rows=False)
        print(json.dumps(document(run.rows, wall_s=run.wall_s, interrupted=run.interrupted, config=config), indent=1))
    else:
        run = _run_with_progress(targets, cfg, console, print_rows=True)
        print_totals(run, len(targets))
    raise typer.Exit(130 if run.interrupted else 0)


def _run_with_progress(targets, cfg, out, print_rows: bool):
    """Runs the targets under a rich progress bar on ``out``; prints each row as it finishes."""
    from ascendopt.compat import run_targets

    progress = Progress(TextColumn("[bold]compat"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.description}"), console=out, transient=True,
                        disable=not out.is_terminal)
    running: list[str] = []
    with progress:
        task = progress.add_task("", total=len(targets))

        def started(t):
            running.append(t.name)
            progress.update(task, description=", ".join(running[-3:]))

        def finished(row):
            if row.op in running:
                running.remove(row.op)
            progress.update(task, advance=1, description=", ".join(running[-3:]))
            if print_rows:
                print_row(row, progress.console)

        return run_targets(targets, cfg, on_row=finished, on_start=started)


def print_row(row, out=console) -> None:
    """One operator's line, its status coloured."""
    name, status, rest = row.line_parts()
    out.print(Text.assemble(name, (status, _STATUS_STYLE.get(row.shown_status, "red")), rest),
              soft_wrap=True, highlight=False)


def print_totals(run, n_targets: int) -> None:
    """Totals by category and by cause, the wall time; what finished when interrupted."""
    from ascendopt.compat import category_totals, cause_totals

    rows = run.rows
    if run.interrupted:
        console.print(f"[yellow]interrupted[/yellow]: {len(rows)} of {n_targets} operators finished")
    if not rows:
        return
    table = Table(title="by category", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("category", "total", "built", "ran", "passed"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for cat, c in category_totals(rows).items():
        table.add_row(cat, *(str(c[k]) for k in ("total", "built", "ran", "passed")),
                      style="bold" if cat == "all" else None)
    console.print(table)
    causes = cause_totals(rows)
    if causes:
        ct = Table(title="by cause", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
        ct.add_column("ops", justify="right")
        ct.add_column("origin")
        ct.add_column("cause", overflow="fold")
        for c in causes:
            style = _ORIGIN_STYLE.get(c["origin"], "white")
            ct.add_row(str(c["count"]), Text(c["origin"], style=style), Text(c["cause"]))
        console.print(ct)
    console.print(f"wall time {run.wall_s:.0f} s")
