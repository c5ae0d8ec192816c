"""Runs an operator's cases on a backend and checks them against their goldens."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from ascendopt.backends.base import BuildResult, RunResult, Status
from ascendopt.cases import Case, CaseError, compare, make_inputs
from ascendopt.cases.golden_worker import golden_worker
from ascendopt.evaluate.outputs import compare_output
from ascendopt.operator import Operator

#: ``(case, seed) -> (inputs, golden outputs or None)``
CaseDataFn = Callable[[Case, int], tuple[dict[str, Any], Any]]


@dataclass
class CaseResult:
    """Outcome of one case: status plus error metrics and what the run reported.

    ``warnings`` are the warning-level hazards the run carried (``{"kind": "race" |
    "same_pipe_race" | "gm_read_past_end" | ..., "message": ..., "count": ...}``): the case still passes on them unless
    it was checked ``strict``; a candidate may not add a kind its parent did not have
    (:mod:`ascendopt.evaluate.hazards`).
    """

    name: str
    status: str
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatch_ratio: float | None = None
    message: str = ""
    error_kind: str = ""
    block_dim: int = 0
    tiling_key: int = 0
    task_duration_us: float | None = None
    dtypes: dict[str, str] = field(default_factory=dict)
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    seed: int = 0
    warnings: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckConfig:
    """How cases are checked.

    Attributes:
        rtol, atol: the comparison's tolerances (None: the dtype's defaults).
        timeout_s: the time limit of one run.
        strict: a warning-level hazard of the run fails the case as a ``runtime_error`` of
            that hazard's kind (the warnings are kept either way).
        measure: the run is a timed benchmark run (``backend.measure``; :func:`check_case`).
        stop_at_failure: the cases after the first whose run failed are not run
            (:func:`check_cases`).
    """

    rtol: float | None = None
    atol: float | None = None
    timeout_s: float = 60.0
    strict: bool = False
    measure: bool = False
    stop_at_failure: bool = False


def case_dtypes(case: Case) -> dict[str, str]:
    """Tensor name -> dtype for the build's DTYPE_<NAME> macros."""
    return {t.name: t.dtype for t in (*case.inputs, *case.outputs)}


def timed_build(backend: Any, op: Operator, dtypes: dict[str, str]) -> BuildResult:
    """backend.build with its wall time filled in when the backend did not measure it."""
    t0 = time.perf_counter()
    b = backend.build(op, dtypes)
    if b.seconds == 0 and not b.cached:
        b = replace(b, seconds=time.perf_counter() - t0)
    return b


def check_case(backend: Any, op: Operator, case: Case, build: BuildResult, seed: int,
               cfg: CheckConfig = CheckConfig(), run_result_hook: Callable[[RunResult], None] | None = None,
               data: CaseDataFn | None = None) -> CaseResult:
    """Runs one case with fresh seeded inputs and compares every output with the golden.

    With ``cfg.strict`` a warning-level hazard of the run fails the case as a ``runtime_error`` of
    that hazard's kind (the warnings are kept either way). With ``cfg.measure`` the run is a timed
    benchmark run (``backend.measure``), checked the same way. ``data(case, seed)`` gives the
    inputs and golden outputs instead of drawing and computing them here (the same arrays, kept
    across candidates: :class:`~ascendopt.evaluate.casedata.CaseData`).
    """
    res, inputs, expected = _prepare(case, build, seed, data)
    if inputs is None:
        return res
    rr = (backend.measure if cfg.measure else backend.run)(build, op, case, inputs, timeout_s=cfg.timeout_s)
    if run_result_hook:
        run_result_hook(rr)
    return _judge(res, case, rr, expected, cfg)


