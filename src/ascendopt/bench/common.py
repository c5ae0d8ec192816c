"""What the baselines share: judging a candidate against the original, and the result shell."""

from __future__ import annotations

from typing import Any

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.hazards import new_hazards


def correct(ev: Evaluation | None, original_hazards: set[str]) -> bool:
    """A candidate counts when it passed every case with a latency and carries no hazard kind
    the original did not have (the rule of :mod:`ascendopt.evaluate.hazards`)."""
    return (ev is not None and ev.ok and ev.latency_us is not None
            and not new_hazards(original_hazards, ev))


def soc_of(beval: Any) -> Any:
    return beval.evaluator.backend.soc


def soc_name(beval: Any) -> str:
    return getattr(beval.evaluator, "soc_name", "") or "Ascend910B2"
