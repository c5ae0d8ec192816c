"""Which stage gets the agent's next slice of budget: the one with the higher expected gain per
charged evaluation (``AgentConfig.schedule = "gain"``).

Like TVM's gradient task scheduler (which splits a budget across tasks), the agent splits each
operator's budget across its two stages by what they have recently bought:

* a slice is one Stage I search step (:func:`ascendopt.agent_beam.search_step`) or one Stage II
  round of ``stage2_steps`` evaluations; after it, its **gain** is the log-latency improvement
  of the current kernel, ``log(before / after)`` (0 when nothing was accepted), and its cost
  the evaluations it charged;
* a stage's **rate** is the sum of the gains of its last ``window`` slices over the sum of their
  charged evaluations, and never less than ``floor`` (log-gain per evaluation);
* a stage not tried yet has an optimistic rate (infinite): each stage is tried once first;
* the next slice goes to the stage with the higher rate; on a tie (both at the floor: both
  stalled) to the one run least recently, so a stage that stalled is retried once the other
  stalls too, and a stage keeps the budget only while it gains more than ``floor`` per
  evaluation;
* a slice that charged nothing (Stage I proposed nothing new, Stage II had no knobs or only
  known candidates) marks its stage idle until the kernel changes; when every stage is idle
  the loop has converged.

The choice is a function of the recorded evaluations only (latencies and charges; a resumed
run counts its replayed evaluations as charged), so a replay makes the same choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

DEFAULT_WINDOW = 2
DEFAULT_FLOOR = 1e-3


@dataclass(frozen=True)
class Slice:
    """One slice: its stage, log-latency gain and charged evaluations."""

    stage: str
    gain: float
    charged: int


@dataclass
class GainScheduler:
    """Picks the stage of the next slice (see the module docstring).

    Attributes:
        stages: The stages that may run, in preference order for exact ties.
        window: Recent slices per stage the rate is estimated from.
        floor: Lowest rate (log-gain per charged evaluation) a tried stage is given.
    """

    stages: tuple[str, ...] = ("stage1", "stage2")
    window: int = DEFAULT_WINDOW
    floor: float = DEFAULT_FLOOR
    history: dict[str, list[Slice]] = field(default_factory=dict)
    idle: set[str] = field(default_factory=set)
    last_run: dict[str, int] = field(default_factory=dict)
    ticks: int = 0

    def rate(self, stage: str) -> float:
        """Expected log-gain per charged evaluation of the stage's next slice."""
        recent = self.history.get(stage, [])[-self.window:]
        if not recent:
            return math.inf
        charged = sum(s.charged for s in recent)
        return max(self.floor, sum(s.gain for s in recent) / max(1, charged))

    def pick(self) -> str | None:
        """The stage of the next slice, or None when every stage is idle."""
        live = [s for s in self.stages if s not in self.idle]
        if not live:
            return None
        return max(live, key=lambda s: (self.rate(s), -self.last_run.get(s, -1), -self.stages.index(s)))

    def record(self, stage: str, gain: float, charged: int, changed: bool, idle: bool | None = None) -> None:
        """Records a slice: ``gain`` = log(latency before / after), ``changed`` = the current
        kernel changed (every stage may then have new work), ``idle`` = the stage has nothing
        new to try on this kernel (default: the slice charged nothing)."""
        self.history.setdefault(stage, []).append(Slice(stage, max(0.0, gain), charged))
        self.last_run[stage] = self.ticks
        self.ticks += 1
        if changed:
            self.idle.clear()
        elif charged == 0 if idle is None else idle:
            self.idle.add(stage)

    def state(self) -> dict[str, Any]:
        """The rates and idle stages (for the report)."""
        return {"rates": {s: (None if math.isinf(r) else round(r, 6)) for s in self.stages
                          for r in [self.rate(s)]}, "idle": sorted(self.idle)}


def log_gain(before_us: float | None, after_us: float | None) -> float:
    """``log(before / after)`` (0 when either is unknown)."""
    if not before_us or not after_us or before_us <= 0 or after_us <= 0:
        return 0.0
    return math.log(before_us / after_us)
