"""What an evaluation is: its configuration (:class:`EvalConfig`, part of every record's key),
its outcome (:class:`Evaluation`, the unit of the budget and of the record store), and which
cases are timed. The :class:`~ascendopt.evaluate.evaluator.Evaluator` produces them."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Sequence

from ascendopt.backends.base import Status
from ascendopt.cases import Case
from ascendopt.evaluate.check import CaseResult

#: The status of a lazily verified candidate (:meth:`Evaluator.evaluate` with ``bar_us``): it
#: built, its benchmark case(s) ran correctly and were timed, and its latency was above the bar,
#: so its other cases were not run. Not ``ok`` (``Evaluation.ok`` is False): it is no verified
#: result and can never be accepted, become the best or count as correct; a search may still
#: model its latency (:attr:`Evaluation.timed`).
UNVERIFIED = "unverified"


def above_bar(bar_us: float | None, bench: Sequence[CaseResult | None]) -> bool:
    """Whether the benchmark cases' (timed) correctness runs all passed with their mean duration
    above ``bar_us`` (lazy verification: the candidate need not run its other cases)."""
    if bar_us is None or not bench or any(r is None or r.status != Status.OK.value for r in bench):
        return False
    return sum(float(r.task_duration_us or 0.0) for r in bench if r is not None) / len(bench) > bar_us


@dataclass(frozen=True)
class EvalConfig:
    """How candidates are evaluated. Everything but `jobs` and `profile_dir` is part of the
    dedup key.

    Attributes:
        seed: Base seed; a candidate's seed is derived from it and the candidate digest
            (recorded), case *i* uses ``seed + i``.
        input_pool: How many seeds the candidates share (0: a fresh seed per candidate). A
            candidate's seed is one of ``input_pool`` seeds derived from ``seed``, picked by
            its digest (:meth:`Evaluator.seed_for`): a candidate cannot choose its inputs,
            and candidates that share a seed share its inputs and goldens, drawn and computed
            once (:class:`~ascendopt.evaluate.casedata.CaseData`).
        benchmark_cases: Names of the cases to profile; empty = the largest case by elements.
        profile_repeats: Profile runs per benchmark case (each with fresh inputs, each checked).
        run_timeout_s: Wall-clock limit of one runner process.
        rtol: Relative tolerance override (None: per-dtype policy).
        atol: Absolute tolerance override (None: per-dtype policy).
        fail_fast: Stop at the first failing build or case (a looping kernel then costs one
            timeout, not one per case).
        jobs: Threads used inside one evaluation for builds and case runs (0: one per core).
        profile_dir: Where the full profile of every benchmark run is kept (msprof-format
            files under ``<profile_dir>/<digest[:16]>/<case>/``, named in the summary as
            ``profile_dir``); empty: only the summary is kept.
    """

    seed: int = 0
    input_pool: int = 4
    benchmark_cases: tuple[str, ...] = ()
    profile_repeats: int = 1
    run_timeout_s: float = 60.0
    rtol: float | None = None
    atol: float | None = None
    fail_fast: bool = True
    jobs: int = 0
    profile_dir: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EvalConfig":
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        kw.setdefault("input_pool", 0)  # a config written before the pool: a fresh seed per candidate
        if "benchmark_cases" in kw:
            kw["benchmark_cases"] = tuple(kw["benchmark_cases"])
        return cls(**kw)


@dataclass
class Evaluation:
    """Outcome of evaluating one candidate (the unit of the budget and of the record store).

    Attributes:
        status: ``ok``, ``compile_error``, ``tiling_error``, ``runtime_error``,
            ``wrong_result`` or ``timeout`` (a :class:`Status` value), or :data:`UNVERIFIED`
            (timed above the caller's bar, not run on every case: ``cases`` holds the
            benchmark cases only, ``bar_us`` the bar).
        error: Error text (compiler output, the simulator's message, mismatch summary).
        error_kind: The simulator's typed reason for a runtime error (``ub_overflow``,
            ``race``, ``segfault``, ...), ``timeout``, ...; empty when ok.
        latency_us: Task duration on the benchmark case(s) (mean over cases and repeats);
            None unless ok.
        cases: Per-case correctness results, in case order (up to the first failure with
            ``fail_fast``).
        benchmark: The profile runs' results (their outputs are checked too).
        profile: Profile summary of the benchmark case(s) by case name.
        seed: The seed the inputs were generated from.
        timings: ``build_s``, ``check_s``, ``profile_s``, ``total_s`` (wall seconds;
            benchmark runs overlap the checks on noise-free backends, ``profile_s`` is what
            remained after the checks).
        backend: Backend name (``sim``, ``npu``).
        soc: SoC name.
        op_name: Operator name (directory name).
        digest: Candidate digest.
        parent: Digest of the candidate it was derived from.
        origin: How it was made (``original``, ``stage2/evo``, ``rewind/double_buffer``, ...).
        config_key: Hash of the evaluation config, cases, backend and toolchain (dedup key).
        duplicate: True when answered from the records instead of being evaluated.
        launch_key: :meth:`Evaluator.launch_key` of the candidate (empty when unknown).
        same_as: For an answer from the records by launch key, the digest of the candidate
            that was evaluated (it runs the same device program).
        bar_us: The latency the candidate had to be below to be verified on every case first
            (None: it was verified whatever its latency).
    """

    status: str
    error: str = ""
    error_kind: str = ""
    latency_us: float | None = None
    cases: list[CaseResult] = field(default_factory=list)
    benchmark: list[CaseResult] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    backend: str = ""
    soc: str = ""
    op_name: str = ""
    digest: str = ""
    parent: str | None = None
    origin: str = ""
    config_key: str = ""
    duplicate: bool = False
    launch_key: str = ""
    same_as: str = ""
    bar_us: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == Status.OK.value

    @property
    def unverified(self) -> bool:
        """Timed above its bar and not run on every case (:data:`UNVERIFIED`)."""
        return self.status == UNVERIFIED

    @property
    def timed(self) -> bool:
        """Correct on every case it ran, with a latency: verified (``ok``) or :attr:`unverified`."""
        return (self.ok or self.unverified) and self.latency_us is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Evaluation":
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        case_fields = {f.name for f in fields(CaseResult)}
        for k in ("cases", "benchmark"):
            kw[k] = [CaseResult(**{a: b for a, b in c.items() if a in case_fields}) for c in kw.get(k, [])]
        return cls(**kw)


def case_elements(case: Case) -> int:
    """Elements of all inputs and outputs of a case (how "large" it is)."""
    return sum(math.prod(t.shape) for t in (*case.inputs, *case.outputs))


def benchmark_cases(cases: Sequence[Case], names: Sequence[str] = ()) -> list[Case]:
    """The named cases, or the largest case by elements (first on ties)."""
    if names:
        by_name = {c.name: c for c in cases}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ValueError(f"unknown benchmark case(s) {missing}; available: {sorted(by_name)}")
        return [by_name[n] for n in names]
    return [max(cases, key=case_elements)] if cases else []


def largest_per_dtype(cases: Sequence[Case]) -> tuple[str, ...]:
    """Names of the largest case of each dtype combination (in first-seen order): benchmark
    cases that time every dtype path of a kernel, not only the one the largest case takes."""
    from ascendopt.evaluate.check import case_dtypes

    best: dict[tuple, Case] = {}
    for c in cases:
        k = tuple(sorted(case_dtypes(c).items()))
        if k not in best or case_elements(c) > case_elements(best[k]):
            best[k] = c
    return tuple(c.name for c in best.values())
