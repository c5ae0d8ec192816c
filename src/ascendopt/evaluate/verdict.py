"""The one verdict on a candidate against its parent, and the measured noise threshold it must clear.

Rewind keeps a de-optimization (:func:`judge`), Stage I and Stage II accept an optimization
(:func:`judge_improvement`), and every benchmark method and metric counts a candidate
(:func:`correct`) by the rules here.

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
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.hazards import hazards, new_hazards

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
    tau = max(sigmas * sigma, parent.latency_us * min_effect_pct / 100.0)
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
    if gain <= noise.tau_us:
        return Verdict(False, "neutral" if -gain <= noise.tau_us else "not_faster", text, ratio)
    return Verdict(True, "accepted", text, ratio)


def correct(ev: Evaluation | None, original_hazards: set[str]) -> bool:
    """A candidate counts when it passed every case with a latency and carries no hazard kind
    the original did not have (the rule of :mod:`ascendopt.evaluate.hazards`)."""
    return (ev is not None and ev.ok and ev.latency_us is not None
            and not new_hazards(original_hazards, ev))
