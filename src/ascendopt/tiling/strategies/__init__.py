"""Tiling search strategies behind one ask/tell interface, and their registry.

``STRATEGIES`` maps a name to ``(factory, options)`` where ``options`` maps each option name to
``(default, doc)``. Build one with :func:`make_strategy`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies.base import RandomStrategy, Strategy, TrialResult
from ascendopt.tiling.strategies.evo import EVO_OPTIONS, EvoConfig, EvoStrategy, LLMMutator
from ascendopt.tiling.strategies.optuna_samplers import (
    CMAES_OPTIONS,
    NSGA2_OPTIONS,
    TPE_OPTIONS,
    CmaEsStrategy,
    NSGA2Strategy,
    TPEStrategy,
)

RANDOM_OPTIONS: dict[str, tuple[Any, str]] = {
    "start_with_default": (True, "ask the original sources' config first"),
    "max_tries": (64, "attempts to avoid re-asking a config before accepting a repeat"),
}

STRATEGIES: dict[str, tuple[Callable[..., Strategy], dict[str, tuple[Any, str]]]] = {
    "evo": (EvoStrategy.from_options, EVO_OPTIONS),
    "random": (RandomStrategy, RANDOM_OPTIONS),
    "tpe": (TPEStrategy, TPE_OPTIONS),
    "cmaes": (CmaEsStrategy, CMAES_OPTIONS),
    "nsga2": (NSGA2Strategy, NSGA2_OPTIONS),
}


def make_strategy(name: str, space: KnobSpace, seed: int = 0, **options: Any) -> Strategy:
    """Builds the strategy ``name`` over ``space`` with its own RNG seeded by ``seed``.

    Raises:
        ValueError: unknown strategy or option.
    """
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")
    factory, known = STRATEGIES[name]
    bad = set(options) - set(known)
    if bad:
        raise ValueError(f"unknown options for {name}: {sorted(bad)}; known: {sorted(known)}")
    opts = {k: v for k, v in options.items()}
    if name in ("tpe", "cmaes", "nsga2"):
        # Optuna's own defaults apply to options left at None
        opts = {k: v for k, v in opts.items() if v is not None}
    return factory(space, seed, **opts)


__all__ = [
    "STRATEGIES",
    "CmaEsStrategy",
    "EvoConfig",
    "EvoStrategy",
    "LLMMutator",
    "NSGA2Strategy",
    "RandomStrategy",
    "Strategy",
    "TPEStrategy",
    "TrialResult",
    "make_strategy",
]
