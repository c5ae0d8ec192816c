"""Value domains of knobs: integer grids (optionally log-scaled), powers of two, categorical.

A domain always contains its default (the value in the original source), even when the default
is off the grid. Every sampling/mutation helper takes an explicit ``random.Random``.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field

KINDS = ("int", "pow2", "cat")


def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


@dataclass(frozen=True)
class Domain:
    """One knob's admissible values.

    Attributes:
        kind: ``"int"`` (``lo..hi`` by ``step``), ``"pow2"`` (powers of two in ``lo..hi``) or
            ``"cat"`` (``choices``, ordered).
        default: The original source's value (always admissible).
        log: For ``int``: sample log-uniformly (with a power-of-two prior) instead of uniformly.
    """

    kind: str
    default: int
    lo: int = 0
    hi: int = 0
    step: int = 1
    log: bool = False
    choices: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown domain kind {self.kind!r}")
        if self.kind == "cat" and not self.choices:
            raise ValueError("categorical domain without choices")
        if self.kind != "cat" and (self.lo > self.hi or self.step < 1):
            raise ValueError(f"bad range {self.lo}..{self.hi} step {self.step}")

    # -- membership ------------------------------------------------------------------------
    def contains(self, v: int) -> bool:
        if v == self.default:
            return True
        if self.kind == "cat":
            return v in self.choices
        if not (self.lo <= v <= self.hi):
            return False
        if self.kind == "pow2":
            return _is_pow2(v)
        return (v - self.lo) % self.step == 0

    def grid(self) -> list[int]:
        """All admissible values in increasing order (the default included)."""
        if self.kind == "cat":
            vals = list(self.choices)
        elif self.kind == "pow2":
            vals = [1 << e for e in range(max(0, self.lo - 1).bit_length(), self.hi.bit_length() + 1)
                    if self.lo <= (1 << e) <= self.hi]
        else:
            vals = list(range(self.lo, self.hi + 1, self.step))
        if self.default not in vals:
            vals.append(self.default)
        return sorted(vals) if self.kind != "cat" else vals

    def size(self) -> int:
        if self.kind == "int":
            n = (self.hi - self.lo) // self.step + 1
            return n + (0 if self.contains_on_grid(self.default) else 1)
        return len(self.grid())

    def contains_on_grid(self, v: int) -> bool:
        return self.kind == "int" and self.lo <= v <= self.hi and (v - self.lo) % self.step == 0

    def snap(self, v: float) -> int:
        """The admissible value nearest to ``v`` (clamped to the range)."""
        if self.kind == "cat":
            return min(self.choices, key=lambda c: (abs(c - v), c))
        if self.kind == "pow2":
            vals = self.grid()
            return min(vals, key=lambda c: (abs(math.log2(max(c, 1)) - math.log2(max(v, 1))), c))
        v = min(max(v, self.lo), self.hi)
        k = round((v - self.lo) / self.step)
        return min(self.lo + k * self.step, self.hi - (self.hi - self.lo) % self.step)

    # -- sampling and moves ----------------------------------------------------------------
    def sample(self, rng: random.Random) -> int:
        if self.kind in ("cat", "pow2"):
            return rng.choice(self.grid())
        if not self.log:
            return self.lo + rng.randrange((self.hi - self.lo) // self.step + 1) * self.step
        if rng.random() < 0.5:
            p2 = [1 << e for e in range(self.hi.bit_length() + 1) if self.contains_on_grid(1 << e)]
            if p2:
                return rng.choice(p2)
        a, b = math.log(max(self.lo, 1)), math.log(max(self.hi, 1))
        return self.snap(math.exp(rng.uniform(a, b)))

    def neighbour(self, v: int, rng: random.Random) -> int:
        """A nearby different value (one or two grid steps, or ~20 % for log scales)."""
        if self.kind in ("cat", "pow2"):
            vals = self.grid()
            i = vals.index(v) if v in vals else vals.index(self.snap(v))
            j = i + rng.choice((-1, 1))
            j = min(max(j, 0), len(vals) - 1)
            if j == i and len(vals) > 1:
                j = i - 1 if i > 0 else i + 1
            return vals[j]
        if self.log and v > 0:
            new = self.snap(v * math.exp(rng.gauss(0.0, rng.choice((0.03, 0.1, 0.3)))))
        else:
            new = self.snap(v + rng.choice((-2, -1, 1, 2)) * self.step)
        if new == v:
            up = self.snap(v + self.step)
            new = up if up != v else self.snap(v - self.step)
        return new

    def pow2_jump(self, v: int, rng: random.Random) -> int:
        """Doubles or halves ``v`` (to the next power of two when ``v`` is not one)."""
        if self.kind == "cat":
            others = [c for c in self.choices if c != v]
            return rng.choice(others) if others else v
        up = rng.random() < 0.5
        if _is_pow2(v):
            target = v * 2 if up else v // 2
        else:
            e = max(v, 1).bit_length()
            target = (1 << e) if up else (1 << (e - 1))
        new = self.snap(max(target, 1))
        if new == v:
            new = self.snap(max(v * 2 if not up else v // 2, 1))
        return new

    def bucket(self, v: int) -> int:
        """A coarse region index of ``v``, used to count failures per region of a knob."""
        if self.kind == "cat":
            return self.choices.index(v) if v in self.choices else -1
        if self.kind == "pow2" or self.log:
            return max(v, 0).bit_length()
        width = max(self.step, (self.hi - self.lo) // 16 or 1)
        return (v - self.lo) // width

    # -- (de)serialisation -------------------------------------------------------------------
    def to_json(self) -> dict:
        d = asdict(self)
        d["choices"] = list(self.choices)
        return d

    @staticmethod
    def from_json(d: dict) -> Domain:
        d = dict(d)
        d["choices"] = tuple(d.get("choices", ()))
        return Domain(**d)
