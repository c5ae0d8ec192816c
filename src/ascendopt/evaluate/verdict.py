"""The one verdict on a candidate against its parent, and the measured noise threshold it must clear.

Rewind keeps a de-optimization (:func:`judge`), Stage I and Stage II accept an optimization
(:func:`judge_improvement`), and every benchmark method and metric counts a candidate
(:func:`correct`, :func:`faster`, :func:`gain_chain`) by the rules here.

A de-optimized candidate is kept only when it

1. built, passed every case and its benchmark runs (status ``ok``),
2. carries no hazard its parent did not have (a removal that introduces a race or an
   out-of-bounds read is a bug, not a lesson: the simulator reports such hazards as typed
   errors, or as warnings on the reference operator, see :func:`hazards`),
3. is slower than its parent by more than ``tau_us``.

``tau_us`` is measured, not assumed (:func:`noise_threshold`): ``sigmas`` standard deviations
of the parent's repeated benchmark runs (pooled within each benchmark case) (``EvalConfig.profile_repeats``; on the simulator the
runs differ only with ``--noise-pct``; on an NPU they are real repeats), and never less than
``min_effect_pct`` of the parent's latency: a noise-free simulator measures sigma = 0, and a
sub-percent slowdown is not a lesson worth storing. Both figures are recorded with the
experience.
"""

from __future__ import annotations

import math
import shutil
import statistics
from dataclasses import asdict, dataclass
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.hazards import hazards, new_hazards, reject_new_hazards  # noqa: F401 (the hazard rule)

DEFAULT_SIGMAS = 3.0
DEFAULT_MIN_EFFECT_PCT = 1.0


@dataclass(frozen=True)
class Noise:
    """The noise threshold of one parent.

    Attributes:
        tau_us: A slowdown must exceed this to count.
        sigma_us: Standard deviation of the parent's repeated runs (0 for one run).
        repeats: How many runs it rests on.
        sigmas: The multiple of sigma used.
        min_effect_pct: The floor, in percent of the parent's latency.
    """

    tau_us: float
    sigma_us: float
    repeats: int
    sigmas: float
    min_effect_pct: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def benchmark_runs(ev: Evaluation) -> dict[str, list[float]]:
    """The benchmark runs' durations of an evaluation, by benchmark case."""
    return {name: [float(x) for x in summary.get("runs_us") or ()] for name, summary in (ev.profile or {}).items()}


def pooled_sigma(runs: dict[str, list[float]]) -> float:
    """Standard deviation of one run, pooled over the cases' repeats (the spread *within* a
    case; different cases have different latencies, which is not noise). 0 without repeats."""
    variances = [statistics.variance(r) for r in runs.values() if len(r) > 1]
    return math.sqrt(sum(variances) / len(variances)) if variances else 0.0


def tau_of(latency_us: float, sigma_us: float = 0.0, sigmas: float = DEFAULT_SIGMAS,
           min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT) -> float:
    """The noise threshold of a parent of latency ``latency_us`` whose runs spread by ``sigma_us``:
    ``max(sigmas * sigma_us, min_effect_pct % of latency_us)``."""
    return max(sigmas * sigma_us, latency_us * min_effect_pct / 100.0)


def faster(parent_us: float, child_us: float, tau_us: float) -> bool:
    """Whether a child is faster than its parent by more than ``tau_us`` (the one rule every
    acceptance and every benchmark figure applies)."""
    return parent_us - child_us > tau_us


def noise_threshold(parent: Evaluation, sigmas: float = DEFAULT_SIGMAS,
                    min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT) -> Noise:
    """``max(sigmas * stdev(parent's runs), min_effect_pct % of its latency)``.

    Raises:
        ValueError: The parent is not a correct, timed evaluation.
    """
    if not parent.ok or parent.latency_us is None:
        raise ValueError(f"the parent must be a correct, timed evaluation (status {parent.status})")
    runs = benchmark_runs(parent)
    sigma = pooled_sigma(runs)
    tau = tau_of(parent.latency_us, sigma, sigmas, min_effect_pct)
    return Noise(tau, sigma, max((len(r) for r in runs.values()), default=0), sigmas, min_effect_pct)


