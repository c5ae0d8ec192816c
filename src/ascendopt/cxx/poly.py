"""Integer polynomials over named symbols, for comparing index expressions.

A :class:`Poly` maps monomials (sorted tuples of symbol names) to integer coefficients, so
``i * n + j`` and ``j + n * i`` are one value and ``(i + 1) * n - n`` equals ``i * n``. The
evaluator that turns C++ expressions into polynomials lives with its user
(:mod:`ascendopt.cxx.parallel`); this module only does the arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Poly:
    """``sum(coef * prod(symbols))``; the empty map is 0."""

    terms: tuple[tuple[tuple[str, ...], int], ...] = field(default=())

    @staticmethod
    def of(d: dict[tuple[str, ...], int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c != 0)))

    @staticmethod
    def const(v: int) -> Poly:
        return Poly.of({(): v})

    @staticmethod
    def sym(name: str) -> Poly:
        return Poly.of({(name,): 1})

    def as_dict(self) -> dict[tuple[str, ...], int]:
        return dict(self.terms)

    def __add__(self, o: Poly) -> Poly:
        d = self.as_dict()
        for m, c in o.terms:
            d[m] = d.get(m, 0) + c
        return Poly.of(d)

    def __neg__(self) -> Poly:
        return Poly.of({m: -c for m, c in self.terms})

    def __sub__(self, o: Poly) -> Poly:
        return self + (-o)

    def __mul__(self, o: Poly) -> Poly:
        d: dict[tuple[str, ...], int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in o.terms:
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + c1 * c2
        return Poly.of(d)

    @property
    def symbols(self) -> set[str]:
        return {s for m, _ in self.terms for s in m}

    def constant(self) -> int | None:
        """The value of a constant polynomial, else None."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    def split(self, var: str) -> tuple[Poly, Poly] | None:
        """``(c, b)`` with ``self == c * var + b`` and neither using ``var``; None when ``var``
        occurs squared or more."""
        c: dict[tuple[str, ...], int] = {}
        b: dict[tuple[str, ...], int] = {}
        for m, k in self.terms:
            n = m.count(var)
            if n > 1:
                return None
            if n == 1:
                rest = list(m)
                rest.remove(var)
                c[tuple(rest)] = k
            else:
                b[m] = k
        return Poly.of(c), Poly.of(b)

    def divide_symbol(self, s: str) -> Poly | None:
        """``self / s`` when every monomial holds ``s``, else None."""
        d = {}
        for m, k in self.terms:
            if s not in m:
                return None
            rest = list(m)
            rest.remove(s)
            d[tuple(rest)] = k
        return Poly.of(d) if d else None

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        return " + ".join((f"{c}*" if c != 1 or not m else "") + "*".join(m) if m else str(c)
                          for m, c in self.terms)
