"""How a runner process of the simulator is confined (:func:`ascendopt.backends.sim.backend._run_bounded`,
:func:`ascendopt.backends.sim.batch.run_bounded`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ascendopt.sandbox import Sandbox


@dataclass(frozen=True)
class Confinement:
    """A runner's limits and what it is given.

    Attributes:
        memory_bytes: its address-space limit (RLIMIT_AS).
        env: variables added to the environment (None: the driver's own).
        sandbox: the sandbox it runs in (None: the current one).
        writable: the paths it may write besides its result (in the sandbox).
        pass_fds: descriptors it inherits (the timer's pipes).
        started: called once it runs.
    """

    memory_bytes: int
    env: dict[str, str] | None = None
    sandbox: Sandbox | None = None
    writable: Sequence[Path] = ()
    pass_fds: tuple[int, ...] = ()
    started: Callable[[], None] | None = None
