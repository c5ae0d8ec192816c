"""Verifying a search's answer on shapes it never used, and falling back when it fails.

After ``tune``, ``optimize`` and each benchmark pair, the returned best is run on unseen shapes
(:mod:`ascendopt.evaluate.unseen`):

1. :func:`select_shapes`: the derived cases are run on the *original* operator first, in order,
   until ``count`` of them pass; a case the original fails (a build, tiling or run error, a wrong
   result) is not a valid check of anything and is reported as dropped with the reason.
2. :func:`ranked_candidates`: the run's correct candidates (every case passed, no hazard kind the
   original lacks) from its records, fastest first, beginning at the returned best; the original
   last.
3. :func:`verify_best`: each candidate in that order is run on the kept shapes, stopping at its
   first failure; the first that passes all of them is the answer. A failure is a failed run, a
   wrong result, or a hazard kind (race, read past the end of GM, ...) the original did not
   show on that same shape. At most ``max_walk`` candidates are tried before the original
   (which passes by construction) is returned.

Nothing here is charged to the search's budget: these runs judge its answer, they do not search.
The inputs of shape ``j`` come from its own seed, the same for the original and every candidate.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ascendopt.backends.base import Status
from ascendopt.cases import Case
from ascendopt.evaluate.check import CaseResult, CheckConfig, case_dtypes, check_case, timed_build
from ascendopt.evaluate.evaluation import UNVERIFIED
from ascendopt.evaluate.hazards import case_warnings, new_hazards
from ascendopt.evaluate.unseen import (DEFAULT_COUNT, DEFAULT_MAX_ELEMENTS, UnseenShape, case_elements, generate,
                                       largest)
from ascendopt.operator import Operator

#: Candidates tried on the unseen shapes before the original is returned.
DEFAULT_MAX_WALK = 4
#: Seconds allowed per unseen-shape run (a derived shape the original cannot run in that time is
#: dropped: a check must stay cheap).
UNSEEN_TIMEOUT_S = 30.0
#: Seconds the original may take on the ``largest`` shape, predicted from its runs on the shapes
#: before (seconds per element): a larger one is derived again to fit.
LARGEST_SECONDS = 8.0
#: Only runs of at least this many elements predict a time (smaller ones are overhead).
_RATE_MIN_ELEMENTS = 1 << 14


@dataclass
class Checked:
    """One candidate's verdict on the unseen shapes."""

    digest: str
    latency_us: float | None
    passed: bool
    failing_shape: str = ""
    failing_case: str = ""
    status: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class UnseenReport:
    """What the check did: the shapes checked, those dropped (the original fails them), each
    candidate's verdict in walk order, and the answer.

    ``chosen_op`` / ``chosen_us`` are the answer; ``passed_over`` the digests ranked above it
    (those that failed, and those not tried once ``max_walk`` were): not an answer."""

    shapes: list[UnseenShape] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)
    checked: list[Checked] = field(default_factory=list)
    chosen_op: Operator | None = None
    chosen_us: float | None = None
    seconds: float = 0.0
    passed_over: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def fell_back(self) -> bool:
        """The first candidate (the returned best) failed and another was chosen."""
        return bool(self.checked) and not self.checked[0].passed

    @property
    def rejected(self) -> list[str]:
        """Digests of the candidates that failed an unseen shape."""
        return [c.digest for c in self.checked if not c.passed]

    def to_dict(self) -> dict[str, Any]:
        return {"shapes": [s.to_dict() for s in self.shapes], "dropped": self.dropped,
                "checked": [c.to_dict() for c in self.checked], "fell_back": self.fell_back,
                "rejected": self.rejected, "passed_over": self.passed_over,
                "chosen": None if self.chosen_op is None else self.chosen_op.digest, "chosen_us": self.chosen_us,
                "error": self.error,
                "seconds": round(self.seconds, 2)}

    def summary(self) -> str:
        """One line for the console."""
        if self.error:
            return f"unseen shapes: not checked ({self.error})"
        if not self.checked:
            return "unseen shapes: none checked (the best is the original)"
        if not self.shapes:
            return f"unseen shapes: none checked ({len(self.dropped)} derived, all failed by the original)"
        head = f"unseen shapes: {len(self.shapes)} checked ({', '.join(sorted({s.kind for s in self.shapes}))})"
        if not self.fell_back:
            return head + ", the best passes all"
        first = self.checked[0]
        return (head + f"; the best {first.digest[:12]} fails {first.failing_shape} ({first.status}): returned "
                f"{self.chosen_op.digest[:12] if self.chosen_op else '-'} instead "
                f"({len(self.rejected)} rejected)")


