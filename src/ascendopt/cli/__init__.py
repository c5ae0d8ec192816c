"""The ``ascendopt`` command line."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cases import CaseError, load_op_cases
from ascendopt.cli.options import BACKEND, NPU_MODE, UNSAFE_NO_SANDBOX, positive
from ascendopt.operator import Operator, OperatorError
from ascendopt.session import RunSpec

from ascendopt.cli.common import STATUS_STYLE as _STATUS_STYLE
from ascendopt.cli.common import open_session, validated
from ascendopt.cli.common import console
from ascendopt.cli.common import fail as _fail
from ascendopt.cli.common import load as _load

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="AscendOptimizer: make AscendC operators fast, driven by execution.")


@app.command()
def run(
    op_dir: Optional[str] = typer.Argument(None, help="Operator directory (cann-ops layout); with --suite, the "
                                           "name of one of the suite's operators (default: all of them)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="'own', a shipped suite (cannops), a manifest "
                                        "FILE.toml or a directory of operators."),
    src: Optional[Path] = typer.Option(None, "--src", help="Where a suite manifest's operator dirs are "
                                       "(e.g. a cann-ops checkout's src/)."),
    case: List[str] = typer.Option([], "--case", help="Run only this case (repeatable)."),
    cases: List[Path] = typer.Option([], "--cases", help="Extra msopst case file(s)."),
    golden: Optional[str] = typer.Option(None, "--golden", help="FILE.py:FUNC golden overriding the case files'."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc", help="SoC to simulate."),
    rtol: Optional[float] = typer.Option(None, "--rtol", help="Relative tolerance (default: per-dtype policy)."),
    atol: Optional[float] = typer.Option(None, "--atol", help="Absolute tolerance (default: per-dtype policy)."),
    seed: int = typer.Option(RunSpec.seed, "--seed", min=0, help="Seed of the generated inputs."),
    timeout: float = typer.Option(RunSpec.timeout_s, "--timeout", callback=positive, help="CPU seconds allowed per case run (the runner's; not moved by machine load)."),
    noise_pct: float = typer.Option(RunSpec.noise_pct, "--noise-pct", min=0.0, help="Seeded timing noise (percent std) for tests."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    strict: bool = typer.Option(False, "--strict", help="Fail a case on a warning-level hazard (a race, a GM "
                                "read past a tensor's end) instead of reporting it."),
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Build an operator on the simulator (or ``--backend npu``: on the device), run its cases and
    check them against the golden.

    Hazards the hardware tolerates (a race, a GM read or write a little past a tensor) are
    warnings: the case still passes, the table marks it ``ok*`` and lists them (``warnings`` per
    case in JSON); ``--strict`` fails such a case instead."""
    from ascendopt.evaluate.check import check_operator

    targets = _run_targets(op_dir, suite, src, cases, golden, case)
    backends = {}  # per SoC: the run's, or the one a suite says an operator is written for
    docs, any_failed = [], False
    for op, selected, op_soc in targets:
        want = op_soc or soc
        if want not in backends:
            backends[want] = _session(RunSpec("run", backend=backend_kind, soc=want, seed=seed, db=None, bank=None,
                                              timeout_s=timeout, noise_pct=noise_pct, npu_mode=npu_mode,
                                              unsafe_no_sandbox=unsafe_no_sandbox)).backend
        backend = backends[want]
        name = backend.soc.name if backend.soc is not None else want
        doc, failed = _run_one(check_operator, backend, op, selected, name,
                               _Check(seed, rtol, atol, timeout, strict), as_json)
        docs.append(doc)
        any_failed = any_failed or failed > 0
    if as_json:
        print(json.dumps(docs[0] if suite is None else {"suite": suite, "ops": docs}, indent=2))
    raise typer.Exit(1 if any_failed else 0)


def _session(spec: RunSpec):
    """The :class:`~ascendopt.session.Session` of ``run`` / ``profile``: composed as ``optimize``
    composes its own (the backend under the sandbox policy, the SoC, the seed; a bad spec is a
    usage error)."""
    return open_session(validated(spec))