@dataclass(frozen=True)
class Verdict:
    """Whether a de-optimized candidate is kept, and why (``reason`` is one of ``kept``,
    ``failed`` (with its status), ``new_hazard``, ``not_slower``)."""

    kept: bool
    reason: str
    detail: str
    slowdown: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def judge(parent: Evaluation, child: Evaluation, noise: Noise) -> Verdict:
    """Applies the three rules (see the module docstring) to one de-optimized candidate."""
    if not child.ok or child.latency_us is None:
        return Verdict(False, "failed", f"{child.status}" + (f" ({child.error_kind})" if child.error_kind else "")
                       + (f": {child.error.strip().splitlines()[0][:200]}" if child.error.strip() else ""))
    new = hazards(child) - hazards(parent)
    if new:
        return Verdict(False, "new_hazard", f"adds {', '.join(sorted(new))}")
    assert parent.latency_us is not None
    delta = child.latency_us - parent.latency_us
    slowdown = child.latency_us / parent.latency_us if parent.latency_us > 0 else math.inf
    if delta <= noise.tau_us:
        return Verdict(False, "not_slower", f"{child.latency_us:.3f} us vs {parent.latency_us:.3f} us "
                                            f"(+{delta:.3f} us, tau {noise.tau_us:.3f} us)", slowdown)
    return Verdict(True, "kept", f"{child.latency_us:.3f} us vs {parent.latency_us:.3f} us "
                                 f"({slowdown:.2f}x slower, tau {noise.tau_us:.3f} us)", slowdown)


def judge_improvement(parent: Evaluation, child: Evaluation, noise: Noise) -> Verdict:
    """Stage I's rule, the mirror of :func:`judge`: a rewrite is accepted only when it is
    correct, adds no hazard and is *faster* than its parent by more than ``tau``
    (``reason``: ``accepted``, ``failed``, ``new_hazard``, ``neutral`` or ``not_faster``;
    ``slowdown`` is child over parent, below 1 for a speedup). A correct, hazard-free child
    that is neither faster nor slower by more than ``tau`` is ``neutral`` (not accepted, but
    Stage I's search may build on it: a rewrite that pays only in a chain), one slower by more
    than ``tau`` is ``not_faster``."""
    v = judge(parent, child, Noise(0.0, noise.sigma_us, noise.repeats, noise.sigmas, noise.min_effect_pct))
    if v.reason in ("failed", "new_hazard"):
        return v
    assert parent.latency_us is not None and child.latency_us is not None
    gain = parent.latency_us - child.latency_us
    ratio = child.latency_us / parent.latency_us if parent.latency_us > 0 else math.inf
    text = f"{child.latency_us:.3f} us vs {parent.latency_us:.3f} us (tau {noise.tau_us:.3f} us)"
    if not faster(parent.latency_us, child.latency_us, noise.tau_us):
        return Verdict(False, "neutral" if -gain <= noise.tau_us else "not_faster", text, ratio)
    return Verdict(True, "accepted", text, ratio)


def correct(ev: Evaluation | None, original_hazards: set[str]) -> bool:
    """A candidate counts when it passed every case with a latency and carries no hazard kind
    the original did not have (the rule of :mod:`ascendopt.evaluate.hazards`)."""
    return (ev is not None and ev.ok and ev.latency_us is not None
            and not new_hazards(original_hazards, ev))


