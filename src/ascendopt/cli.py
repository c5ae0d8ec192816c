"""The ``ascendopt`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from ascendopt.backends.sim.soc import DEFAULT_SOC, SocError
from ascendopt.cases import CaseError, load_op_cases
from ascendopt.operator import Operator, OperatorError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="AscendOptimizer: make AscendC operators fast, driven by execution.")
console = Console()
err_console = Console(stderr=True)

_STATUS_STYLE = {"ok": "green", "wrong_result": "red", "compile_error": "red", "runtime_error": "red",
                 "tiling_error": "red", "timeout": "yellow", "case_error": "yellow"}


def _fail(msg: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _load(op_dir: Path, cases_files: list[Path], golden: Optional[str], names: list[str]):
    try:
        op = Operator.load(op_dir)
        cases = load_op_cases(op_dir, cases_files, golden)
    except (OperatorError, CaseError) as e:
        _fail(str(e))
    if not cases:
        _fail(f"{op_dir}: no cases (expected tests/st/*.json or --cases FILE.json)")
    if names:
        known = {c.name for c in cases}
        bad = [n for n in names if n not in known]
        if bad:
            _fail(f"unknown case(s) {', '.join(bad)}; available: {', '.join(sorted(known))}")
        cases = [c for c in cases if c.name in names]
    return op, cases


def _backend(soc: str, noise_pct: float = 0.0, noise_seed: int = 0):
    from ascendopt.backends.sim.backend import SimBackend

    try:
        return SimBackend(soc, noise_pct=noise_pct, noise_seed=noise_seed)
    except (SocError, ValueError) as e:
        _fail(str(e))


@app.command()
def run(
    op_dir: Path = typer.Argument(..., help="Operator directory (cann-ops layout)."),
    case: List[str] = typer.Option([], "--case", help="Run only this case (repeatable)."),
    cases: List[Path] = typer.Option([], "--cases", help="Extra msopst case file(s)."),
    golden: Optional[str] = typer.Option(None, "--golden", help="FILE.py:FUNC golden overriding the case files'."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc", help="SoC to simulate."),
    rtol: Optional[float] = typer.Option(None, "--rtol", help="Relative tolerance (default: per-dtype policy)."),
    atol: Optional[float] = typer.Option(None, "--atol", help="Absolute tolerance (default: per-dtype policy)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the generated inputs."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds allowed per case run."),
    noise_pct: float = typer.Option(0.0, "--noise-pct", help="Seeded timing noise (percent std) for tests."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Build an operator on the simulator, run its cases and check them against the golden."""
    from ascendopt.evaluate.check import check_operator

    op, selected = _load(op_dir, cases, golden, case)
    backend = _backend(soc, noise_pct, seed)
    if as_json:
        results = check_operator(backend, op, selected, seed=seed, rtol=rtol, atol=atol, timeout_s=timeout)
    else:
        with console.status(f"building and running {len(selected)} case(s) of {op.op_type} on {soc} ...") as st:
            done = []

            def progress(r):
                done.append(r)
                st.update(f"{len(done)}/{len(selected)} cases of {op.op_type} done ...")

            results = check_operator(backend, op, selected, seed=seed, rtol=rtol, atol=atol, timeout_s=timeout,
                                     on_result=progress)
    failed = sum(r.status != "ok" for r in results)
    if as_json:
        print(json.dumps({"op": op.op_type, "soc": soc, "passed": len(results) - failed, "failed": failed,
                          "cases": [r.to_dict() for r in results]}, indent=2))
    else:
        table = Table(title=f"{op.op_type} on {soc}")
        for col in ("case", "status", "max abs err", "max rel err", "mismatch", "blocks", "key", "time (us)"):
            table.add_column(col, justify="left" if col in ("case", "status") else "right")
        for r in results:
            style = _STATUS_STYLE.get(r.status, "white")
            fmt = lambda v, f="{:.3g}": "-" if v is None else f.format(v)  # noqa: E731
            table.add_row(r.name, f"[{style}]{r.status}[/{style}]", fmt(r.max_abs_err), fmt(r.max_rel_err),
                          fmt(r.mismatch_ratio, "{:.2%}"), str(r.block_dim or "-"), str(r.tiling_key),
                          fmt(r.task_duration_us, "{:.2f}"))
        console.print(table)
        for r in results:
            if r.status != "ok" or r.message:
                console.print(f"[bold]{r.name}[/bold] {r.status}{' (' + r.error_kind + ')' if r.error_kind else ''}: "
                              f"{r.message.strip()[:4000]}", markup=False, highlight=False)
        console.print(f"{len(results) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)


@app.command("ops")
def list_ops(
    root: Path = typer.Argument(Path("ops"), help="Directory holding operator directories."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List the operators under a directory (any depth) with their cases."""
    if not root.is_dir():
        _fail(f"{root}: not a directory")
    rows = []
    for host in sorted(root.rglob("op_host")):
        d = host.parent
        try:
            op = Operator.load(d)
            cases = load_op_cases(d)
            dts = sorted({t.dtype for c in cases for t in c.inputs})
            rows.append({"path": str(d), "op_type": op.op_type, "cases": len(cases), "dtypes": dts})
        except (OperatorError, CaseError) as e:
            rows.append({"path": str(d), "op_type": "?", "cases": 0, "dtypes": [], "error": str(e)})
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title=f"operators under {root}")
    for col in ("path", "op type", "cases", "dtypes"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["path"], r["op_type"], str(r["cases"]), ", ".join(r["dtypes"]) or r.get("error", ""))
    console.print(table)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
