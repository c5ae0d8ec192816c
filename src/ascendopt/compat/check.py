"""Checks one operator in this process (``python -m ascendopt.compat.check JOB OUT``: the
child process :mod:`ascendopt.compat.runner` starts per operator) the way ``ascendopt run``
checks it — ``Operator.load``, its cases, ``check_operator`` on a ``SimBackend`` — and
turns the outcome into a :class:`~ascendopt.compat.report.Row` with its cause."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

from ascendopt.compat.causes import CASES, RUN, SIMULATOR, classify_compile_error
from ascendopt.compat.report import Row
from ascendopt.compat.targets import Target


def first_line(text: str, n: int = 240) -> str:
    """The first compiler ``error:`` line, else the first non-empty line, shortened."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return next((ln for ln in lines if "error:" in ln), lines[0] if lines else "")[:n]


def check_target(target: Target, case_timeout_s: float = 60.0, max_cases: int | None = None,
                 soc: str | None = None) -> Row:
    """Builds and runs one operator's cases; never raises for a bad operator."""
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.cases import CaseError, load_op_cases
    from ascendopt.evaluate.check import CheckConfig, check_operator
    from ascendopt.operator import Operator, OperatorError

    row = Row(target.name, target.category, str(target.dir), golden=target.golden)
    try:
        op = Operator.load(target.dir)
    except (OperatorError, OSError) as e:
        return _set(row, "load_error", _strip(str(e), target.dir), SIMULATOR, detail=first_line(str(e)))
    try:
        cases = load_op_cases(target.dir, target.cases, target.golden or None, own=target.own_cases)
    except (CaseError, OSError, ValueError, KeyError, TypeError) as e:
        msg = f"{type(e).__name__}: {e}" if not isinstance(e, CaseError) else str(e)
        return _set(row, "case_error", "case files not understood: " + _strip(msg, target.dir), CASES,
                    detail=first_line(msg))
    soc = target.soc or soc  # the SoC the suite says the operator is written for wins
    backend = SimBackend(soc) if soc else SimBackend()
    if not cases:
        return _build_only(backend, op, row)
    cases = cases[:max_cases] if max_cases else cases
    cases, unimportable = _drop_unimportable_goldens(cases)
    results = check_operator(backend, op, cases, cfg=CheckConfig(timeout_s=case_timeout_s))
    row.cases, row.passed = len(results), sum(r.status == "ok" for r in results)
    row.warned = sum(r.status == "ok" and bool(r.warnings) for r in results)
    row.built = not any(r.status == "compile_error" for r in results)
    bad = [r for r in results if r.status != "ok"]
    if not row.built:
        first = next(r for r in results if r.status == "compile_error")
        return _compile_error(row, first.message, op)
    if bad:
        return _run_failure(row, bad[0])
    unchecked = [r for r in results if "no golden" in r.message]
    if unimportable or unchecked:
        why = unimportable or "no golden: the case files name none"
        return _set(row, "unchecked", f"outputs not checked: {why}", CASES)
    row.status = "pass"
    return row


def _set(row: Row, status: str, cause: str, origin: str, where: str = "", detail: str = "", kind: str = "") -> Row:
    row.status, row.kind, row.cause, row.origin, row.where, row.detail = status, kind, cause, origin, where, detail
    return row


def _strip(text: str, op_dir: Path) -> str:
    """A message made countable across operators: the operator's paths and case names out."""
    text = first_line(text).replace(str(op_dir) + "/", "").replace(str(op_dir), "")
    text = re.sub(r"/\S+/(?=[\w.-]+\.(?:json|py)\b)", "", text)
    return re.sub(r"case [‘'\"][^’'\"]+[’'\"]:?\s*", "", text).strip(" :")


def _compile_error(row: Row, message: str, op) -> Row:
    from ascendopt.backends.sim.build import INCLUDE_DIR

    c = classify_compile_error(message, op.root, op.files, INCLUDE_DIR)
    return _set(row, "compile_error", c.label, c.origin, c.where, c.detail)


