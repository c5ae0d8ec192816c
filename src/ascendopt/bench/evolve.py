"""An OpenEvolve-style baseline: MAP-Elites with islands, mutations by the project's own
rewriters, no experience bank.

**Archive.** Each island keeps a MAP-Elites grid: one elite (the fastest correct candidate)
per cell of two behaviour descriptors, both read from the candidate's profile summary:

1. *Limiting unit*: the class of the busiest pipe -- ``memory`` (MTE2/MTE3), ``vector`` (V),
   ``cube`` (M/MTE1/FIX) -- or ``scalar`` when the scalar pipe is busier than every work pipe.
   Kernel rewrites move a kernel between these classes (vectorising an element loop takes it
   from scalar to vector or memory; merging copies from scalar to memory), so the grid keeps a
   stepping stone of each kind instead of only the fastest.
2. *Pipe overlap*: the sum of the work pipes' busy ratios (busy pipe-time per unit of wall
   time, :attr:`ascendopt.profile.diagnosis.Diagnosis.overlap`), bucketed at
   ``overlap_edges``. Near 1 the pipes take turns; at 2 or more copy-in, compute and copy-out
   run concurrently. Double buffering, dropped waits and tile sizes move it; it measures *how*
   a kernel spends its time, independently of how much (the fitness).

Fitness is the benchmark latency; only correct candidates (every case passed, no hazard kind
the original lacks) enter an archive, so failures never become parents.

**Generations.** One child per island per generation, all evaluated as one batch. A parent is
the island's fastest elite with probability ``exploit`` (OpenEvolve's exploitation ratio),
otherwise a uniformly drawn elite. A child is, with probability ``kernel_share``, a Stage I
rewrite of the parent (a random site of a random optimizing transform, offline; one sample,
LLM), otherwise a Stage II knob move (:meth:`KnobSpace.neighbour` on the parent's own knob
values, :meth:`KnobSpace.apply`); when one kind has nothing new to offer the other is tried.
Every ``migration_interval`` generations each island's fastest elite is offered to the next
island (a ring). The search stops when the budget is spent or ``max_stale`` generations in a
row produced no candidate that was not evaluated before.

Deterministic given the seed: one ``random.Random(seed)``, archives iterated in sorted order.
"""

from __future__ import annotations

import bisect
import random
import time
from dataclasses import dataclass, fields
from typing import Any

from ascendopt.agent import Accepted, OptimizeResult
from ascendopt.bench.common import soc_name, soc_of
from ascendopt.evaluate.verdict import correct, faster, noise_threshold
from ascendopt.evaluate.budget import BudgetExhausted
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.hazards import hazards
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import diagnose_evaluation, diagnose_profile, kernel_cores
from ascendopt.refine.rewriter import RewriteContext

PIPE_CLASS = {"MTE2": "memory", "MTE3": "memory", "V": "vector", "M": "cube", "MTE1": "cube", "FIX": "cube"}
Cell = tuple[str, int]


@dataclass(frozen=True)
class EvolveConfig:
    """Options of :func:`evolve` (defaults and meanings in :meth:`documented`)."""

    islands: int = 2
    migration_interval: int = 4
    exploit: float = 0.7
    kernel_share: float = 0.5
    overlap_edges: tuple[float, ...] = (1.1, 1.5, 2.0)
    max_stale: int = 10
    draws: int = 8

    _DOCS = {
        "islands": "independent archives (a ring for migration)",
        "migration_interval": "generations between migrations of each island's fastest elite to the next island",
        "exploit": "probability that a parent is its island's fastest elite (else a uniformly drawn elite)",
        "kernel_share": "probability that a mutation is a Stage I rewrite (else a Stage II knob move)",
        "overlap_edges": "bucket edges of the pipe-overlap descriptor (sum of work-pipe busy ratios)",
        "max_stale": "generations in a row without a new candidate before the search stops",
        "draws": "random draws per mutation to find a candidate not evaluated before",
    }

    @classmethod
    def documented(cls) -> dict[str, tuple[Any, str]]:
        return {f.name: (f.default, cls._DOCS[f.name]) for f in fields(cls)}


