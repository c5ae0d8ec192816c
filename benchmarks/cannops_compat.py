"""How many cann-ops operators build and pass their own msopst cases on the simulator.

    python benchmarks/cannops_compat.py --src /path/to/cann-ops [math activation ...]
        [--only abs,swish] [--timeout 300] [--case-timeout 60] [--workers 1] [--max-cases N]
        [--out benchmarks/results/cannops_compat.json]

The checkout comes from ``--src`` or the environment variable ``CANNOPS_DIR``; the
positional arguments are categories under its ``src/`` (default: math activation). Every
directory there holding ``op_host/`` is one operator. Each operator runs in its own child
process (this script with ``--one DIR``), killed with its process group at ``--timeout``
seconds, and is checked the way ``ascendopt run`` checks it: ``Operator.load``,
``load_op_cases``, ``check_operator`` on a ``SimBackend``.

One line per operator: ``status``, case counts and the first error line; then totals by
category and by cause. Statuses: ``pass`` (every case ok), ``fail_<case status>`` (built,
at least one case failed: ``fail_wrong_result``, ``fail_runtime_error``, ...),
``compile_error``, ``load_error`` (not an operator to us: no OP_ADD, no kernel entry),
``case_error`` (case files we cannot parse), ``timeout``, ``crash``; ``ran_unchecked``
(every case ran, but its golden file imports TensorFlow/PyTorch, absent here, so outputs
were not compared); ``built_no_cases`` (no case files: built once with the first dtype of
every OpDef input/output), ``no_cases``. Totals per category: total, with cases, built,
ran (pass + ran_unchecked), passed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DEFAULT_CATEGORIES = ("math", "activation")
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "cannops_compat.json"


def _first_error_line(text: str) -> str:
    """The first compiler ``error:`` line, else the first non-empty line, shortened."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln or "error " in ln.lower()[:40]:
            return ln[:240]
    return lines[0][:240] if lines else ""


def check_one(op_dir: Path, case_timeout_s: float, max_cases: int | None) -> dict:
    """Checks one operator in this process; returns a JSON-able summary."""
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.cases import CaseError, load_op_cases
    from ascendopt.evaluate.check import check_operator
    from ascendopt.operator import Operator, OperatorError

    row: dict = {"op": op_dir.name, "category": op_dir.parent.name, "status": "", "built": False,
                 "cases": 0, "passed": 0, "error": "", "error_kind": ""}
    try:
        op = Operator.load(op_dir)
    except (OperatorError, OSError) as e:
        row.update(status="load_error", error=_first_error_line(str(e)))
        return row
    try:
        cases = load_op_cases(op_dir)
    except (CaseError, OSError, ValueError, KeyError, TypeError) as e:
        row.update(status="case_error", error=_first_error_line(f"{type(e).__name__}: {e}"))
        return row
    backend = SimBackend()
    if not cases:
        return _build_only(backend, op, row)
    if max_cases:
        cases = cases[:max_cases]
    cases, unchecked = _drop_unimportable_goldens(cases)
    results = check_operator(backend, op, cases, timeout_s=case_timeout_s)
    row["cases"] = len(results)
    row["passed"] = sum(r.status == "ok" for r in results)
    row["built"] = not any(r.status == "compile_error" for r in results)
    bad = [r for r in results if r.status != "ok"]
    if not bad:
        row["status"] = "ran_unchecked" if unchecked else "pass"
        if unchecked:
            row["error"] = unchecked
    elif not row["built"]:
        row["status"] = "compile_error"
    else:
        row["status"] = f"fail_{bad[0].status}"
    if bad:
        first = next((r for r in bad if r.status == "compile_error"), bad[0])
        row["error"] = f"{first.name}: {_first_error_line(first.message)}"
        row["error_kind"] = first.error_kind
    return row


def _drop_unimportable_goldens(cases: list) -> tuple[list, str]:
    """Cases whose golden file cannot be imported here (TensorFlow, PyTorch) still run, with
    their outputs unchecked; returns them and the import error ('' when every golden loads)."""
    import dataclasses

    from ascendopt.cases import CaseError, load_golden

    reasons: dict[str, str] = {}
    for spec in {c.golden for c in cases if c.golden}:
        try:
            load_golden(spec)
        except CaseError as e:
            reasons[spec] = str(e).rsplit(": ", 1)[-1]
    if not reasons:
        return cases, ""
    out = [dataclasses.replace(c, golden=None) if c.golden in reasons else c for c in cases]
    return out, "golden not importable: " + "; ".join(sorted(set(reasons.values())))


_OPDEF_TENSOR = re.compile(r'\b(Input|Output)\s*\(\s*"(\w+)"\s*\)(?:(?!\b(?:Input|Output)\s*\().)*?'
                           r'\.DataType\s*\(\s*\{\s*(?:ge::)?(DT_\w+)', re.S)