def gain_chain(reference_us: float | None, evals: Sequence[tuple[bool, float | None]],
               reference_sigma_us: float = 0.0) -> list[tuple[int, float]]:
    """The improvements a run makes over its reference, in charge order: ``evals`` are the
    charged evaluations as ``(correct, latency_us)``. A correct one counts when it is
    :func:`faster` than the reference by the reference's :func:`tau_of` (the default sigmas
    and floor, as the tools use; ``reference_sigma_us``: the spread of the reference's runs),
    and improves the run's best when it is below it. Returns ``(k, latency_us)`` per
    improvement (``k``: charged evaluations after which it was made); empty when nothing beat
    the reference by its noise threshold, or there is no reference.

    This is the rule the tools accept by (Stage II takes a round's fastest candidate when it
    beats the current kernel by tau; best-of-N and evolve the fastest beyond tau of the
    original); on the committed own-suite benchmark it gives the tool's figure for 55 of 57
    full and of 57 stage2 pairs (where the tool later required tau against a better kernel it
    differs by less than tau), and no pair a gain within tau."""
    if not reference_us:
        return []
    tau = tau_of(reference_us, reference_sigma_us)
    best, out = reference_us, []
    for k, (ok, lat) in enumerate(evals, 1):
        if ok and lat and faster(reference_us, lat, tau) and lat < best:
            best = lat
            out.append((k, lat))
    return out


# ------------------------------------------------------------------- measure callbacks
@dataclass
class Measured:
    """What the measure callbacks receive: one candidate judged against its parent.

    Attributes:
        event: ``judged`` (every evaluated candidate: a Stage I proposal, a Stage II trial, a
            rewind removal), ``accepted`` (a change of the current kernel, by any stage) or
            ``finished`` (the end of an ``optimize`` run: ``candidate`` is its best,
            ``detail`` its result; only the caller's callbacks get it).
        stage: ``stage1``, ``stage2``, ``rewind`` or (``finished``) ``run``.
        candidate: The candidate operator.
        evaluation: Its evaluation; a callback may replace it (e.g. :func:`reject_hazards`
            with the rejected one), and the callbacks after it see the replacement. None for
            ``finished``.
        parent: The operator it was judged against.
        parent_evaluation: That operator's evaluation (None where it is not known: a Stage II
            trial, whose parent is evaluated only when a candidate needs it, and ``finished``).
        verdict: The verdict (None where the stage judged by :func:`faster` alone).
        detail: What the stage knows besides (Stage I: its ``Tried`` or search step; a Stage
            II trial: its ``config`` and the round's ``batch``; an ``accepted`` event: the
            result's ``Accepted`` entry).
    """

    event: str
    stage: str
    candidate: Any
    evaluation: Evaluation | None
    parent: Any
    parent_evaluation: Evaluation | None
    verdict: Verdict | None = None
    detail: Any = None


MeasureCallback = Callable[[Measured], None]


class MeasureCallbacks:
    """The post-evaluation effects of a run as an ordered list (MetaSchedule's measure
    callbacks): every :class:`Measured` goes to each callback, in order. Other parts (e.g. the
    bank's outcome values) :meth:`append` theirs."""

    def __init__(self, callbacks: Sequence[MeasureCallback] = ()):
        self.callbacks: list[MeasureCallback] = list(callbacks)

    def append(self, callback: MeasureCallback) -> None:
        self.callbacks.append(callback)

    def __call__(self, measured: Measured) -> None:
        for cb in self.callbacks:
            cb(measured)


def reject_hazards(parent_kinds: Callable[[Measured], set[str]]) -> MeasureCallback:
    """Measure callback: a correct candidate (other than its parent; verified, or timed and not
    verified on every case: ``Evaluation.timed``) that carries a hazard kind
    its parent lacks is judged failed (:func:`~ascendopt.evaluate.hazards.reject_new_hazards`
    replaces ``evaluation``), so the callbacks after it (the search's record, its strategy) see
    a failure. ``parent_kinds`` gives the parent's hazard kinds; it is asked only for a
    candidate that carries a hazard (finding them may cost an evaluation)."""
    def cb(m: Measured) -> None:
        ev = m.evaluation
        if ev is not None and ev.timed and m.candidate.digest != m.parent.digest and hazards(ev):
            m.evaluation = reject_new_hazards(ev, parent_kinds(m))
    return cb


def clean_profiles(root: Path | str) -> MeasureCallback:
    """Measure callback: at the end of a run (``finished``) the full profiles kept under
    ``root`` for its diagnosis (``EvalConfig.profile_dir``) are removed."""
    def cb(m: Measured) -> None:
        if m.event == "finished":
            shutil.rmtree(root, ignore_errors=True)
    return cb