def descriptor(ev: Evaluation, overlap_edges: tuple[float, ...]) -> Cell:
    """The cell of a profiled candidate: (limiting unit, overlap bucket); see the module doc."""
    d = diagnose_profile(next(iter((ev.profile or {}).values()), None))
    top = d.pipe_ratios.get(d.busiest, 0.0) if d.busiest else 0.0
    unit = "scalar" if d.scalar_share > top else PIPE_CLASS.get(d.busiest, "none")
    return unit, bisect.bisect_right(list(overlap_edges), d.overlap or 0.0)


@dataclass
class Elite:
    op: Operator
    ev: Evaluation

    @property
    def latency_us(self) -> float:
        assert self.ev.latency_us is not None
        return self.ev.latency_us


class Island:
    """One MAP-Elites archive: cell -> fastest correct candidate seen there."""

    def __init__(self) -> None:
        self.cells: dict[Cell, Elite] = {}

    def offer(self, cell: Cell, elite: Elite) -> bool:
        cur = self.cells.get(cell)
        if cur is None or elite.latency_us < cur.latency_us:
            self.cells[cell] = elite
            return True
        return False

    def best(self) -> Elite:
        return min(self.cells.values(), key=lambda e: (e.latency_us, e.op.digest))

    def elites(self) -> list[Elite]:
        return [self.cells[c] for c in sorted(self.cells)]


class _Mutator:
    """Children of archive members: Stage I rewrites and Stage II knob moves (caches per parent)."""

    def __init__(self, ctx: Any, cfg: EvolveConfig, rng: random.Random, cores: int):
        self.ctx, self.cfg, self.rng, self.cores = ctx, cfg, rng, cores
        self._proposals: dict[str, list[Any]] = {}
        self._spaces: dict[str, Any] = {}

    def kernel(self, parent: Elite, tried: set[str]) -> Operator | None:
        rw = self.ctx.rewriter
        rctx = RewriteContext(parent.op, parent.ev, diagnose_evaluation(parent.ev, self.cores), [], tried)
        if hasattr(rw, "candidates"):  # an offline rewriter lists every site: draw one
            d = parent.op.digest
            if d not in self._proposals:
                self._proposals[d] = rw.candidates(rctx)
            fresh = [p for p in self._proposals[d] if p.op.digest not in tried]
            return self.rng.choice(fresh).op if fresh else None
        props = rw.propose(rctx, 1)  # an LLM: one sample
        return props[0].op if props and props[0].op.digest not in tried else None

    def tiling(self, parent: Elite, tried: set[str]) -> Operator | None:
        from ascendopt.tiling.space import KnobSpace

        d = parent.op.digest
        if d not in self._spaces:
            try:
                self._spaces[d] = KnobSpace.from_operator(parent.op, soc=soc_name(self.ctx.beval))
            except Exception:  # noqa: BLE001 - no locatable tiling program: no knob moves
                self._spaces[d] = None
        space = self._spaces[d]
        if space is None or not space.knobs:
            return None
        for _ in range(self.cfg.draws):
            child = space.apply(parent.op, space.neighbour(space.defaults(), self.rng), origin="evolve/tiling")
            if child.digest not in tried:
                return child
        return None

    def child(self, parent: Elite, tried: set[str]) -> Operator | None:
        kinds = [self.kernel, self.tiling]
        if self.rng.random() >= self.cfg.kernel_share:
            kinds.reverse()
        for make in kinds:
            c = make(parent, tried)
            if c is not None:
                return c
        return None