def check_cases(backend: Any, op: Operator, cases: Sequence[Case], build: BuildResult, seeds: Sequence[int],
                cfg: CheckConfig = CheckConfig(),
                run_result_hooks: Sequence[Callable[[RunResult], None] | None] = (),
                data: CaseDataFn | None = None) -> list[CaseResult | None]:
    """:func:`check_case` of several cases of one build (case ``k`` with ``seeds[k]`` and
    ``run_result_hooks[k]``), their runs in one ``backend.run_batch`` (one runner process on
    the simulator): the same results, in order (``cfg.measure`` is not used). With
    ``cfg.stop_at_failure`` the cases after the first whose run failed are not run (None)."""
    stop_at_failure = cfg.stop_at_failure
    prepared: list[tuple[CaseResult, Any, Any]] = []
    for case, seed in zip(cases, seeds):
        prepared.append(_prepare(case, build, seed, data))
        if stop_at_failure and prepared[-1][1] is None:
            break
    todo = [k for k, (_, inputs, _) in enumerate(prepared) if inputs is not None]
    runs = backend.run_batch(build, op, [(cases[k], prepared[k][1]) for k in todo], timeout_s=cfg.timeout_s,
                             stop_at_failure=stop_at_failure) if todo else []
    results: list[CaseResult | None] = [res for res, _, _ in prepared] + [None] * (len(cases) - len(prepared))
    for k in todo[len(runs):]:
        results[k] = None
    for k, rr in zip(todo, runs):
        hook = run_result_hooks[k] if k < len(run_result_hooks) else None
        if hook:
            hook(rr)
        results[k] = _judge(results[k], cases[k], rr, prepared[k][2], cfg)
    return results


def _prepare(case: Case, build: BuildResult, seed: int, data: CaseDataFn | None
             ) -> tuple[CaseResult, dict[str, Any] | None, Any]:
    """A case's result so far, its inputs and golden outputs; no inputs when it is already
    decided (a failed build, a case error)."""
    res = CaseResult(case.name, Status.OK.value, dtypes=case_dtypes(case), build_seconds=build.seconds, seed=seed)
    if not build.ok:
        res.status, res.message = Status.COMPILE_ERROR.value, build.error
        return res, None, None
    try:
        if data is not None:
            inputs, expected = data(case, seed)
        else:
            inputs = make_inputs(case, seed)
            # the user's golden runs in a child process with a timeout, one at a time
            expected = golden_worker().run(case.golden, case, inputs) if case.golden else None
    except CaseError as e:
        res.status, res.error_kind, res.message = "case_error", "case", str(e)
        return res, None, None
    return res, inputs, expected


def _judge(res: CaseResult, case: Case, rr: RunResult, expected: Any, cfg: CheckConfig) -> CaseResult:
    """The case's result from its run and its golden outputs."""
    res.block_dim, res.tiling_key, res.run_seconds = rr.block_dim, rr.tiling_key, rr.seconds
    res.task_duration_us = rr.task_duration_us
    res.warnings = [dict(w) for w in getattr(rr, "warnings", None) or ()]
    if rr.status != Status.OK:
        res.status, res.error_kind, res.message = rr.status.value, rr.error_kind, rr.message
        return res
    if cfg.strict and res.warnings:
        w = res.warnings[0]
        res.status, res.error_kind = Status.RUNTIME_ERROR.value, w["kind"]
        res.message = f"--strict: {w['message']}"
        return res
    if expected is None:
        res.message = "no golden: outputs not checked"
        return res
    worst_abs = worst_rel = worst_ratio = 0.0
    failures = []
    for spec, exp in zip(case.outputs, expected):  # a list output: each of its tensors
        if exp is None:  # the golden says the operator does not compute it
            continue
        cmp = compare_output(rr.outputs[spec.key], exp, spec.dtype, rtol=cfg.rtol, atol=cfg.atol)
        worst_abs = max(worst_abs, cmp.max_abs_err)
        worst_rel = max(worst_rel, cmp.max_rel_err)
        worst_ratio = max(worst_ratio, cmp.mismatch_ratio)
        if not cmp.passed:
            failures.append(f"{spec.key}: {cmp.message}")
    res.max_abs_err, res.max_rel_err, res.mismatch_ratio = worst_abs, worst_rel, worst_ratio
    if failures:
        res.status, res.message = Status.WRONG_RESULT.value, "; ".join(failures)
    return res


def check_operator(backend: Any, op: Operator, cases: Iterable[Case], seed: int = 0,
                   cfg: CheckConfig = CheckConfig(),
                   on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Builds once per dtype combination and checks every case (in order) as :func:`check_case`
    with ``cfg``."""
    builds: dict[tuple, BuildResult] = {}
    results = []
    for i, case in enumerate(cases):
        key = tuple(sorted(case_dtypes(case).items()))
        if key not in builds:
            builds[key] = timed_build(backend, op, dict(key))
        r = check_case(backend, op, case, builds[key], seed + i, cfg)
        results.append(r)
        if on_result:
            on_result(r)
    return results