class ShapeRunner:
    """Runs cases of operators on one backend: one build per (operator, dtype combination)."""

    def __init__(self, backend: Any, timeout_s: float):
        self.backend, self.timeout_s = backend, timeout_s
        self._builds: dict[tuple, Any] = {}

    def run(self, op: Operator, shape: UnseenShape) -> CaseResult:
        key = (op.digest, tuple(sorted(case_dtypes(shape.case).items())))
        if key not in self._builds:
            self._builds[key] = timed_build(self.backend, op, dict(key[1]))
        try:
            return check_case(self.backend, op, shape.case, self._builds[key], shape.seed,
                              CheckConfig(timeout_s=self.timeout_s))
        except Exception as e:  # noqa: BLE001 - a case the harness cannot run is a failed check, not a crash
            return CaseResult(shape.case.name, "case_error", message=f"{type(e).__name__}: {e}", error_kind="case")


def _kinds(r: CaseResult) -> set[str]:
    return {str(w.get("kind", "")) for w in case_warnings([r])} - {""}


def select_shapes(runner: ShapeRunner, reference: Operator, derived: Sequence[UnseenShape], count: int
                  ) -> tuple[list[UnseenShape], list[dict[str, str]], dict[str, set[str]]]:
    """The first ``count`` derived shapes the original passes, those it failed (with why), and
    the hazard kinds the original shows on each kept shape. A ``largest`` shape the original's
    runs so far predict to take more than :data:`LARGEST_SECONDS` is derived again to fit."""
    kept: list[UnseenShape] = []
    dropped: list[dict[str, str]] = []
    base_kinds: dict[str, set[str]] = {}
    rate = 0.0  # the original's slowest seconds per element so far
    for s in derived:
        if len(kept) >= count:
            break
        if s.kind == "largest" and rate > 0 and s.origin is not None:
            fits = int(LARGEST_SECONDS / rate)
            if case_elements(s.case) > fits:
                grown = largest(s.origin, fits)
                if grown is None:
                    dropped.append({**s.to_dict(), "reason": f"no larger shape runs within {LARGEST_SECONDS:g} s"})
                    continue
                s = replace(s, case=grown)
        r = runner.run(reference, s)
        if r.status == Status.OK.value:
            kept.append(s)
            base_kinds[s.case.name] = _kinds(r)
            if case_elements(s.case) >= _RATE_MIN_ELEMENTS and r.run_seconds:
                rate = max(rate, r.run_seconds / case_elements(s.case))
        else:
            dropped.append({**s.to_dict(), "reason": f"{r.status}: {r.message[:300]}"})
    return kept, dropped, base_kinds


def verify(runner: ShapeRunner, op: Operator, shapes: Sequence[UnseenShape], base_kinds: dict[str, set[str]]
           ) -> tuple[UnseenShape, CaseResult, str] | None:
    """The first shape ``op`` fails (its result and why), or None when it passes all."""
    for s in shapes:
        r = runner.run(op, s)
        if r.status != Status.OK.value:
            return s, r, f"{r.status}: {r.message[:300]}"
        new = _kinds(r) - base_kinds.get(s.case.name, set())
        if new:
            return s, r, f"adds hazard(s) {', '.join(sorted(new))} the original does not show on this shape"
    return None


def own_cases_fail(runner: ShapeRunner, reference: Operator, op: Operator, cases: Sequence[Case]
                   ) -> tuple[UnseenShape, CaseResult, str] | None:
    """For a candidate ranked from an :data:`~ascendopt.evaluate.evaluation.UNVERIFIED` record
    (``op.origin``): the first of the operator's own cases it fails, or that shows a hazard
    the original does not show there (what its evaluation would have found had it run every
    case); None when it passes them all, or was verified."""
    if op.origin != UNVERIFIED:
        return None
    own = [UnseenShape(c, "own", c.name) for c in cases]
    return verify(runner, op, own, {s.case.name: _kinds(runner.run(reference, s)) for s in own})


