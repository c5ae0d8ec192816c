"""Stage II: profiling-in-the-loop search over the host tiling program.

The loop is built on ask/tell: a :class:`~ascendopt.tiling.strategies.base.Strategy`
proposes knob configs, :meth:`KnobSpace.apply` turns each into a new immutable Operator,
the :class:`~ascendopt.evaluate.budget.BudgetedEvaluator` checks it on every case and times
it on the benchmark case(s) (spending budget only for new device programs: a candidate whose
sources or whose launch, found by running only its tiling, match an evaluated one is answered
from the records), and the strategy is told the outcome. Failed candidates are told as infeasible and never become parents. The
search stops when the budget is spent (or the strategy only repeats known candidates) and
returns the fastest correct candidate. A candidate that carries a hazard kind the original does
not (a race, a read past a tensor's end: warnings on the operator as given, see
:mod:`ascendopt.evaluate.hazards`) is judged failed with that hazard as its ``error_kind``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ascendopt.cases import Case
from ascendopt.evaluate.budget import BudgetedEvaluator, BudgetExhausted
from ascendopt.evaluate.evaluation import UNVERIFIED
from ascendopt.evaluate.evaluator import Evaluation, benchmark_cases
from ascendopt.evaluate.verdict import MeasureCallback, MeasureCallbacks, Measured, hazards, reject_hazards
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import compact_profile
from ascendopt.tiling.moves import diagnose, kernel_cores
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import Strategy, TrialResult

#: Rounds in a row that produced only already-evaluated candidates (same sources or same device
#: program) before the search stops. Such a round costs at most one tiling run per candidate.
MAX_STALE_ROUNDS = 100


@dataclass
class Trial:
    """One proposed candidate and its outcome (``index`` counts charged evaluations)."""

    index: int
    config: dict[str, Any]
    status: str
    latency_us: float | None
    error_kind: str = ""
    error: str = ""
    digest: str = ""
    duplicate: bool = False
    profile: dict[str, Any] | None = None
    same_as: str = ""


@dataclass
class TuneResult:
    """Outcome of one Stage II search."""

    op_name: str
    strategy: str
    budget: int
    charged: int
    duplicates: int
    baseline_latency_us: float | None
    best_latency_us: float | None
    best_config: dict[str, Any]
    best_digest: str
    trials: list[Trial] = field(default_factory=list)
    best_op: Operator | None = field(default=None, repr=False)
    stop_reason: str = ""
    probes: int = 0   # tiling-only runs of the program oracle (no device run, no budget)

    @property
    def equivalents(self) -> int:
        """Answers taken from an evaluated candidate with other sources but the same device
        program (launch)."""
        return sum(1 for t in self.trials if t.same_as)

    @property
    def speedup(self) -> float | None:
        if self.baseline_latency_us and self.best_latency_us:
            return self.baseline_latency_us / self.best_latency_us
        return None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("best_op", "trials")}
        d["trials"] = [asdict(t) for t in self.trials]
        d["speedup"] = self.speedup
        d["equivalents"] = self.equivalents
        return d


def _trial_result(ev: Evaluation) -> TrialResult:
    """What the strategy is told: status, latency and (for a correct candidate) the compact
    profile of its first benchmark case. A candidate timed above the strategy's bar and not
    verified on every case (:data:`~ascendopt.evaluate.evaluation.UNVERIFIED`) is told as it
    ran: feasible, with its latency (it could be neither the best nor a parent)."""
    timed = ev.timed
    profile = compact_profile(next(iter(ev.profile.values()), None)) if timed and ev.profile else None
    return TrialResult(status=ev.status, latency_us=ev.latency_us if timed else None, feasible=timed,
                       profile=profile)


class ProgramOracle:
    """A config's device program on the benchmark case(s): the launch key of its host tiling
    there (no device run, no budget; cached per config). The benchmark cases alone, because
    latency is timed on them: a knob that only changes a small case's split does not move
    latency. None where the backend cannot run the tiling alone, or the tiling fails.
    ``probes`` counts the tiling-only runs made (configs asked for the first time)."""

    def __init__(self, op: Operator, cases: Sequence[Case], evaluator: BudgetedEvaluator, space: KnobSpace):
        self.op, self.space, self.inner = op, space, evaluator.evaluator
        self.bench = benchmark_cases(cases, self.inner.config.benchmark_cases)
        self.cache: dict[tuple, str | None] = {}

    @property
    def probes(self) -> int:
        return len(self.cache)

    def __call__(self, config: Mapping[str, Any]) -> str | None:
        k = self.space.key(self.space.complete(config))
        if k not in self.cache:
            self.cache[k] = self.inner.launch_key(self.space.apply(self.op, config, origin="stage2/probe"), self.bench)
        return self.cache[k]


def tune(op: Operator, cases: Sequence[Case], evaluator: BudgetedEvaluator, space: KnobSpace,
         strategy: Strategy, strategy_name: str, batch: int = 1,
         on_trial: Callable[[Trial, "TuneResult"], None] | None = None) -> TuneResult:
    """Runs the search until the operator's budget is spent (or the user interrupts it: then
    ``stop_reason`` is "interrupted" and the result holds what was evaluated so far).

    Args:
        op: The starting operator (its config is the space's defaults).
        cases: Cases every candidate is checked on (the evaluator picks benchmark cases).
        evaluator: Budget, records and execution; the only place budget is enforced.
        space: The knob space of ``op``.
        strategy: An ask/tell strategy over ``space``.
        strategy_name: Label recorded as the candidates' origin (``stage2/<name>``).
        batch: Candidates asked and evaluated per round (parallel on the executor).
        on_trial: Called after every trial (progress display).
    """
    budget = evaluator.budget
    if budget is None:
        raise ValueError("Stage II needs a finite evaluation budget")
    res = TuneResult(op.name, strategy_name, budget, 0, 0, None, None, {}, "")
    oracle = None
    if hasattr(strategy, "program_of") and evaluator.equivalence:
        oracle = strategy.program_of = ProgramOracle(op, cases, evaluator, space)
    try:
        _search(op, cases, evaluator, space, strategy, batch, on_trial, res)
    except KeyboardInterrupt:
        # the user stops the search: what was evaluated is kept and reported
        res.stop_reason = "interrupted"
    rep = evaluator.report(op.name)
    res.charged, res.duplicates = rep.charged, rep.duplicates
    res.probes = oracle.probes if oracle is not None else 0
    return res


def _search(op: Operator, cases: Sequence[Case], evaluator: BudgetedEvaluator, space: KnobSpace,
            strategy: Strategy, batch: int, on_trial: Callable[[Trial, "TuneResult"], None] | None,
            res: TuneResult) -> None:
    """The ask / evaluate / tell rounds of :func:`tune`, recorded into ``res`` (whose
    ``strategy`` names the candidates' origin). Every trial goes through the search's measure
    callbacks, in order: reject a new hazard, record it (the strategy is told, the result
    takes the trial), report progress."""
    strategy_name = res.strategy
    stale = 0
    parent: list[set[str]] = []  # the original's hazard kinds, once known
    callbacks = MeasureCallbacks([
        reject_hazards(lambda m: _parent_hazards(op, cases, evaluator, m.detail["batch"], parent)),
        _record_trial(strategy, evaluator, res)])
    if on_trial:
        callbacks.append(lambda m: on_trial(res.trials[-1], res))
    while True:
        left = evaluator.remaining(op.name)
        if left == 0:
            res.stop_reason = "budget spent"
            break
        done = getattr(strategy, "exhausted", "")  # e.g. evo with every knob retired
        if done:
            res.stop_reason = done
            break
        if stale >= MAX_STALE_ROUNDS:
            res.stop_reason = f"strategy proposed only known candidates for {stale} rounds"
            break
        replayed = getattr(evaluator, "replayed", {}).get(op.name, 0)  # a resumed run's answers
        configs = strategy.ask(max(1, min(batch, left or batch)))
        cands = [space.apply(op, c, origin=f"stage2/{strategy_name}") for c in configs]
        bar = _bar(strategy, res)
        try:
            evals: list[Evaluation | None] = list(evaluator.evaluate_many(cands, cases, bar_us=bar))
        except BudgetExhausted as e:
            evals = e.results
        new = 0
        batch_evals = dict(zip((c.digest for c in cands), evals))
        for cfg, cand, ev in zip(configs, cands, evals):
            if ev is None:
                continue
            m = Measured("judged", "stage2", cand, ev, op, None, None, {"config": cfg, "batch": batch_evals})
            callbacks(m)
            new += 0 if m.evaluation.duplicate else 1
        stale = 0 if new or getattr(evaluator, "replayed", {}).get(op.name, 0) > replayed else stale + 1


def _record_trial(strategy: Strategy, evaluator: BudgetedEvaluator, res: TuneResult) -> MeasureCallback:
    """Measure callback: the strategy is told a trial's outcome, and the result takes it (its
    baseline when the trial is the original, its best when it is the fastest correct one)."""
    def cb(m: Measured) -> None:
        ev, cand, cfg = m.evaluation, m.candidate, m.detail["config"]
        told = _trial_result(ev)
        strategy.tell(cfg, told)
        report = evaluator.report(m.parent.name)
        res.trials.append(Trial(report.charged, dict(cfg), ev.status, ev.latency_us, ev.error_kind, ev.error[:500],
                                cand.digest, ev.duplicate, None if told.profile is None else dict(told.profile),
                                ev.same_as))
        if ev.ok and cand.digest == m.parent.digest and res.baseline_latency_us is None:
            res.baseline_latency_us = ev.latency_us
        if ev.ok and ev.latency_us is not None and (res.best_latency_us is None or ev.latency_us < res.best_latency_us):
            res.best_latency_us, res.best_config, res.best_digest, res.best_op = (
                ev.latency_us, dict(cfg), cand.digest, cand)
    return cb


def _bar(strategy: Strategy, res: TuneResult) -> float | None:
    """The latency above which this round's candidates need not be verified on every case:
    the strategy's :meth:`~ascendopt.tiling.strategies.base.Strategy.verify_bar`, never below
    the search's best (a candidate faster than the best is the new best: verified)."""
    bar = getattr(strategy, "verify_bar", lambda: None)()
    if bar is None or res.best_latency_us is None:
        return None
    return max(bar, res.best_latency_us)


def _parent_hazards(op: Operator, cases: Sequence[Case], evaluator: BudgetedEvaluator,
                    batch: Mapping[str, Evaluation | None], known: list[set[str]]) -> set[str]:
    """The original operator's hazard kinds (cached in ``known``): from this round's batch, or
    from the records (a duplicate, free), or by evaluating it (only needed when a candidate
    carries a hazard before the original was evaluated). When the budget does not allow that,
    the original counts as hazard-free (a hazardous candidate is then rejected)."""
    if not known:
        ev = batch.get(op.digest)
        if ev is None:
            try:
                ev = evaluator.evaluate(op, cases)
            except BudgetExhausted:
                return set()
        known.append(hazards(ev))
    return known[0]


# ------------------------------------------------------------------------------------ outputs
def unified_patch(original: Operator, best: Operator) -> str:
    """A unified diff (``a/`` → ``b/``) of every changed source file."""
    import difflib

    out = []
    for rel in sorted(set(original.files) | set(best.files)):
        a, b = original.files.get(rel, ""), best.files.get(rel, "")
        if a != b:
            out += difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}")
    return "".join(out)