def evolve(ctx: Any, cfg: EvolveConfig | None = None) -> OptimizeResult:
    """Runs the baseline on ``ctx`` (a :class:`~ascendopt.bench.methods.MethodContext`)."""
    cfg = cfg or EvolveConfig()
    t0 = time.perf_counter()
    res = OptimizeResult(ctx.op.name, None, None, None)
    try:
        _run(ctx, cfg, res)
    except KeyboardInterrupt:
        res.stop_reason = "interrupted"
    beval = ctx.beval
    res.charged = beval.report(ctx.op.name).charged
    by: dict[str, int] = {}
    for r in beval.store.list_evaluations(beval.run_id, ctx.op.name):
        if r.charged:
            k = (r.evaluation.origin or "original").split("/")[0]
            by[k] = by.get(k, 0) + 1
    res.charged_by_stage = by
    res.seconds = time.perf_counter() - t0
    return res


def _run(ctx: Any, cfg: EvolveConfig, res: OptimizeResult) -> None:
    op, beval, cases = ctx.op, ctx.beval, ctx.cases
    rng = random.Random(ctx.seed)
    try:
        base = beval.evaluate(op, cases)
    except BudgetExhausted:
        res.stop_reason = "budget"
        return
    if not base.ok or base.latency_us is None:
        res.stop_reason = "original_failed"
        return
    res.baseline_us = res.best_us = base.latency_us
    tau = noise_threshold(base).tau_us  # the verdict: a gain is beyond the original's noise threshold
    res.best_op = op
    base_hz = hazards(base)
    islands = [Island() for _ in range(max(1, cfg.islands))]
    cell0 = descriptor(base, cfg.overlap_edges)
    for isl in islands:
        isl.offer(cell0, Elite(op, base))
    mut = _Mutator(ctx, cfg, rng, kernel_cores(soc_of(beval), next(iter(base.profile.values()), None)))
    tried: set[str] = {op.digest}
    gen = stale = 0
    res.stop_reason = "budget"
    while beval.remaining(op.name) != 0:
        if stale >= cfg.max_stale:
            res.stop_reason = f"stale ({stale} generations without a new candidate)"
            break
        gen += 1
        batch: list[tuple[int, Elite, Operator]] = []
        for i, isl in enumerate(islands):
            elites = isl.elites()
            parent = isl.best() if rng.random() < cfg.exploit else rng.choice(elites)
            child = mut.child(parent, tried)
            if child is not None:
                tried.add(child.digest)
                batch.append((i, parent, child))
        if not batch:
            stale += 1
            continue
        exhausted = False
        try:
            evs: list[Evaluation | None] = list(beval.evaluate_many([c for _, _, c in batch], cases))
        except BudgetExhausted as e:
            evs = list(e.results) + [None] * (len(batch) - len(e.results))
            exhausted = True
        stale = 0 if any(ev is not None and not ev.duplicate for ev in evs) else stale + 1
        step = {"round": gen, "stage": "evolve", "children": []}
        for (i, parent, child), ev in zip(batch, evs):
            if ev is None:
                continue
            ok = correct(ev, base_hz)
            cell = descriptor(ev, cfg.overlap_edges) if ok else None
            placed = ok and islands[i].offer(cell, Elite(child, ev))
            step["children"].append({"island": i, "digest": child.digest, "origin": child.origin,
                                     "status": ev.status, "latency_us": ev.latency_us, "cell": cell,
                                     "placed": placed})
            if ok and faster(base.latency_us, ev.latency_us, tau) and ev.latency_us < res.best_us:
                res.accepted.append(Accepted("evolve", child.digest, parent.op.digest, ev.latency_us,
                                             parent.latency_us, f"{child.origin} (island {i}, cell {cell})", [],
                                             child.diff(parent.op)))
                res.best_op, res.best_us = child, ev.latency_us
        res.steps.append(step)
        if ctx.on_event:
            ctx.on_event("evolve", {"generation": gen, "best_us": res.best_us})
        if exhausted:
            break
        if len(islands) > 1 and gen % max(1, cfg.migration_interval) == 0:
            bests = [isl.best() for isl in islands]
            for i, b in enumerate(bests):
                islands[(i + 1) % len(islands)].offer(descriptor(b.ev, cfg.overlap_edges), b)
    res.rounds = gen