def _run_targets(op_dir, suite, src, cases, golden, case):
    """(operator, cases, soc) of ``run``: one directory, or a suite's operators (its goldens,
    case files, own-cases setting and SoC, "" when it names none; ``op_dir`` then names one)."""
    from ascendopt.cases import CaseError
    from ascendopt.operator import Operator, OperatorError
    from ascendopt.suites import SuiteError, load_suite

    if suite is None:
        if op_dir is None:
            _fail("give an operator directory or --suite")
        if src is not None:
            _fail("--src goes with --suite")
        return [(*_load(Path(op_dir), cases, golden, case), "")]
    try:
        s = load_suite(suite, src)
    except SuiteError as e:
        _fail(str(e))
    ops = [o for o in s.ops if op_dir is None or o.name == op_dir or str(o.dir) == op_dir]
    if not ops:
        _fail(f"suite {s.name!r} has no operator {op_dir!r}; it has: {', '.join(o.name for o in s.ops)}")
    out = []
    for o in ops:
        try:
            op = Operator.load(o.dir)
            selected = o.load_cases(case or None) if not cases and not golden else \
                _load(o.dir, cases, golden or o.golden, case)[1]
        except (OperatorError, CaseError) as e:
            _fail(f"{o.name}: {e}")
        if not selected:
            _fail(f"{o.name}: no cases (the suite names none and {o.dir}/tests/st has none)")
        out.append((op, selected, o.soc or ""))
    return out


@dataclass(frozen=True)
class _Check:
    """How ``ascendopt run`` checks the cases: input seed, tolerances, timeout, strictness."""

    seed: int
    rtol: Optional[float]
    atol: Optional[float]
    timeout: float
    strict: bool


def _run_one(check_operator, backend, op, selected, soc, chk: _Check, as_json: bool):
    """Runs and prints one operator's cases; returns (JSON document, number failed)."""
    from ascendopt.evaluate.check import CheckConfig

    seed, strict = chk.seed, chk.strict
    cfg = CheckConfig(rtol=chk.rtol, atol=chk.atol, timeout_s=chk.timeout, strict=strict)
    if as_json:
        results = check_operator(backend, op, selected, seed, cfg)
    else:
        with console.status(f"building and running {len(selected)} case(s) of {op.op_type} on {soc} ...") as st:
            done = []

            def progress(r):
                done.append(r)
                st.update(f"{len(done)}/{len(selected)} cases of {op.op_type} done ...")

            results = check_operator(backend, op, selected, seed, cfg, on_result=progress)
    failed = sum(r.status != "ok" for r in results)
    warned = sum(r.status == "ok" and bool(r.warnings) for r in results)
    doc = {"op": op.op_type, "dir": str(op.root), "soc": soc, "passed": len(results) - failed, "failed": failed,
           "warned": warned, "strict": strict, "cases": [r.to_dict() for r in results]}
    if not as_json:
        table = Table(title=f"{op.op_type} on {soc}", box=box.SIMPLE_HEAD, pad_edge=False,
                      collapse_padding=True)  # no column rules, narrow gaps: fits 80 columns
        for col in ("case", "status", "abs err", "rel err", "mismatch", "blocks", "key", "us"):
            table.add_column(col, justify="left" if col in ("case", "status") else "right", overflow="fold",
                             no_wrap=col in ("case", "status"))  # case names stay whole: --case takes them
        for r in results:
            style = "yellow" if r.status == "ok" and r.warnings else _STATUS_STYLE.get(r.status, "white")
            shown = "ok*" if r.status == "ok" and r.warnings else r.status
            fmt = lambda v, f="{:.2g}": "-" if v is None else f.format(v)  # noqa: E731
            table.add_row(r.name, f"[{style}]{shown}[/{style}]", fmt(r.max_abs_err), fmt(r.max_rel_err),
                          fmt(r.mismatch_ratio, "{:.1%}"), str(r.block_dim or "-"), str(r.tiling_key),
                          fmt(r.task_duration_us, "{:.2f}"))
        console.print(table)
        for r in results:
            if r.status != "ok" or r.message:
                kind = f" ({r.error_kind})" if r.error_kind else ""
                console.print(Text.assemble((r.name, "bold"), f" {r.status}{kind}: {r.message.strip()[:4000]}"),
                              highlight=False)
            for w in r.warnings:
                times = f", {w.get('count', 1)}x" if w.get("count", 1) > 1 else ""
                console.print(Text.assemble((r.name, "bold"), (f" warning ({w['kind']}{times})", "yellow"),
                                            f": {str(w.get('message', '')).strip()[:2000]}"), highlight=False)
        console.print(f"{len(results) - failed} passed" + (f" ({warned} with warnings: ok*)" if warned else "")
                      + f", {failed} failed")
    return doc, failed


def _case_elements(case) -> int:
    total = 0
    for t in case.inputs:
        n = 1
        for d in t.shape:
            n *= int(d)
        total += n
    return total