def convergence_plot(result: TuneResult, path: Path) -> None:
    """PNG: best latency so far vs charged evaluations; failures marked on the x axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, best, ok_x, ok_y, fail_x, lazy_x, lazy_y = [], [], [], [], [], [], []
    cur = None
    for t in result.trials:
        if t.duplicate:
            continue
        if t.status == UNVERIFIED and t.latency_us is not None:  # timed above the bar: no failure
            lazy_x.append(t.index)
            lazy_y.append(t.latency_us)
        elif t.status == "ok" and t.latency_us is not None:
            ok_x.append(t.index)
            ok_y.append(t.latency_us)
            cur = t.latency_us if cur is None else min(cur, t.latency_us)
        else:
            fail_x.append(t.index)
        if cur is not None:
            xs.append(t.index)
            best.append(cur)
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.scatter(ok_x, ok_y, s=10, color="tab:blue", alpha=0.35, label="correct candidate")
    if lazy_x:
        ax.scatter(lazy_x, lazy_y, s=10, color="tab:gray", alpha=0.35, label="timed above the bar (not verified)")
    ax.step(xs, best, where="post", color="tab:green", linewidth=2, label="best so far")
    if fail_x:
        lo = min(ok_y) if ok_y else 1.0
        ax.scatter(fail_x, [lo * 0.97] * len(fail_x), marker="x", color="tab:red", s=18, label="failed candidate")
    if result.baseline_latency_us:
        ax.axhline(result.baseline_latency_us, color="gray", linestyle="--", linewidth=1, label="original")
    ax.set_xlabel("evaluations (budget spent)")
    ax.set_ylabel("task duration (us)")
    ax.set_title(f"{result.op_name}: Stage II ({result.strategy})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_outputs(result: TuneResult, original: Operator, space: KnobSpace, out: Path) -> dict[str, str]:
    """Writes best/ (operator dir), best.patch, report.md, convergence.png, trials.json."""
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    best = result.best_op or original
    best.write_to(out / "best")
    paths["best"] = str(out / "best")
    (out / "best.patch").write_text(unified_patch(original, best))
    paths["patch"] = str(out / "best.patch")
    (out / "trials.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    paths["trials"] = str(out / "trials.json")
    convergence_plot(result, out / "convergence.png")
    paths["plot"] = str(out / "convergence.png")
    lines = [f"# Stage II tiling search: {original.op_type} ({original.name})", "",
             f"- strategy: `{result.strategy}`, budget {result.budget} (charged {result.charged}, "
             f"answered from records {result.duplicates}, of which {result.equivalents} by an evaluated "
             "candidate launching the same device program)",
             f"- stop: {result.stop_reason}"
             + (f"; {result.probes} tiling-only probes of adjacent programs (no device run)" if result.probes else ""),
             f"- original: {_us(result.baseline_latency_us)}; best: {_us(result.best_latency_us)}"
             + (f" (speedup {result.speedup:.3f}x)" if result.speedup else ""), "",
             "![convergence](convergence.png)", "", "## Knobs of the best candidate", "",
             "| knob | file:line | original | best |", "|---|---|---|---|"]
    defaults = space.defaults()
    for k in space.knobs:
        v = result.best_config.get(k.id, defaults[k.id])
        mark = " **(changed)**" if v != defaults[k.id] else ""
        lines.append(f"| `{k.id}` | {k.file}:{k.line} | {defaults[k.id]} | {v}{mark} |")
    lines += _profile_section(result, original, space)
    statuses: dict[str, int] = {}
    for t in result.trials:
        if not t.duplicate:
            statuses[t.status] = statuses.get(t.status, 0) + 1
    lines += ["", "## Evaluations by status", "", "| status | count |", "|---|---|"]
    lines += [f"| {s} | {n} |" for s, n in sorted(statuses.items())]
    lines += ["", "The patch against the original is `best.patch`; the best operator directory is `best/`.", ""]
    (out / "report.md").write_text("\n".join(lines))
    paths["report"] = str(out / "report.md")
    return paths


def _profile_section(result: TuneResult, original: Operator, space: KnobSpace) -> list[str]:
    """Markdown: what the profiles of the original and of the best candidate say."""
    rows = []
    for label, digest in (("original", original.digest), ("best", result.best_digest)):
        t = next((t for t in result.trials if t.digest == digest and t.profile), None)
        if t is None or (label == "best" and digest == original.digest):
            continue
        p = t.profile or {}
        found = "; ".join(f"{f.kind.replace('_', ' ')}: {f.reason}" for f in diagnose(p, kernel_cores(space, p)))
        rows.append(f"| {label} | {_us(t.latency_us)} | {p.get('bound', '-')} | {p.get('block_dim', '-')} | "
                    f"{found or 'nothing left to answer'} |")
    if not rows:
        return []
    return ["", "## What the profiles say", "", "| candidate | latency | bound | block dim | findings |",
            "|---|---|---|---|---|", *rows]


def _us(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f} us"