def ranked_candidates(store: Any, run_id: int, reference: Operator, best_digest: str | None = None,
                      charged_only: bool = False) -> list[tuple[Operator, float | None]]:
    """The run's correct candidates as operators with their latencies, fastest first, none
    slower than the original, the original last. With ``best_digest`` (the answer the search
    returned) that one comes first and only slower ones follow (a faster one was not the answer:
    e.g. under the acceptance threshold). ``charged_only``: only charged evaluations (what the
    benchmark credits)."""
    from ascendopt.evaluate.verdict import correct
    from ascendopt.evaluate.hazards import hazards

    records = [r for r in store.list_evaluations(run_id, reference.name) if r.charged or not charged_only]
    orig = next((r.evaluation for r in records if r.evaluation.digest == reference.digest), None)
    base = hazards(orig) if orig is not None else set()
    lat: dict[str, float] = {}
    verified: set[str] = set()
    for r in records:
        e = r.evaluation
        # a lazily verified candidate (timed above its bar, some cases not run) is ranked too:
        # it may be the next best; the walk verifies it on its own cases first (own_cases_fail)
        if (correct(e, base) or (e.unverified and e.latency_us is not None and not new_hazards(base, e))) \
                and e.digest != reference.digest:
            lat[e.digest] = min(lat.get(e.digest, e.latency_us), e.latency_us)
            verified |= {e.digest} if e.ok else set()
    ref_us = orig.latency_us if orig is not None and orig.ok else None
    order = sorted((d for d in lat if ref_us is None or lat[d] < ref_us), key=lambda d: (lat[d], d))
    if best_digest == reference.digest:
        order = []
    elif best_digest in lat:  # the answer first, then what is slower than it
        order = [best_digest] + [d for d in order if d != best_digest and lat[d] >= lat[best_digest]]
    out: list[tuple[Operator, float | None]] = []
    for d in order:
        files = store.get_sources(d)
        if files:
            origin = "candidate" if d in verified else UNVERIFIED
            out.append((Operator.from_files(reference.name, files, root=reference.root, origin=origin), lat[d]))
    out.append((reference, ref_us))
    return out


def verify_best(backend: Any, reference: Operator, cases: Sequence[Case],
                candidates: Sequence[tuple[Operator, float | None]], count: int = DEFAULT_COUNT,
                max_elements: int = DEFAULT_MAX_ELEMENTS, max_walk: int = DEFAULT_MAX_WALK,
                timeout_s: float = 60.0) -> UnseenReport:
    """Checks ``candidates`` (ranked, the original last: :func:`ranked_candidates`) on up to
    ``count`` unseen shapes the original passes and returns the first that passes all of them
    (see the module docstring). ``count`` 0: nothing is checked, the first candidate is the
    answer."""
    t0 = time.perf_counter()
    rep = UnseenReport()
    if not candidates:
        return rep
    if count <= 0:
        rep.chosen_op, rep.chosen_us = candidates[0]
        return rep
    walk = [c for c in candidates if c[0].digest != reference.digest][:max_walk]
    if not walk:  # the answer is the original: the shapes are those it passes
        rep.chosen_op, rep.chosen_us = candidates[-1]
        return rep
    runner = ShapeRunner(backend, min(timeout_s, UNSEEN_TIMEOUT_S))
    rep.shapes, rep.dropped, base_kinds = select_shapes(runner, reference, generate(cases, reference, max_elements),
                                                        count)
    for op, us in walk:
        if not rep.shapes:
            break
        failed = own_cases_fail(runner, reference, op, cases) or verify(runner, op, rep.shapes, base_kinds)
        if failed is None:
            rep.checked.append(Checked(op.digest, us, True))
            rep.chosen_op, rep.chosen_us = op, us
            break
        shape, r, why = failed
        rep.checked.append(Checked(op.digest, us, False, shape.describe(), shape.case.name, r.status, why))
    if rep.chosen_op is None:
        if not rep.shapes:  # nothing to check against: the ranking stands
            rep.chosen_op, rep.chosen_us = candidates[0]
        else:
            ref = next((c for c in candidates if c[0].digest == reference.digest), (reference, None))
            rep.chosen_op, rep.chosen_us = ref
            rep.checked.append(Checked(reference.digest, ref[1], True))
    ranked = [c[0].digest for c in candidates]
    if rep.chosen_op is not None and rep.chosen_op.digest in ranked:
        rep.passed_over = ranked[:ranked.index(rep.chosen_op.digest)]
    rep.seconds = time.perf_counter() - t0
    return rep


