"""The reference method's metrics, computed from per-run trajectories.

A :class:`Trial` is one (operator, method, seed) run reduced to what the metrics need: the
reference latency (the operator as given) and, in charge order, every charged evaluation as
(correct, latency). "Correct" means passed every case and added no hazard kind the original
lacks. A run's best is decided by the one verdict
(:func:`ascendopt.evaluate.verdict.gain_chain`): the fastest correct evaluation faster than
the original by more than its noise threshold ``tau``, the rule the tools accept changes by,
so a gain within the noise is no gain here either. A run's speedup is
never below 1.0x: an operator with no such improvement keeps the original (1.0x), as does one
whose original failed (no reference).

Per method and level, with one group of operators per seed (the figures are then averaged
over seeds, each seed's value kept in ``per_seed``):

* ``gm_speedup``: geometric mean over operators of reference / best;
* ``fast_p`` for p in :data:`FAST_P`: share of operators whose best is correct and faster
  than p times the reference (speedup > p, strictly: ``fast_1.0`` means strictly faster);
* ``correct_eval_rate``: share of charged evaluations that were correct (pooled);
* ``improved_rate``: share of operators with a correct candidate faster than the reference;
* ``evals_to_first_improvement``: mean (and ``..._median``) over improved operators of the
  number of charged evaluations after which the best first beat the reference;
* ``roofline_before`` / ``roofline_after``: mean achieved fraction of the roofline
  (``achieved_fraction`` of the profile summaries) of the original and of the best;
* budget curves: the geometric-mean speedup of the best so far after k charged evaluations,
  k = 0 .. budget (a run that stopped early keeps its final best).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.evaluate.hazards import hazards
from ascendopt.evaluate.verdict import benchmark_runs, correct, gain_chain, pooled_sigma

FAST_P = (1.0, 1.2, 1.5, 2.0)
ALL = "all"


@dataclass
class Trial:
    """One (operator, method, seed) run.

    Attributes:
        op: Operator name.
        level: Its level (0: unknown).
        method: Method name.
        seed: Seed.
        reference_us: The original's latency (None: the original failed).
        evals: Charged evaluations in order, each ``(correct, latency_us)``.
        roofline_before: Achieved roofline fraction of the original (None: unknown).
        roofline_after: Achieved roofline fraction of the best correct candidate.
        seconds: Wall time of the run.
        reference_sigma_us: Pooled sigma of the original's timed runs (0: one run each).
    """

    op: str
    level: int
    method: str
    seed: int
    reference_us: float | None
    evals: list[tuple[bool, float | None]] = field(default_factory=list)
    roofline_before: float | None = None
    roofline_after: float | None = None
    seconds: float = 0.0
    reference_sigma_us: float = 0.0

    def gains(self) -> list[tuple[int, float]]:
        """``(k, latency)`` of each improvement over the best so far (the verdict's rule)."""
        return gain_chain(self.reference_us, self.evals, self.reference_sigma_us)

    def best_us(self) -> float | None:
        """The best latency (the reference when nothing improved on it; None without a
        correct evaluation)."""
        g = self.gains()
        return g[-1][1] if g else (self.reference_us if self.best_correct else None)

    def speedup_after(self, k: int | None = None) -> float:
        """Reference over the best latency after the first ``k`` charged evaluations (all when
        None); 1.0 when nothing improved on the reference or there is none."""
        lats = [lat for j, lat in self.gains() if k is None or j <= k]
        return self.reference_us / lats[-1] if lats and self.reference_us else 1.0

    @property
    def speedup(self) -> float:
        return self.speedup_after(None)

    @property
    def best_correct(self) -> bool:
        """The run has a correct candidate (its best is correct)."""
        return self.reference_us is not None and any(ok and lat for ok, lat in self.evals)

    def first_improvement(self) -> int | None:
        """Charged evaluations after which the best first beat the reference (None: never)."""
        g = self.gains()
        return g[0][0] if g else None

    def record(self) -> dict[str, Any]:
        """Everything the trial is made of (:meth:`from_record` reads it back)."""
        return {"op": self.op, "level": self.level, "method": self.method, "seed": self.seed,
                "reference_us": self.reference_us, "evals": [[bool(ok), lat] for ok, lat in self.evals],
                "roofline_before": self.roofline_before, "roofline_after": self.roofline_after,
                "seconds": self.seconds, "reference_sigma_us": self.reference_sigma_us}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> "Trial":
        return cls(str(d["op"]), int(d["level"]), str(d["method"]), int(d["seed"]), d.get("reference_us"),
                   [(bool(ok), lat) for ok, lat in d.get("evals", [])], d.get("roofline_before"),
                   d.get("roofline_after"), float(d.get("seconds") or 0.0), float(d.get("reference_sigma_us") or 0.0))

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "level": self.level, "method": self.method, "seed": self.seed,
                "reference_us": self.reference_us, "best_us": self.best_us(),
                "speedup": self.speedup, "charged": len(self.evals),
                "correct": sum(ok for ok, _ in self.evals), "first_improvement": self.first_improvement(),
                "roofline_before": self.roofline_before, "roofline_after": self.roofline_after,
                "seconds": round(self.seconds, 2)}


