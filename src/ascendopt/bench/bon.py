"""Best-of-N: N independent one-shot rewrites of the *original*, the best correct one wins
(a winner must beat the original by its noise threshold: the verdict of
:mod:`ascendopt.evaluate.verdict`, as the benchmark metric applies it).

The original is evaluated first (the reference); then the rewriter is asked once for N
proposals on the original with no retrieved experiences (offline: the first N distinct
proposals of :class:`~ascendopt.refine.rewriter.OfflineRewriter`, in registry order; LLM: N
samples, one request each) and all of them are evaluated as one batch, cut by the budget.
Nothing is chained: no proposal sees another's result. N defaults to the budget left after
the original (budget - 1). Fewer proposals than N means the rewriter has no more to offer
(the offline transforms find a finite set of sites); the rest of the budget is then unused.
"""

from __future__ import annotations

import time

from ascendopt.agent import Accepted, OptimizeResult
from ascendopt.bench.common import soc_of
from ascendopt.evaluate.verdict import correct, faster, noise_threshold
from ascendopt.evaluate.budget import BudgetExhausted
from ascendopt.evaluate.hazards import hazards
from ascendopt.profile.diagnosis import diagnose_evaluation, kernel_cores
from ascendopt.refine.rewriter import RewriteContext


def best_of_n(ctx, n: int | None = None) -> OptimizeResult:
    """Runs best-of-N on ``ctx`` (a :class:`~ascendopt.bench.methods.MethodContext`)."""
    t0 = time.perf_counter()
    op, beval = ctx.op, ctx.beval
    res = OptimizeResult(op.name, None, None, None)
    try:
        _run(ctx, n, res)
    except KeyboardInterrupt:
        res.stop_reason = "interrupted"
    res.charged = beval.report(op.name).charged
    res.charged_by_stage = {"original": min(1, res.charged), "bon": max(0, res.charged - 1)}
    res.seconds = time.perf_counter() - t0
    return res


def _run(ctx, n: int | None, res: OptimizeResult) -> None:
    op, beval = ctx.op, ctx.beval
    try:
        base = beval.evaluate(op, ctx.cases)
    except BudgetExhausted:
        res.stop_reason = "budget"
        return
    if not base.ok or base.latency_us is None:
        res.stop_reason = "original_failed"
        return
    res.baseline_us = res.best_us = base.latency_us
    res.best_op = op
    left = beval.remaining(op.name)
    if n is None:
        if left is None:
            raise ValueError("bon needs n when the budget is unlimited")
        n = left
    if n <= 0:
        res.stop_reason = "budget"
        return
    cores = kernel_cores(soc_of(beval), next(iter(base.profile.values()), None))
    rctx = RewriteContext(op, base, diagnose_evaluation(base, cores), [], {op.digest})
    props = ctx.rewriter.propose(rctx, n)
    if ctx.on_event:
        ctx.on_event("bon", {"proposed": len(props), "n": n})
    try:
        evs = list(beval.evaluate_many([p.op for p in props], ctx.cases))
        res.stop_reason = "budget" if beval.remaining(op.name) == 0 else f"{len(props)} proposals (of {n} asked)"
    except BudgetExhausted as e:
        evs = list(e.results) + [None] * (len(props) - len(e.results))
        res.stop_reason = "budget"
    base_hz = hazards(base)
    tau = noise_threshold(base).tau_us
    tried = []
    best = None
    for p, ev in zip(props, evs):
        if ev is None:
            continue
        ok = correct(ev, base_hz)
        tried.append({**p.to_dict(), "status": ev.status, "error_kind": ev.error_kind, "latency_us": ev.latency_us,
                      "correct": ok, "charged": not ev.duplicate})
        # the verdict: beyond the original's tau, and the fastest such
        if ok and faster(base.latency_us, ev.latency_us, tau) and ev.latency_us < (best[1] if best else base).latency_us:
            best = (p, ev)
    res.steps.append({"round": 1, "stage": "bon", "tried": tried})
    res.rounds = 1
    if best is not None:
        p, ev = best
        res.accepted.append(Accepted("bon", p.op.digest, op.digest, ev.latency_us, base.latency_us,
                                     f"{p.rewrite}: {p.site}", list(p.experiences), p.op.diff(op)))
        res.best_op, res.best_us = p.op, ev.latency_us
