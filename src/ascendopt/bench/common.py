"""What the baselines share: the SoC of a run (the verdict lives in :mod:`ascendopt.evaluate.verdict`)."""

from __future__ import annotations

from ascendopt.hw.soc import DEFAULT_SOC

from typing import Any


def soc_of(beval: Any) -> Any:
    return beval.evaluator.backend.soc


def soc_name(beval: Any) -> str:
    return getattr(beval.evaluator, "soc_name", "") or DEFAULT_SOC