@app.command("profile")
def profile_cmd(
    op_dir: Path = typer.Argument(..., help="Operator directory (cann-ops layout)."),
    case: Optional[str] = typer.Option(None, "--case", help="Case to profile (default: largest by input elements)."),
    cases: List[Path] = typer.Option([], "--cases", help="Extra msopst case file(s)."),
    golden: Optional[str] = typer.Option(None, "--golden", help="FILE.py:FUNC golden overriding the case files'."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc", help="SoC to simulate."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default ./profile_<op>_<case>/)."),
    seed: int = typer.Option(RunSpec.seed, "--seed", min=0, help="Seed of the generated inputs."),
    timeout: float = typer.Option(RunSpec.timeout_s, "--timeout", callback=positive, help="Seconds allowed for the run."),
    top: int = typer.Option(8, "--top", min=1, help="Instructions to list by cycles."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Profile one case (simulator, or ``--backend npu``: msprof op on the device): msprof-format
    files plus a bottleneck summary."""
    import tempfile

    from ascendopt.evaluate.check import CheckConfig, case_dtypes, check_case
    from ascendopt.operator import snake_case
    from ascendopt.profile import ProfileError

    op, selected = _load(op_dir, cases, golden, [case] if case else [])
    chosen = max(selected, key=_case_elements) if not case else selected[0]
    backend = _session(RunSpec("profile", backend=backend_kind, soc=soc, seed=seed, db=None, bank=None,
                               timeout_s=timeout, npu_mode=npu_mode, unsafe_no_sandbox=unsafe_no_sandbox)).backend
    soc = backend.soc.name if backend.soc is not None else soc
    try:
        op_type = op.op_type
        kernel = op.kernel_entry
    except OperatorError as e:
        _fail(str(e))
    out_dir = out or Path(f"profile_{snake_case(op_type)}_{chosen.name}")
    runs = []
    with tempfile.TemporaryDirectory(prefix="aoprof-") as tmp:
        trace_csv = Path(tmp) / "trace.csv"

        class _Tracing:  # passes trace_path through check_case to the backend
            name = backend.name

            def run(self, build, op_, case_, inputs, timeout_s=60.0):
                return backend.run(build, op_, case_, inputs, timeout_s=timeout_s, trace_path=trace_csv)

            measure = run

        def work():
            build = backend.build(op, case_dtypes(chosen))
            runner = _Tracing() if backend.name == "sim" else backend  # the simulator's instruction trace
            return check_case(runner, op, chosen, build, seed, CheckConfig(timeout_s=timeout, measure=True),
                              run_result_hook=runs.append)

        if as_json:
            result = work()
        else:
            with console.status(f"building and profiling {op_type} case {chosen.name} on {soc} ..."):
                result = work()
        rr = runs[0] if runs else None
        if rr is None or rr.status.value != "ok":
            if as_json:
                print(json.dumps({"op": op_type, "soc": soc, "case": chosen.name, "check": result.to_dict(),
                                  "profile": None}, indent=2))
            else:
                _fail(f"{op_type} case {chosen.name}: {result.status}"
                      f"{' (' + result.error_kind + ')' if result.error_kind else ''}: {result.message.strip()[:4000]}",
                      code=1)
            raise typer.Exit(1)
        try:
            prof = backend.load_profile(rr, kernel, op_type)
            prof.meta.update({"case": chosen.name, "op_dir": str(op_dir), "check_status": result.status})
            prof.write(out_dir)
        except (ProfileError, OSError) as e:
            _fail(f"cannot write the profile to {out_dir}: {e}")
    summ = prof.summary(backend.soc, top=top)
    ok = result.status == "ok"
    if as_json:
        print(json.dumps({"op": op_type, "soc": soc, "case": chosen.name, "out": str(out_dir),
                          "check": result.to_dict(), "summary": summ.to_dict()}, indent=2))
        raise typer.Exit(0 if ok else 1)
    style = _STATUS_STYLE.get(result.status, "white")
    console.print(f"[bold]{op_type}[/bold] case [bold]{chosen.name}[/bold] on {soc}: "
                  f"[{style}]{result.status}[/{style}]")
    if not ok:
        console.print(f"  {result.message.strip()[:2000]}", markup=False, highlight=False)
    fmt_us = lambda v: "-" if v is None else f"{v:.3f} us"  # noqa: E731
    console.print(f"task duration {summ.task_duration_us:.3f} us (kernel {summ.kernel_time_us:.3f} us), "
                  f"block dim {summ.block_dim}"
                  + (f", mix block dim {summ.mix_block_dim}" if summ.mix_block_dim is not None else "")
                  + f", op type {summ.op_type}")
    table = Table(title="pipe busy ratio (busy / core time)")
    table.add_column("pipe", overflow="fold")
    table.add_column("mean over cores", justify="right", overflow="fold")
    table.add_column(f"slowest core (block {summ.slowest_block})", justify="right", overflow="fold")
    for pipe in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"):
        if pipe in summ.pipe_ratio_mean or pipe in summ.pipe_ratio_slowest:
            m, s_ = summ.pipe_ratio_mean.get(pipe), summ.pipe_ratio_slowest.get(pipe)
            table.add_row(pipe, "-" if m is None else f"{m:.1%}", "-" if s_ is None else f"{s_:.1%}")
    console.print(table)
    console.print(f"bound: [bold]{summ.bound}[/bold] ({summ.bound_ratio:.0%})")
    terms = ", ".join(f"{k} {fmt_us(v)}" for k, v in summ.roofline_terms_us.items())
    console.print(f"roofline: lower bound {summ.roofline_us:.3f} us = {summ.roofline_limiter} term "
                  f"+ {summ.launch_overhead_us:.3f} us launch ({terms or 'no work counts'}); achieved "
                  + ("-" if summ.achieved_fraction is None else f"{summ.achieved_fraction:.1%}"))
    if summ.top_instructions:
        it = Table(title="top instructions by cycles (all cores)")
        for col in ("instruction", "pipe", "count", "cycles", "share"):
            it.add_column(col, justify="left" if col in ("instruction", "pipe") else "right", overflow="fold")
        for r in summ.top_instructions:
            it.add_row(r["name"], r["pipe"], str(r["count"]), f"{r['cycles']:.0f}", f"{r['share']:.1%}")
        console.print(it)
    for n in summ.notes:
        console.print(f"note: {n}", markup=False, highlight=False)
    files = ("OpBasicInfo.csv, PipeUtilization.csv, Memory.csv, ArithmeticUtilization.csv, simulator/trace.json, "
             "simulator/core*/…_instr_exe.csv") if backend.name == "sim" else "msprof op's CSVs"
    console.print(f"profile written to {out_dir}/ ({files})", markup=False, highlight=False)
    raise typer.Exit(0 if ok else 1)


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
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["path"], r["op_type"], str(r["cases"]), ", ".join(r["dtypes"]) or r.get("error", ""))
    console.print(table)


@app.command("records")
def records_cmd(
    args: List[str] = typer.Argument(None, metavar="[DB] | show DIGEST",
                                     help="Record database to list (default ./ascendopt.db), or `show DIGEST`."),
    run_id: Optional[int] = typer.Option(None, "--run", help="List the evaluations of this run."),
    db: Optional[Path] = typer.Option(None, "--db", help="Record database (default ./ascendopt.db)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """List recorded runs and evaluations, or show a candidate's sources and diff against its parent.

    `ascendopt records [DB] [--run ID] [--json]`; `ascendopt records show DIGEST [--db DB]`.
    """
    from ascendopt.evaluate.records import print_records, show_candidate
    from ascendopt.evaluate.store import DEFAULT_DB, SQLiteStore, StoreError

    args = list(args or [])
    show = bool(args) and args[0] == "show"
    if show and len(args) != 2:
        _fail("usage: ascendopt records show DIGEST [--db DB]")
    if not show and len(args) > 1:
        _fail("usage: ascendopt records [DB] [--run ID] [--json]")
    path = db or (Path(args[0]) if args and not show else DEFAULT_DB)
    try:
        with SQLiteStore(path, readonly=True) as store:
            if show:
                print(show_candidate(store, args[1]), end="")
            else:
                print_records(store, console, run_id, as_json)
    except StoreError as e:
        _fail(str(e))


from ascendopt.cli.tune import tune_command  # noqa: E402  (needs `app` helpers above)

app.command("tune")(tune_command)
from ascendopt.cli.rewind import rewind_command  # noqa: E402
from ascendopt.cli.bank import bank_app  # noqa: E402
from ascendopt.cli.llm import llm_app  # noqa: E402
from ascendopt.cli.optimize import optimize_command  # noqa: E402
from ascendopt.cli.bench import bench_command, bench_report_command  # noqa: E402
from ascendopt.cli.compat import compat_command  # noqa: E402
from ascendopt.cli.doctor import doctor_command  # noqa: E402

app.command("rewind")(rewind_command)
app.command("optimize")(optimize_command)
app.command("bench")(bench_command)
app.command("bench-report")(bench_report_command)
app.command("compat")(compat_command)
app.command("doctor")(doctor_command)
app.add_typer(bank_app, name="bank")
app.add_typer(llm_app, name="llm")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
