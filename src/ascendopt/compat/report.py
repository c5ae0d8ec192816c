"""Rows, totals and the JSON document of ``ascendopt compat``.

Row statuses: ``pass`` (built; every case ran and matched its golden; warning-level hazards
allowed, counted in ``warned``), ``unchecked`` (every case ran, some outputs had no usable
golden), a failed case's status — ``wrong_result``, ``runtime_error`` (``kind``: ``ub_overflow``,
``race``, ``gm_out_of_bounds``, ...), ``tiling_error``, ``timeout``, ``case_error`` —,
``compile_error``, ``load_error`` (not an operator to us: no ``OP_ADD``, no kernel entry),
``no_cases`` (no case files: built once with the OpDef's first dtypes when it has any),
``timeout`` with kind ``operator`` (no result within ``--timeout``: killed) and ``crash``.

Totals per category: ``total``, ``built``, ``ran`` (every case ran to the end: ``pass``,
``unchecked``, ``wrong_result``) and ``passed``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, fields
from typing import Any, Iterable

#: Version of the JSON document (1 was the layout of the benchmark script it replaced).
FORMAT_VERSION = 2
FORMAT_NAME = "ascendopt-compat"
RAN = ("pass", "unchecked", "wrong_result")


@dataclass
class Row:
    """One operator's outcome (see the module docstring for ``status``)."""

    op: str
    category: str
    dir: str
    status: str = ""
    kind: str = ""
    built: bool = False
    cases: int = 0
    passed: int = 0
    warned: int = 0
    golden: str = ""
    cause: str = ""
    origin: str = ""
    where: str = ""
    detail: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "Row":
        names = {f.name for f in fields(Row)}
        return Row(**{k: v for k, v in d.items() if k in names})

    @property
    def shown_status(self) -> str:
        """What the line shows: a runtime error's kind, ``pass*`` with warnings."""
        if self.status == "runtime_error" and self.kind:
            return self.kind
        return "pass*" if self.status == "pass" and self.warned else self.status

    def line_parts(self) -> tuple[str, str, str]:
        """The line's operator, status and rest (counts, seconds, cause), padded."""
        why = self.cause + (f" ({self.where})" if self.where else "")
        if self.origin == "run" or not why:  # the status says what failed, the detail how
            why = self.detail or why
        if self.status == "pass" and self.warned:
            why = f"{self.warned} case(s) with warnings"
        return (f"{self.category + '/' + self.op:<44} ", f"{self.shown_status:<18} ",
                f"{self.passed:>3}/{self.cases:<3} {self.seconds:>6.1f}s  {why[:300]}".rstrip())

    def line(self) -> str:
        """``category/op  status  passed/cases  seconds  cause (where)[: detail]``."""
        return "".join(self.line_parts())


def category_totals(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Per category (in first-seen order) and ``all``: total, built, ran, passed."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        for key in (r.category, "all"):
            c = out.setdefault(key, {"total": 0, "built": 0, "ran": 0, "passed": 0})
            c["total"] += 1
            c["built"] += r.built
            c["ran"] += r.status in RAN
            c["passed"] += r.status == "pass"
    if "all" in out:
        out["all"] = out.pop("all")
    return out


def cause_totals(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """Every cause of a row that did not pass, most frequent first (simulator causes before
    others at equal counts), with its origin and operators."""
    groups: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r.status != "pass" and r.cause:
            groups.setdefault((r.cause, r.origin), []).append(f"{r.category}/{r.op}")
    order = {"simulator": 0, "operator": 1, "run": 2, "cases": 3}
    items = sorted(groups.items(), key=lambda kv: (-len(kv[1]), order.get(kv[0][1], 9), kv[0][0]))
    return [{"cause": c, "origin": o, "count": len(ops), "ops": ops} for (c, o), ops in items]


def document(rows: list[Row], *, wall_s: float, interrupted: bool, config: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` document: format name and version, the run's configuration, totals by
    category and by cause (and by origin), wall time and one row per operator."""
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "config": config, "wall_s": round(wall_s, 1),
            "interrupted": interrupted, "categories": category_totals(rows),
            "origins": dict(Counter(r.origin for r in rows if r.status != "pass" and r.origin).most_common()),
            "causes": cause_totals(rows), "ops": [r.to_dict() for r in rows]}
