"""Run deadlines in CPU seconds, so that a loaded machine does not make a run time out.

A case run's time limit is there to stop a kernel that loops or hangs. Counted in wall-clock
seconds it also stops a correct kernel whose process got a fraction of a core: with 20
runnable processes on 2 cores a 15 s simulation takes 150 s of wall time, and a wall limit of
60 s fails the original operator of a benchmark pair on a busy machine and passes it on a
quiet one. The simulator's runner executes one emulated core at a time (its scheduler hands
the turn from core to core), so the CPU time its process tree uses is the wall time the run
would take alone on the machine; a limit on that time is the same limit on a quiet machine and
does not move with load.

:class:`RunDeadline` follows a runner's process tree (the process, its living descendants
through ``/proc/<pid>/task/<tid>/children``, and the reaped ones through ``cutime``/``cstime``)
and expires when the tree used more than the limit of CPU time since :meth:`RunDeadline.restart`,
or when ``WALL_SLACK`` times the limit passed on the wall clock (a backstop for a run that
waits without using CPU; the runtime reports a deadlock among emulated cores itself).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

WALL_SLACK = 20.0
#: Longest wait between two readings of the tree's CPU time (seconds).
POLL_S = 0.5
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/<pid>/stat`` (after the command name), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue
    return out


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its descendants, living and reaped."""
    ticks, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        fields = _stat_fields(p)
        if fields is None or len(fields) < 15:
            continue
        ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime (fields 14-17)
        todo += _children(p)
    return ticks / _TICK


@dataclass
class RunDeadline:
    """The time limit of one run (or of one case of a batch: :meth:`restart` at each case).

    Attributes:
        pid: The run's process (the sandbox's, whose descendants are the runner).
        limit_s: CPU seconds the tree may use from the last restart.
    """

    pid: int
    limit_s: float
    _cpu0: float = field(default=0.0, init=False)
    _wall0: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        self._cpu0, self._wall0 = tree_cpu_s(self.pid), time.monotonic()

    def used_s(self) -> float:
        return tree_cpu_s(self.pid) - self._cpu0

    def expired(self) -> bool:
        if time.monotonic() - self._wall0 > WALL_SLACK * self.limit_s:
            return True
        return self.used_s() > self.limit_s

    def wait_s(self) -> float:
        """How long to wait before asking :meth:`expired` again: the tree cannot use more CPU
        than the wall time that passes times the cores it runs on, so never longer than the CPU
        left, and at most :data:`POLL_S`."""
        left = self.limit_s - self.used_s()
        return min(POLL_S, max(0.02, left / max(1, os.cpu_count() or 1)))


def wait_cpu(pid: int, limit_s: float, ready: Callable[[float], bool]) -> bool:
    """Calls ``ready(seconds)`` (a wait of at most that long for what the caller expects from
    process ``pid``) until it returns True (True) or the process used ``limit_s`` of CPU time
    (False; the caller kills it)."""
    deadline = RunDeadline(pid, limit_s)
    while not ready(deadline.wait_s()):
        if deadline.expired():
            return False
    return True