def _run_failure(row: Row, r) -> Row:
    """The first failed case: its typed status, a wrong result's error figures, a tiling
    error's message."""
    kind = r.error_kind if r.error_kind not in ("case", "runtime") else ""
    msg = first_line(r.message)
    if r.status == "wrong_result":
        figures = (f"max abs err {r.max_abs_err:.3g}, max rel err {r.max_rel_err:.3g}, "
                   f"{r.mismatch_ratio:.1%} mismatched" if r.max_abs_err is not None else msg)
        return _set(row, "wrong_result", "wrong result", RUN, detail=f"{r.name}: {figures}")
    if r.status == "case_error":
        return _set(row, "case_error", "case not usable: " + _strip(msg, Path(row.dir)), CASES,
                    detail=f"{r.name}: {msg}")
    label = {"runtime_error": f"runtime_error: {kind or 'runtime'}", "timeout": "timeout: a case run exceeded "
             "--case-timeout", "tiling_error": "tiling_error"}.get(r.status, r.status)
    return _set(row, r.status, label, RUN, detail=f"{r.name}: {msg}", kind=kind)


def _drop_unimportable_goldens(cases: list) -> tuple[list, str]:
    """Cases whose golden file cannot be imported here (it imports TensorFlow or PyTorch)
    still run, with their outputs unchecked; returns them and why ('' when all load)."""
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
    return out, "golden not importable (" + "; ".join(sorted(set(reasons.values()))) + ")"


_OPDEF_TENSOR = re.compile(r'\b(Input|Output)\s*\(\s*"(\w+)"\s*\)(?:(?!\b(?:Input|Output)\s*\().)*?'
                           r'\.DataType\s*\(\s*\{\s*(?:ge::)?(DT_\w+)', re.S)


def _build_only(backend, op, row: Row) -> Row:
    """No cases: build once with the first dtype of every OpDef input/output."""
    from ascendopt.dtypes import CaseError, canonical_dtype

    dtypes: dict[str, str] = {}
    for rel in op.host_files():
        for _, name, dt in _OPDEF_TENSOR.findall(op.files[rel]):
            try:
                dtypes.setdefault(name, canonical_dtype(dt))
            except CaseError:
                dtypes.setdefault(name, "float32")
    if not dtypes:  # an OpDef made by a macro: its expansion gives the dtypes
        from ascendopt.backends.sim.opdef_scan import opdef_dtypes

        for name, dts in opdef_dtypes(op).items():
            try:
                dtypes[name] = canonical_dtype(dts[0])
            except CaseError:
                dtypes[name] = "float32"
    if not dtypes:
        return _set(row, "no_cases", "no cases (tests/st/*.json) and no OpDef dtypes to build with", CASES)
    b = backend.build(op, dtypes)
    row.built = b.ok
    if not b.ok:
        return _compile_error(row, b.error, op)
    return _set(row, "no_cases", "no cases (tests/st/*.json): built only", CASES)


def crashed_row(target: Target, stderr: str, returncode: int) -> Row:
    """The row of a child that died without writing its result."""
    row = Row(target.name, target.category, str(target.dir), golden=target.golden)
    last = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    return _set(row, "crash", f"the check crashed (exit {returncode})", SIMULATOR,
                detail=(last[-1] if last else "")[:240])


def timeout_row(target: Target, timeout_s: float) -> Row:
    """The row of a child killed at ``--timeout``."""
    row = Row(target.name, target.category, str(target.dir), golden=target.golden)
    return _set(row, "timeout", "timeout: no result within --timeout (killed)", RUN,
                detail=f"no result within {timeout_s:g} s", kind="operator")


def main(argv: list[str]) -> int:
    """``JOB OUT``: JOB a JSON object (``target``, ``case_timeout_s``, ``max_cases``,
    ``unsafe_no_sandbox``, ``soc``); the row is written to OUT as JSON."""
    from ascendopt import sandbox

    job = json.loads(argv[0])
    sandbox.configure(sandbox.Sandbox(allow_unsafe=bool(job.get("unsafe_no_sandbox"))))
    row = check_target(Target.from_dict(job["target"]), job.get("case_timeout_s", 60.0), job.get("max_cases"),
                       job.get("soc"))
    Path(argv[1]).write_text(json.dumps(row.to_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