def geomean(xs: Iterable[float]) -> float | None:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _mean(xs: Iterable[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return sum(v) / len(v) if v else None


def group_metrics(trials: Sequence[Trial]) -> dict[str, Any]:
    """The metrics of one group of runs (one method, one level, one seed): see the module doc."""
    n = len(trials)
    sp = [t.speedup for t in trials]
    out: dict[str, Any] = {"operators": n, "gm_speedup": geomean(sp)}
    for p in FAST_P:
        out[f"fast_{p}"] = sum(t.best_correct and s > p for t, s in zip(trials, sp)) / n if n else None
    charged = sum(len(t.evals) for t in trials)
    out["charged"] = charged
    out["correct_eval_rate"] = sum(ok for t in trials for ok, _ in t.evals) / charged if charged else None
    firsts = [f for f in (t.first_improvement() for t in trials) if f is not None]
    out["improved_rate"] = len(firsts) / n if n else None
    out["evals_to_first_improvement"] = _mean(firsts)
    out["evals_to_first_improvement_median"] = statistics.median(firsts) if firsts else None
    out["roofline_before"] = _mean(t.roofline_before for t in trials)
    out["roofline_after"] = _mean(t.roofline_after for t in trials)
    secs = sum(t.seconds for t in trials)
    out["evals_per_minute"] = 60.0 * charged / secs if secs > 0 else None
    return out


def budget_curve(trials: Sequence[Trial], budget: int) -> list[float]:
    """Geometric-mean speedup of the best so far after k = 0 .. budget charged evaluations."""
    if not trials:
        return []
    return [geomean(t.speedup_after(k) for t in trials) or 1.0 for k in range(budget + 1)]


def _by_seed(trials: Sequence[Trial]) -> dict[int, list[Trial]]:
    out: dict[int, list[Trial]] = {}
    for t in trials:
        out.setdefault(t.seed, []).append(t)
    return dict(sorted(out.items()))


def _average(per_seed: dict[int, dict[str, Any]]) -> dict[str, Any]:
    keys = next(iter(per_seed.values())).keys()
    out: dict[str, Any] = {k: _mean(m[k] for m in per_seed.values()) for k in keys}
    out["seeds"] = len(per_seed)
    out["per_seed"] = {str(s): m for s, m in per_seed.items()}
    return out


def summarize(trials: Sequence[Trial], budget: int) -> dict[str, Any]:
    """Metrics and budget curves per method and level (``"all"`` plus each level present):
    ``{"metrics": {method: {level: {...}}}, "curves": {method: {level: [gm_k ...]}}}``, each
    averaged over seeds."""
    metrics: dict[str, dict[str, Any]] = {}
    curves: dict[str, dict[str, list[float]]] = {}
    methods = list(dict.fromkeys(t.method for t in trials))
    for m in methods:
        mine = [t for t in trials if t.method == m]
        groups = {ALL: mine}
        for lv in sorted({t.level for t in mine}):
            groups[str(lv)] = [t for t in mine if t.level == lv]
        metrics[m], curves[m] = {}, {}
        for g, ts in groups.items():
            seeds = _by_seed(ts)
            metrics[m][g] = _average({s: group_metrics(v) for s, v in seeds.items()})
            per = [budget_curve(v, budget) for v in seeds.values()]
            curves[m][g] = [sum(c[k] for c in per) / len(per) for k in range(budget + 1)]
    return {"metrics": metrics, "curves": curves}


def per_operator(trials: Sequence[Trial]) -> list[dict[str, Any]]:
    """One row per operator: level and, per method, the speedup averaged (geometrically) over
    seeds."""
    rows: dict[str, dict[str, Any]] = {}
    for t in trials:
        r = rows.setdefault(t.op, {"op": t.op, "level": t.level, "reference_us": t.reference_us, "methods": {}})
        r["methods"].setdefault(t.method, []).append(t.speedup)
    for r in rows.values():
        r["methods"] = {m: geomean(v) for m, v in r["methods"].items()}
    return sorted(rows.values(), key=lambda r: (r["level"], r["op"]))


# ------------------------------------------------------------------------- from records
def achieved_fraction(ev: Any) -> float | None:
    """Mean ``achieved_fraction`` of an evaluation's profile summaries (None when unknown)."""
    vals = [s.get("achieved_fraction") for s in (getattr(ev, "profile", None) or {}).values() if isinstance(s, dict)]
    return _mean(v for v in vals if v is not None)


def trial_from_records(records: Sequence[Any], op_digest: str, op: str, level: int, method: str, seed: int,
                       seconds: float = 0.0, rejected: Iterable[str] = ()) -> Trial:
    """A :class:`Trial` from one run's evaluation records (``EvalRecord``s, in order); the
    original is the charged evaluation of ``op_digest``. Candidates in ``rejected`` (digests
    that failed a shape the search never used: :mod:`ascendopt.evaluate.unseen_check`) do not
    count as correct."""
    charged = [r.evaluation for r in records if r.charged]
    orig = next((e for e in charged if e.digest == op_digest), None)
    ref = orig.latency_us if orig is not None and orig.ok else None
    base_hz = hazards(orig) if orig is not None else set()
    rejected = set(rejected)
    evals = [(ref is not None and correct(e, base_hz) and e.digest not in rejected, e.latency_us) for e in charged]
    t = Trial(op, level, method, seed, ref, evals, achieved_fraction(orig) if orig is not None else None,
              seconds=seconds, reference_sigma_us=pooled_sigma(benchmark_runs(orig)) if orig is not None else 0.0)
    gains = t.gains()
    best = charged[gains[-1][0] - 1] if gains else (orig if ref is not None else None)
    if best is not None:
        t.roofline_after = achieved_fraction(best)
    return t
