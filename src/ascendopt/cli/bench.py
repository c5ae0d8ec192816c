"""``ascendopt bench``: every (operator, method, seed) of a suite at one budget, resumable,
in parallel; metrics, budget curves and a self-contained report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cli.common import console, err_console, fail, require_npu
from ascendopt.cli.options import BACKEND, NPU_MODE, TIMEOUT, UNSAFE_NO_SANDBOX, UNSEEN_SHAPES


def _ints(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{what} must be a comma-separated list of integers, not {text!r}")
    if not vals:
        fail(f"{what} is empty")
    return vals


def _method_options(items: list[str], methods: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for it in items:
        head, sep, value = it.partition("=")
        m, dot, key = head.rpartition(".")
        if not sep or not dot or m not in methods:
            fail(f"--method-opt {it!r}: expected METHOD.OPTION=VALUE with METHOD among {', '.join(methods)}")
        try:
            v = json.loads(value)
        except json.JSONDecodeError:
            v = value
        out.setdefault(m, {})[key] = tuple(v) if isinstance(v, list) else v
    return out


def bench_command(
    suite: str = typer.Option("own", "--suite", help="'own' (this project's ops/), a shipped suite (cannops), a "
                              "manifest file or a directory of operators."),
    src: Optional[Path] = typer.Option(None, "--src", help="Checkout the suite's manifest refers to (e.g. cann-ops)."),
    budget: int = typer.Option(230, "--budget", help="Charged evaluations per (operator, method, seed)."),
    methods: str = typer.Option("full,stage1,stage1-noexp,stage2,bon,evolve", "--methods",
                                help="Comma-separated methods."),
    seeds: int = typer.Option(1, "--seeds", help="Seeds per method (0 .. K-1)."),
    levels: Optional[str] = typer.Option(None, "--levels", help="Only these levels, e.g. 1,2 (default: all)."),
    ops: Optional[str] = typer.Option(None, "--ops", help="Only operators whose name or suite path matches one "
                                      "of these comma-separated globs."),
    workers: int = typer.Option(1, "--workers", help="Pairs run concurrently."),
    executor: str = typer.Option("local", "--executor", help="local (process pool) or ray."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address",
                                              help="Ray cluster (default: start a local Ray with --workers CPUs)."),
    out: Path = typer.Option(Path("bench_out"), "--out",
                             help="Output directory (bench.db, runs/, bench.json, report.html)."),
    resume: bool = typer.Option(False, "--resume",
                                help="Continue the benchmark in --out (finished pairs are not rerun)."),
    method_opt: List[str] = typer.Option([], "--method-opt", help="METHOD.OPTION=VALUE (JSON value), repeatable."),
    llm: Optional[Path] = typer.Option(None, "--llm", help="LLM config file (default: offline rewriters)."),
    soc: str = typer.Option(DEFAULT_SOC, "--soc"),
    timeout: float = TIMEOUT,
    as_json: bool = typer.Option(False, "--json", help="Print bench.json to stdout."),
    unseen_shapes: int = UNSEEN_SHAPES,
    backend_kind: str = BACKEND,
    npu_mode: str = NPU_MODE,
    unsafe_no_sandbox: bool = UNSAFE_NO_SANDBOX,
) -> None:
    """Benchmark methods on a suite: GM speedup, fast_p, correctness, evaluations to the first
    gain, roofline share and budget curves per method and level."""
    from ascendopt.bench.methods import METHODS
    from ascendopt.bench.report import render
    from ascendopt.bench.runner import BenchConfig, BenchError, Runner, plan
    from ascendopt.evaluate.store import StoreError
    from ascendopt.suites import OWN_OPS, SuiteError, load_suite

    names = [m.strip() for m in methods.split(",") if m.strip()]
    bad = [m for m in names if m not in METHODS]
    if not names or bad:
        fail(f"unknown method(s) {', '.join(bad) or '(none given)'}; known: {', '.join(METHODS)}")
    if len(set(names)) != len(names):
        fail("--methods lists a method twice")
    if budget < 1:
        fail("--budget must be at least 1")
    if seeds < 1:
        fail("--seeds must be at least 1")
    if workers < 1:
        fail("--workers must be at least 1")
    if executor not in ("local", "ray"):
        fail(f"--executor must be local or ray, not {executor!r}")
    if executor == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            fail("--executor ray needs Ray: pip install 'ascendopt[ray]'")
    if llm is not None and not llm.is_file():
        fail(f"--llm {llm}: no such file")
    if backend_kind == "npu":
        _, npu_mode, soc = require_npu(unsafe_no_sandbox, npu_mode, soc)
        if npu_mode == "device" and (workers > 1 or executor != "local"):
            fail("--backend npu runs one pair at a time (--workers 1, --executor local): a measurement needs "
                 "the device to itself")
    elif npu_mode != "device":
        fail("--npu-mode is for --backend npu")
    from ascendopt import sandbox

    try:  # refuse now, not in every worker; workers apply the same policy
        sandbox.configure(sandbox.Sandbox(allow_unsafe=unsafe_no_sandbox))
        sandbox.current().require()
    except sandbox.SandboxUnavailable as e:
        fail(str(e))
    lv = _ints(levels, "--levels") if levels else None
    options = _method_options(method_opt, names)
    if src is not None and not src.is_dir():
        fail(f"--src {src}: not a directory")
    try:  # a manifest's operators carry its goldens, case files and benchmark cases into every pair
        resolved = load_suite(suite, src)
    except SuiteError as e:
        fail(str(e))
    root = OWN_OPS if suite == "own" else resolved.src if resolved.src is not None else \
        (Path(suite) if Path(suite).is_dir() else None)
    if out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a directory")
    cfg = BenchConfig(out=out, budget=budget, methods=names, seeds=list(range(seeds)), soc=soc, timeout_s=timeout,
                      workers=workers, executor=executor, ray_address=ray_address,
                      llm=None if llm is None else str(llm), resume=resume, options=options, suite=suite,
                      unsafe_no_sandbox=unsafe_no_sandbox, backend=backend_kind, npu_mode=npu_mode,
                      unseen_shapes=unseen_shapes)
    for m, o in options.items():
        unknown = set(o) - set(METHODS[m].options)
        if unknown:
            fail(f"--method-opt: {m} has no option(s) {', '.join(sorted(unknown))}; "
                 f"it has: {', '.join(METHODS[m].options) or 'none'}")
    pairs, skipped = plan(list(resolved.ops), cfg, root, lv, ops)
    if not pairs:
        fail("no operator matches --levels/--ops" + (f" ({len(skipped)} could not be loaded)" if skipped else ""))
    try:
        runner = Runner(cfg)
    except (BenchError, StoreError, OSError) as e:
        fail(str(e))
    interrupted = False
    try:
        if as_json:
            runner.run(pairs)
        else:
            with console.status("benchmark ...", spinner="dots") as st:
                done = [0]

                def event(kind, data, _st=st):
                    if kind == "plan":
                        console.print(f"{data['pairs']} pairs, {data['pairs'] - data['todo']} already finished, "
                                      f"{data['todo']} to run", highlight=False)
                    elif kind == "pair":
                        done[0] += 1
                        sp = data.get("speedup")
                        console.print(f"  {data['key']}: {data['status']}"
                                      + (f" {sp:.3f}x" if sp else "") + (f" {data['error']}" if data['error'] else ""),
                                      highlight=False, markup=False)
                        _st.update(f"benchmark: {done[0]} pair(s) done")

                runner.on_event = event
                runner.run(pairs)
    except KeyboardInterrupt:
        interrupted = True
    doc = runner.document(pairs, skipped)
    runner.close()
    try:
        (out / "bench.json").write_text(json.dumps(doc, indent=1, default=str))
        (out / "report.html").write_text(render(doc, title=f"ascendopt bench: {suite} at budget {budget}"))
    except OSError as e:
        fail(f"cannot write the report to {out}: {e}", 1)
    if as_json:
        print(json.dumps(doc, indent=1, default=str))
    else:
        _print_summary(doc)
        console.print(f"report: {out / 'report.html'}  numbers: {out / 'bench.json'}", highlight=False)
    if interrupted:
        err_console.print("[yellow]interrupted[/yellow]: the same command with --resume continues the benchmark")
        raise typer.Exit(130)
    if not doc["complete"]:
        raise typer.Exit(1)


def _print_summary(doc: dict) -> None:
    from rich.table import Table

    t = Table(title=f"all operators, budget {doc['budget']}")
    for c in ("method", "ops", "GM", "f1.0", "f1.2", "f1.5", "f2.0", "ok", "1st"):  # fits 80 columns
        t.add_column(c, justify="left" if c == "method" else "right", no_wrap=True)
    t.caption = "f<p>: share of operators faster than p x the reference; ok: correct share of charged " \
                "evaluations; 1st: evaluations to the first gain"
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    for m, by in doc["metrics"].items():
        g = by.get("all", {})
        t.add_row(m, f"{g.get('operators', 0):.0f}", "-" if g.get("gm_speedup") is None else f"{g['gm_speedup']:.3f}x",
                  *(pct(g.get(f"fast_{p}")) for p in (1.0, 1.2, 1.5, 2.0)), pct(g.get("correct_eval_rate")),
                  "-" if g.get("evals_to_first_improvement") is None else f"{g['evals_to_first_improvement']:.1f}")
    console.print(t)


def bench_report_command(
    out_dir: Path = typer.Argument(..., help="A bench output directory (its ledger.jsonl, else bench.json), or "
                                   "one of those files."),
    html_out: Optional[Path] = typer.Option(None, "--out", help="Where the page goes (default DIR/report_scale.html)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report's numbers as JSON."),
) -> None:
    """A report that reads at scale: sortable per-operator table (speedup, roofline share before,
    headroom captured per method), per-category summary and a plot of speedup against roofline share."""
    from ascendopt.bench.report_scale import document, render

    try:
        doc = document(out_dir)
    except (OSError, ValueError, KeyError) as e:
        fail(f"{out_dir}: {e}")
    target = html_out or ((out_dir if out_dir.is_dir() else out_dir.parent) / "report_scale.html")
    try:
        target.write_text(render(doc, title=f"ascendopt bench: {doc.get('suite') or out_dir}"))
    except OSError as e:
        fail(f"cannot write {target}: {e}", 1)
    if as_json:
        print(json.dumps(doc, indent=1, default=str))
        return
    from rich.table import Table

    t = Table(title=f"{len(doc['operators'])} operators by category")
    for c in ("category", "method", "ops", "GM", "f1.0", "f1.2", "f2.0", "headroom"):
        t.add_column(c, justify="left" if c in ("category", "method") else "right", no_wrap=True)
    t.caption = "f<p>: share of operators faster than p x the reference; headroom: median (t_ref - t_best) / " \
                "(t_ref - t_roof)"
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    for cat, by_m in doc["categories"].items():
        for m, s in by_m.items():
            t.add_row(cat, m, str(s["operators"]), f"{s['gm_speedup']:.3f}x",
                      *(pct(s[f"fast_{p}"]) for p in (1.0, 1.2, 2.0)), pct(s["headroom_captured_median"]))
    console.print(t)
    console.print(f"report: {target}", highlight=False)
