"""Benchmark methods: a name -> :class:`Method` registry; every method is a plug-in of the
same budgeted evaluation.

Each method receives a :class:`MethodContext` (the operator, its cases, a
:class:`~ascendopt.evaluate.budget.BudgetedEvaluator` for its own run, the Stage I rewriter,
an experience bank or None, a seed) and returns an
:class:`~ascendopt.agent.OptimizeResult`. The budget is enforced only by the evaluator:
every new evaluation is charged once, a candidate already in the run's records comes back
free. Every method is deterministic given its seed (its own ``random.Random``; the agent's
Stage II strategy is seeded from it too) and the records.

Methods (see :data:`METHODS` for their options):

* ``full``: the agent (:func:`ascendopt.agent.optimize`) with its defaults: rewind's share,
  then Stage I and Stage II, each slice of budget to the stage with the higher recent gain
  per evaluation (option ``schedule``: ``gain``, or ``fixed`` rounds).
* ``stage1``: Stage I only (rewind's share still feeds the bank).
* ``stage1-noexp``: Stage I only, no retrieved experiences, bank frozen (so no rewind either).
* ``stage2``: Stage II (tiling search) only.
* ``bon``: best-of-N one-shot rewrites of the original (:mod:`ascendopt.bench.bon`).
* ``evolve``: an OpenEvolve-style MAP-Elites baseline with islands
  (:mod:`ascendopt.bench.evolve`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.agent import AgentConfig, OptimizeResult, optimize
from ascendopt.bank.store import ExperienceBank
from ascendopt.cases import Case
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.operator import Operator
from ascendopt.refine.rewriter import Rewriter


@dataclass
class MethodContext:
    """What a method runs on (one operator, one seed, one run of the record store).

    Attributes:
        op: The operator as given (the reference).
        cases: Its cases (every candidate is checked on all of them).
        beval: The budgeted evaluator of this run: the only way to evaluate.
        rewriter: Stage I rewriter (offline, or LLM when configured).
        bank: Experience bank of this run (None for methods that use none).
        seed: The method's seed.
        on_event: Progress callback ``(kind, data)``.
    """

    op: Operator
    cases: Sequence[Case]
    beval: BudgetedEvaluator
    rewriter: Rewriter
    bank: ExperienceBank | None
    seed: int = 0
    on_event: Callable[[str, dict[str, Any]], None] | None = None


RunFn = Callable[[MethodContext, Mapping[str, Any]], OptimizeResult]


@dataclass(frozen=True)
class Method:
    """A registered method.

    Attributes:
        name: Registry name (``--methods``).
        doc: One line: what it does.
        run: ``run(ctx, options) -> OptimizeResult``.
        options: Option name -> (default, what it means): the one place options are documented.
        uses_bank: Whether it reads or grows an experience bank (otherwise it gets None).
    """

    name: str
    doc: str
    run: RunFn
    options: Mapping[str, tuple[Any, str]] = field(default_factory=dict)
    uses_bank: bool = False

    def defaults(self) -> dict[str, Any]:
        return {k: v[0] for k, v in self.options.items()}

    def __call__(self, ctx: MethodContext, **overrides: Any) -> OptimizeResult:
        unknown = set(overrides) - set(self.options)
        if unknown:
            raise ValueError(f"method {self.name}: unknown option(s) {', '.join(sorted(unknown))}")
        return self.run(ctx, {**self.defaults(), **overrides})


METHODS: dict[str, Method] = {}


def register(method: Method) -> Method:
    METHODS[method.name] = method
    return method


def get_method(name: str) -> Method:
    """The method called ``name``.

    Raises:
        KeyError: No such method (the message lists the known ones).
    """
    if name not in METHODS:
        raise KeyError(f"unknown method {name!r}; known: {', '.join(METHODS)}")
    return METHODS[name]


# ---------------------------------------------------------------------- agent-based methods
_AGENT_OPTIONS: dict[str, tuple[Any, str]] = {
    "schedule": (AgentConfig.schedule, "gain: each slice to the stage with the higher recent gain per evaluation; "
                                       "fixed: rounds of stage1_steps then stage2_steps"),
    "beam_width": (AgentConfig.beam_width, "neutral Stage I rewrites kept to build chains on (0: greedy)"),
    "stage1_steps": (AgentConfig.stage1_steps, "Stage I steps per round (schedule fixed)"),
    "stage1_candidates": (AgentConfig.stage1_candidates, "rewrites evaluated per Stage I step"),
    "stage2_steps": (AgentConfig.stage2_steps, "Stage II evaluations per round (per Stage II slice with gain)"),
    "rewind_budget": (AgentConfig.rewind_budget, "rewind's share when the bank does not know the operator"),
    "strategy": (AgentConfig.strategy, "Stage II strategy"),
}


def _agent(fixed: Mapping[str, Any]) -> RunFn:
    def run(ctx: MethodContext, options: Mapping[str, Any]) -> OptimizeResult:
        cfg = AgentConfig(**{**options, **fixed}, seed=ctx.seed)
        return optimize(ctx.op, ctx.cases, ctx.beval, ctx.rewriter, ctx.bank, cfg, on_event=ctx.on_event)

    return run


register(Method("full", "the agent: rewind share, then rounds of Stage I and Stage II", _agent({}),
                _AGENT_OPTIONS, uses_bank=True))
register(Method("stage1", "Stage I only (rewind's share feeds the bank)", _agent({"only": "stage1"}),
                {k: v for k, v in _AGENT_OPTIONS.items() if k not in ("stage2_steps", "strategy")}, uses_bank=True))
register(Method("stage1-noexp", "Stage I only, without retrieved experiences, bank frozen (no rewind)",
                _agent({"only": "stage1", "use_experience": False, "freeze_bank": True}),
                {k: v for k, v in _AGENT_OPTIONS.items() if k in ("stage1_steps", "stage1_candidates", "beam_width",
                                                                 "schedule")},
                uses_bank=True))
register(Method("stage2", "Stage II (tiling search) only", _agent({"only": "stage2"}),
                {k: v for k, v in _AGENT_OPTIONS.items() if k in ("stage2_steps", "strategy", "schedule")}))


def _bon(ctx: MethodContext, options: Mapping[str, Any]) -> OptimizeResult:
    from ascendopt.bench.bon import best_of_n

    return best_of_n(ctx, **options)


def _evolve(ctx: MethodContext, options: Mapping[str, Any]) -> OptimizeResult:
    from ascendopt.bench.evolve import EvolveConfig, evolve

    return evolve(ctx, EvolveConfig(**options))


def _evolve_options() -> dict[str, tuple[Any, str]]:
    from ascendopt.bench.evolve import EvolveConfig

    return EvolveConfig.documented()


register(Method("bon", "best of N one-shot rewrites of the original (N = budget - 1)", _bon,
                {"n": (None, "rewrites to evaluate (None: the budget left after the original)")}))
register(Method("evolve", "MAP-Elites (busiest unit x pipe overlap) with islands; Stage I and Stage II "
                "mutations; no experience bank", _evolve, _evolve_options()))