@dataclass(frozen=True)
class RunRef:
    """Whose candidates a check walks: a run of a record store, the best it returned
    (``None``: its fastest correct), and whether only charged evaluations count (a benchmark
    trial credits those alone)."""

    store: Any
    run_id: int
    best_digest: str | None = None
    charged_only: bool = False


def check_run(backend: Any, run: RunRef, reference: Operator, cases: Sequence[Case], count: int = DEFAULT_COUNT,
              timeout_s: float = 60.0, max_elements: int = DEFAULT_MAX_ELEMENTS) -> UnseenReport:
    """:func:`verify_best` over a run's ranked candidates (:func:`ranked_candidates`): the one
    call ``tune``, ``optimize`` and a benchmark pair make where they return their best. A check
    that cannot run (an unexpected error) leaves the answer as it is and says why (``error``)."""
    try:
        ranked = ranked_candidates(run.store, run.run_id, reference, run.best_digest, run.charged_only)
        return verify_best(backend, reference, cases, ranked, count, max_elements, timeout_s=timeout_s)
    except Exception as e:  # noqa: BLE001 - the check judges an answer; it must never lose the run's result
        return UnseenReport(error=f"{type(e).__name__}: {e}")


def adopt_tune(result: Any, rep: UnseenReport) -> None:
    """Makes a ``tune`` result's best the checked answer (its config from the trial that
    evaluated it)."""
    if not rep.fell_back or rep.chosen_op is None:
        return
    d = rep.chosen_op.digest
    result.best_op, result.best_latency_us, result.best_digest = rep.chosen_op, rep.chosen_us, d
    result.best_config = next((dict(t.config) for t in result.trials if t.digest == d
                               and t.status in ("ok", UNVERIFIED)), {})


def adopt_optimize(result: Any, rep: UnseenReport) -> None:
    """Makes an ``optimize`` (or benchmark method) result's best the checked answer."""
    if rep.fell_back and rep.chosen_op is not None:
        result.best_op, result.best_us = rep.chosen_op, rep.chosen_us


def markdown(rep: UnseenReport) -> str:
    """The report's section (markdown): shapes checked, dropped, each candidate's verdict."""
    lines = ["", "## Unseen shapes", "", rep.summary(), ""]
    if rep.shapes:
        lines += ["| shape | kind | derived from |", "|---|---|---|"]
        lines += [f"| `{s.describe()}` | {s.kind} | {s.base} |" for s in rep.shapes]
    if rep.checked:
        lines += ["", "| candidate | latency | verdict |", "|---|---|---|"]
        lines += [f"| `{c.digest[:12]}` | {'-' if c.latency_us is None else f'{c.latency_us:.3f} us'} | "
                  + ("passes all" if c.passed else f"fails `{c.failing_shape}`: {c.message[:160]}") + " |"
                  for c in rep.checked]
    if rep.dropped:
        lines += ["", f"Dropped (the original fails them): "
                  + "; ".join(f"`{d['shape']}` ({d['reason'][:80]})" for d in rep.dropped)]
    return "\n".join(lines) + "\n"


def html(rep: UnseenReport) -> str:
    """The report's section (HTML), for the ``optimize`` page."""
    import html as h

    rows = "".join(f"<tr><td><code>{h.escape(s.describe())}</code></td><td>{s.kind}</td><td>{h.escape(s.base)}</td></tr>"
                   for s in rep.shapes)
    verdicts = "".join(f"<li><code>{c.digest[:12]}</code>: "
                       + ("passes all" if c.passed else f"fails <code>{h.escape(c.failing_shape)}</code>: "
                                                        f"{h.escape(c.message[:200])}") + "</li>" for c in rep.checked)
    return (f"<h2>Unseen shapes</h2><p>{h.escape(rep.summary())}</p>"
            + (f"<table><tr><th>shape</th><th>kind</th><th>derived from</th></tr>{rows}</table>" if rows else "")
            + (f"<ul>{verdicts}</ul>" if verdicts else ""))
