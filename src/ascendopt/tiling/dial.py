"""Dial search: a bracketing line search of one knob, to the edge of a descending tooth.

A knob such as the UB reserve is a dial on the tile size. Over it latency is often a sawtooth:
within a tooth the tiles shrink and the work spreads more evenly over them, so latency falls
toward the tooth's edge, where it jumps. A directed move that changes the structure of a
candidate (core count, buffer count) sets the reserve to its minimum to make room; that is
the start of a tooth, the slowest point of it. :class:`DialSearch` turns the dial from there:
it doubles its offset while latency does not rise (moving over values that launch the same
device program without asking them, when a program oracle is given), and once a value is
slower (or fails) it bisects between the last value that was not slower and the first slower
one until they are adjacent. Each asked value costs one evaluation; a 1537-value reserve grid
is searched in about 2 log2(1537) = 22 asks at most.

The search is driven by its owner (evo): :meth:`DialSearch.next` gives the next config to
ask (None when done), :meth:`DialSearch.tell` takes its latency (None for a failure).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ascendopt.tiling.adjacent import ProgramOf
from ascendopt.tiling.space import Config, KnobSpace


class DialSearch:
    """Line search of ``knob`` from ``base`` (evaluated, latency ``latency``), upwards
    (``direction`` 1) or downwards (-1) on the knob's grid.

    Attributes:
        best: The first config of the fastest latency seen (``base`` until one is faster).
        best_latency: Its latency.
        done: True once the bracket is closed or the grid is exhausted.
    """

    def __init__(self, space: KnobSpace, base: Mapping[str, Any], knob: str, latency: float,
                 program_of: ProgramOf | None = None, direction: int = 1):
        if direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, not {direction!r}")
        self.space, self.knob, self.program_of, self.direction = space, knob, program_of, direction
        self.grid = space.domain(knob).grid()
        self.base = space.complete(base)
        self.best: Config = dict(self.base)
        self.best_latency = float(latency)
        self.i = self.grid.index(self.base[knob]) if self.base[knob] in self.grid else len(self.grid) - 1
        self.step = 1
        self.hi: int | None = None          # first slower (or failing) index, once bracketed
        self.pending: int | None = None     # index asked, result not told yet
        self.done = False

    def _at(self, j: int) -> Config:
        return {**self.base, self.knob: self.grid[j]}

    def _same(self, j: int, k: int) -> bool:
        """Whether grid indices ``j`` and ``k`` launch the same program (False without an oracle
        or when a tiling fails)."""
        if self.program_of is None:
            return False
        a, b = self.program_of(self._at(j)), self.program_of(self._at(k))
        return a is not None and a == b

    def next(self) -> Config | None:
        """The next config to ask, or None when the search is over (or waits for a result)."""
        if self.pending is not None or self.done:
            return None
        while True:
            if self.hi is None:                                  # expanding: double the offset
                j = min(max(self.i + self.direction * self.step, 0), len(self.grid) - 1)
                if j == self.i:
                    self.done = True
                    return None
                if self._same(j, self.i):                        # same program: same latency, free
                    self.i, self.step = j, self.step * 2
                    continue
            else:                                                # bisecting the bracket
                if abs(self.hi - self.i) <= 1:
                    self.done = True
                    return None
                j = (self.i + self.hi) // 2
                if self._same(j, self.i):
                    self.i = j
                    continue
                if self._same(j, self.hi):
                    self.hi = j
                    continue
            self.pending = j
            return self._at(j)

    def tell(self, config: Mapping[str, Any], latency: float | None) -> bool:
        """Takes the result of the asked config (``latency`` None: it failed); returns False when
        ``config`` is not the one this search waits for."""
        if self.pending is None or self.space.complete(config)[self.knob] != self.grid[self.pending]:
            return False
        j, self.pending = self.pending, None
        if latency is not None and latency <= self.best_latency:   # a tie is a plateau: walk on
            if latency < self.best_latency:
                self.best, self.best_latency = self._at(j), float(latency)
            self.i = j
            if self.hi is None:
                self.step *= 2
        else:
            self.hi = j
        return True
