"""Optimizations as objects with both directions, and the one registry of their transforms.

An :class:`Optimization` states its name, family, title, mechanism, bottleneck and scope once;
its de-optimizing :class:`~ascendopt.transforms.base.Motif` (rewind) and its optimizing
:class:`~ascendopt.transforms.base.Rewrite` (Stage I) name it as their ``optimization`` and take
those facts from it. Either may be missing (a motif without a rewrite: rewind learns what the
optimization is worth, Stage I cannot yet apply it offline).

The built-in optimizations live in :mod:`ascendopt.transforms.library`, one module each;
:func:`register` files a transform class under its direction. :data:`MOTIFS` and
:data:`REWRITES` are the two views by transform name, :func:`optimizations` the objects.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from ascendopt.transforms.families import check_family


LIBRARY = "ascendopt.transforms.library"


@dataclass(eq=False)
class Optimization:
    """One optimization and its transforms.

    Attributes:
        name: Key (the rewrite's name when there is one, else the motif's).
        family: Canonical family (:data:`ascendopt.transforms.families.FAMILIES`).
        title: The optimization, in the optimizing direction.
        mechanism: Why it pays, in one or two sentences.
        bottleneck: What its absence costs on the pipes (the symptom a profile shows).
        scope: ``kernel`` or ``host``: which side its transforms edit.
        relieves: The diagnosis findings it relieves (kinds of
            :data:`ascendopt.profile.diagnosis.FINDING_KINDS`): Stage I's offline rewriter ranks
            a rewrite higher when the current kernel's diagnosis shows one of them.
        motif: The de-optimizing transform class, or None.
        rewrite: The optimizing transform class, or None.
    """

    name: str
    family: str
    title: str
    mechanism: str
    bottleneck: str
    scope: str = "kernel"
    relieves: tuple[str, ...] = ()
    motif: Any = field(default=None, repr=False)
    rewrite: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        check_family(self.family)
        from ascendopt.profile.diagnosis import FINDING_KINDS

        unknown = [k for k in self.relieves if k not in FINDING_KINDS]
        if unknown:
            raise ValueError(f"optimization {self.name!r}: unknown finding kind(s) {unknown}; known: {FINDING_KINDS}")
        self.relieves = tuple(self.relieves)


class Registry:
    """name -> transform class of one direction, filled by the library (imported on first use)."""

    def __init__(self, what: str):
        self.what = what
        self._classes: dict[str, type] = {}

    def add(self, cls: type) -> None:
        if cls.name in self._classes and self._classes[cls.name] is not cls:
            raise ValueError(f"{self.what} {cls.name!r} registered twice")
        self._classes[cls.name] = cls

    def all(self) -> dict[str, type]:
        importlib.import_module(LIBRARY)  # registers the built-in transforms
        return dict(sorted(self._classes.items()))

    def get(self, name: str) -> Any:
        reg = self.all()
        if name not in reg:
            raise KeyError(f"unknown {self.what} {name!r}; known: {', '.join(reg)}")
        return reg[name]()


MOTIFS = Registry("motif")
REWRITES = Registry("rewrite")
_OPTIMIZATIONS: dict[str, Optimization] = {}


def register(cls: type) -> type:
    """Class decorator: files a transform under its direction and links it to its optimization."""
    opt: Optimization | None = cls.__dict__.get("optimization")
    if opt is None:
        raise ValueError(f"{cls.__name__}: a registered transform names its optimization")
    slot = "motif" if cls.direction == "deoptimize" else "rewrite"
    if getattr(opt, slot) not in (None, cls):
        raise ValueError(f"optimization {opt.name!r} has two {slot}s")
    setattr(opt, slot, cls)
    if _OPTIMIZATIONS.setdefault(opt.name, opt) is not opt:
        raise ValueError(f"optimization {opt.name!r} defined twice")
    (MOTIFS if slot == "motif" else REWRITES).add(cls)
    return cls


def optimizations() -> dict[str, Optimization]:
    """Every built-in optimization by name."""
    importlib.import_module(LIBRARY)
    return dict(sorted(_OPTIMIZATIONS.items()))


def rewrite_of(motif: Any) -> Any:
    """The optimizing transform class of the optimization ``motif`` (an instance or class)
    removes, or None."""
    opt = getattr(motif, "optimization", None)
    return None if opt is None else opt.rewrite