def _build_only(backend, op, row: dict) -> dict:
    """No cases: build once with the first dtype of every OpDef input/output."""
    from ascendopt.dtypes import CaseError, canonical_dtype

    dtypes: dict[str, str] = {}
    for rel in op.host_files():
        for _, name, dt in _OPDEF_TENSOR.findall(op.files[rel]):
            try:
                dtypes.setdefault(name, canonical_dtype(dt))
            except CaseError:
                dtypes.setdefault(name, "float32")
    if not dtypes:
        row.update(status="no_cases", error="no tests/st/*.json cases and no OpDef dtypes to build with")
        return row
    b = backend.build(op, dtypes)
    row["built"] = b.ok
    row.update(status="built_no_cases" if b.ok else "compile_error",
               error="" if b.ok else f"build: {_first_error_line(b.error)}")
    return row


def _run_child(op_dir: Path, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--one", str(op_dir), "--case-timeout", str(args.case_timeout)]
    if args.max_cases:
        cmd += ["--max-cases", str(args.max_cases)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the child's whole group: compilers and runners too
        proc.communicate()
        row = {"op": op_dir.name, "category": op_dir.parent.name, "status": "timeout", "built": False,
               "cases": 0, "passed": 0, "error": f"no result within {args.timeout:.0f} s", "error_kind": ""}
    else:
        last = out.strip().splitlines()[-1] if out.strip() else ""
        try:
            row = json.loads(last)
        except json.JSONDecodeError:
            row = {"op": op_dir.name, "category": op_dir.parent.name, "status": "crash", "built": False,
                   "cases": 0, "passed": 0, "error": _first_error_line(err.strip().splitlines()[-1] if err.strip()
                                                                        else f"exit {proc.returncode}"),
                   "error_kind": ""}
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _cause(row: dict) -> str:
    """A coarse cause label for the totals: status plus what the first error names."""
    st, err = row["status"], row.get("error", "")
    if st == "pass":
        return "pass"
    if st == "compile_error":
        m = re.search(r"fatal error: ([\w/.]+): No such file", err)
        if m:
            return f"compile_error: missing header {m.group(1)}"
        m = re.search(r"[‘'](\w+)(?:<[^’']*>)?[’'] (?:was not declared|is not a member|does not name a type"
                      r"|has not been declared|in namespace)", err)
        if m:
            return f"compile_error: missing name {m.group(1)}"
        m = re.search(r"has no member named [‘'](\w+)[’']", err)
        if m:
            return f"compile_error: missing member {m.group(1)}"
        m = re.search(r"error: (.{0,50})", err)
        return f"compile_error: {m.group(1) if m else err[:50]}"
    if row.get("error_kind"):
        return f"{st} ({row['error_kind']})"
    return f"{st}: {err.split(':', 1)[-1].strip()[:60]}" if st in ("load_error", "case_error") else st


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("categories", nargs="*", default=list(DEFAULT_CATEGORIES))
    ap.add_argument("--src", default=os.environ.get("CANNOPS_DIR"), help="cann-ops checkout (or CANNOPS_DIR)")
    ap.add_argument("--only", default="", help="comma-separated operator directory names")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per operator (build + all cases)")
    ap.add_argument("--case-timeout", type=float, default=60.0, help="seconds per case run")
    ap.add_argument("--max-cases", type=int, default=0, help="check at most this many cases per operator")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(check_one(args.one, args.case_timeout, args.max_cases or None)))
        return
    if not args.src:
        ap.error("no cann-ops checkout: pass --src DIR or set CANNOPS_DIR")
    src = Path(args.src) / "src"
    only = {s for s in args.only.split(",") if s}
    ops = [d for cat in args.categories for d in sorted((src / cat).iterdir())
           if d.is_dir() and (d / "op_host").is_dir() and (not only or d.name in only)]
    t0 = time.perf_counter()
    rows: list[dict] = []
    with ThreadPoolExecutor(max(1, args.workers)) as pool:
        for row in pool.map(lambda d: _run_child(d, args), ops):
            rows.append(row)
            print(f"{row['category'] + '/' + row['op']:<52} {row['status']:<22} {row['passed']:>3}/{row['cases']:<3}"
                  f" {row['seconds']:>6.1f}s  {row['error'][:160]}", flush=True)
    total_s = time.perf_counter() - t0
    by_cat: dict[str, dict[str, int]] = {}
    for r in rows:
        c = by_cat.setdefault(r["category"], {"total": 0, "with_cases": 0, "built": 0, "ran": 0, "passed": 0})
        c["total"] += 1
        c["with_cases"] += r["cases"] > 0
        c["built"] += bool(r["built"])
        c["ran"] += r["status"] in ("pass", "ran_unchecked")
        c["passed"] += r["status"] == "pass"
    causes = Counter(_cause(r) for r in rows if r["status"] not in ("pass", "ran_unchecked", "built_no_cases"))
    print()
    for cat, c in by_cat.items():
        print(f"{cat:<12} total {c['total']:>3}  with cases {c['with_cases']:>3}  built {c['built']:>3}"
              f"  ran {c['ran']:>3}  passed {c['passed']:>3}")
    print(f"wall time {total_s:.0f} s")
    print("causes:")
    for cause, n in causes.most_common():
        print(f"  {n:>3}  {cause}")
    if not only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"version": 1, "categories": by_cat, "wall_s": round(total_s, 1),
                                        "causes": dict(causes.most_common()), "ops": rows}, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
