"""Chained rewind of one operator under an evaluation budget.

Start from a strong operator (the root), evaluate it, then try every motif's sites on it: each
de-optimized candidate is evaluated like any other (built, checked on every case, timed), and
kept only by :func:`ascendopt.evaluate.verdict.judge` (correct, no new hazard, slower than its
parent by more than the parent's measured ``tau``). A kept candidate is itself rewound, up to
``depth`` removals from the root (a chain: the lesson "double buffering pays" may only show
once barriers are gone). Every evaluation, the root's included, is charged to the operator's
budget through the :class:`~ascendopt.evaluate.budget.BudgetedEvaluator` and recorded in the
store; a candidate already evaluated (same sources) is answered from the records for free.

Order of attempts: by *tier*, then depth. A candidate's tier is its site's index among its
motif's sites at that parent: every motif's first site is tier 0, second sites tier 1, ...
So at one parent the motifs take turns (a small budget samples many families instead of
exhausting the sites of the first motif), and a kept removal's own first-tier candidates come
before its parent's second-tier ones (chains are explored within a budget of 20).

Each kept pair becomes an experience (:mod:`ascendopt.rewind.distill`); the Stage I rewrite
that applies it is the optimization's own rewrite (:func:`ascendopt.transforms.rewrite_of`),
with its sites in the slow side as the pattern.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ascendopt.bank.experience import Experience
from ascendopt.bank.store import ExperienceBank
from ascendopt.cases import Case
from ascendopt.evaluate.budget import BudgetExhausted, BudgetedEvaluator
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import kernel_cores
from ascendopt.rewind.distill import Distiller, OfflineDistiller, Pair
from ascendopt.evaluate.verdict import (
    DEFAULT_MIN_EFFECT_PCT,
    DEFAULT_SIGMAS,
    MeasureCallback,
    MeasureCallbacks,
    Measured,
    judge,
    noise_threshold,
)
from ascendopt.transforms import Motif, Site, rewrite_of


DEFAULT_BUDGET = 20
DEFAULT_DEPTH = 2


@dataclass
class Attempt:
    """One de-optimization tried (whether or not it was evaluated)."""

    motif: str
    family: str
    site: str
    file: str
    line: int
    depth: int
    parent: str
    digest: str = ""
    status: str = ""
    reason: str = ""
    detail: str = ""
    latency_us: float | None = None
    slowdown: float | None = None
    charged: bool = False
    experience: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RewindResult:
    """What rewinding one operator found."""

    op: str
    baseline_us: float | None
    noise: dict[str, Any] | None
    attempts: list[Attempt] = field(default_factory=list)
    experiences: list[Experience] = field(default_factory=list)
    charged: int = 0
    stop_reason: str = ""
    seconds: float = 0.0

    @property
    def kept(self) -> list[Attempt]:
        return [a for a in self.attempts if a.reason == "kept"]

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "baseline_us": self.baseline_us, "noise": self.noise, "charged": self.charged,
                "stop_reason": self.stop_reason, "seconds": round(self.seconds, 2),
                "kept": len(self.kept), "tried": sum(a.status != "" for a in self.attempts),
                "attempts": [a.to_dict() for a in self.attempts],
                "experiences": [{"id": e.id, "title": e.title, "family": e.family, "speedup": e.speedup}
                                for e in self.experiences]}


def _candidates(op: Operator, motifs: Sequence[Motif]) -> list[tuple[int, Motif, Site]]:
    """Every (tier, motif, site) of ``op``; tier = the site's index among its motif's sites."""
    out = []
    for m in motifs:
        try:
            sites = m.find(op)
        except Exception:  # noqa: BLE001 - a matcher that cannot read this kernel finds nothing
            continue
        out += [(tier, m, s) for tier, s in enumerate(sites)]
    return out


def optimizing_rewrite(motif: Motif, slow: Operator) -> tuple[str, list[str]]:
    """The Stage I rewrite of the optimization ``motif`` removes (its name, and the labels of its
    sites in ``slow``); ``("", [])`` when the optimization has no rewrite."""
    rw = rewrite_of(motif)
    if rw is None:
        return "", []
    try:
        return rw.name, [s.label for s in rw().find(slow)]
    except Exception:  # noqa: BLE001 - a matcher that cannot read this kernel finds nothing
        return rw.name, []


@dataclass(frozen=True)
class RewindConfig:
    """The knobs of one rewind.

    Attributes:
        depth: the longest chain of removals from the root.
        sigmas, min_effect_pct: the noise threshold a removal must exceed
            (:func:`~ascendopt.evaluate.verdict.noise_threshold`).
        batch: candidates evaluated together (``evaluate_many``).
    """

    depth: int = DEFAULT_DEPTH
    sigmas: float = DEFAULT_SIGMAS
    min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT
    batch: int = 1


def rewind(op: Operator, cases: Sequence[Case], beval: BudgetedEvaluator, motifs: Sequence[Motif],
           cfg: RewindConfig = RewindConfig(), bank: ExperienceBank | None = None,
           distiller: Distiller | None = None, on_attempt: Callable[[Attempt], None] | None = None) -> RewindResult:
    """Rewinds ``op`` within ``beval``'s budget (see the module docstring).

    Returns the attempts and the distilled experiences (also added to ``bank`` when given).
    Never raises for a bad candidate; a root that fails its own cases ends the rewind with
    ``stop_reason = "root_failed"``.
    """
    t0 = time.perf_counter()
    depth, sigmas, min_effect_pct, batch = cfg.depth, cfg.sigmas, cfg.min_effect_pct, cfg.batch
    distiller = distiller or OfflineDistiller()
    res = RewindResult(op.name, None, None)
    soc = beval.evaluator.backend.soc
    try:
        root_ev = beval.evaluate(op, cases)
    except BudgetExhausted:
        res.stop_reason = "budget"
        return res
    if not root_ev.ok or root_ev.latency_us is None:
        res.stop_reason = "root_failed"
        res.attempts.append(Attempt("", "", "original", "", 0, 0, "", op.digest, root_ev.status, "failed",
                                    root_ev.error[:300]))
        res.charged = beval.report(op.name).charged
        res.seconds = time.perf_counter() - t0
        return res
    res.baseline_us = root_ev.latency_us
    cores = kernel_cores(soc, next(iter(root_ev.profile.values()), None))
    res.noise = noise_threshold(root_ev, sigmas, min_effect_pct).to_dict()
    # the effects of a judged removal, in order: distill a kept one (into the bank), record the
    # attempt, report it
    callbacks = MeasureCallbacks([distill_kept(res, distiller, bank, cores), record_attempt(res)])
    if on_attempt is not None:
        callbacks.append(lambda mm: on_attempt(mm.detail["attempt"]))
    queue: list[tuple[int, int, int, Motif, Site, Operator, Evaluation]] = []  # a heap
    seq = itertools.count()
    seen = {op.digest}

    def expand(parent: Operator, parent_ev: Evaluation, d: int) -> None:
        if d < depth:
            for tier, m, site in _candidates(parent, motifs):
                heapq.heappush(queue, (tier, d, next(seq), m, site, parent, parent_ev))

    expand(op, root_ev, 0)
    res.stop_reason = "exhausted"
    try:
        while queue:
            todo: list[tuple[Motif, Site, Operator, Attempt, Operator, Evaluation, int]] = []
            while queue and len(todo) < max(1, batch):
                _, d, _, m, site, parent, parent_ev = heapq.heappop(queue)
                a = Attempt(m.name, m.family, site.label, site.file, site.line, d + 1, parent.digest)
                try:
                    cand = m.apply(parent, site)
                except Exception as e:  # noqa: BLE001 - a rewriter bug is this attempt's failure
                    a.status, a.reason, a.detail = "motif_error", "failed", f"{type(e).__name__}: {e}"
                    res.attempts.append(a)
                    continue
                if cand.digest in seen:
                    continue
                seen.add(cand.digest)
                m, site = m.explain(cand, site)  # a proposing motif describes each candidate
                a.family, a.site, a.file, a.line = m.family, site.label, site.file, site.line
                a.digest = cand.digest
                todo.append((m, site, cand, a, parent, parent_ev, d))
            if not todo:
                continue
            try:
                evs: list[Evaluation | None] = list(beval.evaluate_many([t[2] for t in todo], cases))
            except BudgetExhausted as e:
                evs = list(e.results) + [None] * (len(todo) - len(e.results))
                res.stop_reason = "budget"
            for (m, site, cand, a, parent, parent_ev, d), ev in zip(todo, evs):
                if ev is None:
                    continue
                noise = noise_threshold(parent_ev, sigmas, min_effect_pct)
                v = judge(parent_ev, ev, noise)
                a.status, a.reason, a.detail = ev.status, v.reason, v.detail
                a.latency_us, a.slowdown, a.charged = ev.latency_us, v.slowdown, not ev.duplicate
                callbacks(Measured("judged", "rewind", cand, ev, parent, parent_ev, v,
                                   {"attempt": a, "motif": m, "site": site, "depth": d, "noise": noise}))
                if v.kept:
                    expand(cand, ev, d + 1)
            if res.stop_reason == "budget":
                return res
    finally:
        res.charged = beval.report(op.name).charged
        res.seconds = time.perf_counter() - t0
    return res


def distill_kept(res: RewindResult, distiller: Distiller, bank: ExperienceBank | None, cores: int) -> MeasureCallback:
    """Measure callback: a kept removal is distilled into an experience of the result (and of
    ``bank`` when given); its attempt names the experience."""
    def cb(mm: Measured) -> None:
        if mm.verdict is None or not mm.verdict.kept:
            return
        m, site, d, a = mm.detail["motif"], mm.detail["site"], mm.detail["depth"], mm.detail["attempt"]
        rewrite, rsites = optimizing_rewrite(m, mm.candidate)
        exp = distiller.distill(Pair(m, site, mm.parent, mm.candidate, mm.parent_evaluation, mm.evaluation,
                                     mm.detail["noise"], cores, d + 1, rewrite, rsites))
        res.experiences.append(exp)
        a.experience = exp.id
        if bank is not None:
            bank.add(exp)
    return cb


def record_attempt(res: RewindResult) -> MeasureCallback:
    """Measure callback: every judged removal is one attempt of the result."""
    return lambda mm: res.attempts.append(mm.detail["attempt"])
