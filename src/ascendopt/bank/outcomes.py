"""What came of each proposal, written back to the bank: outcomes and each experience's value.

Every evaluated proposal is one :class:`Outcome` row (table ``outcomes``): the candidate and
its parent, the rewrite and family that made it, the diagnosis of the kernel it was made from,
the experiences that led to it (retrieved hits that named its rewrite or family, see
:func:`ascendopt.refine.rewriter.experience_prior`), the failure rules in force, and the
outcome class (:data:`OUTCOMES`): ``faster``, ``neutral`` (within the noise threshold),
``not_faster``, ``wrong_result``, ``hazard``, ``build_failure`` or ``failed`` (a timeout or a
runtime error of another kind). A row is written once per (role, operator, candidate, parent):
a resumed or replayed run does not count the same evaluation twice.

**Values.** Each experience keeps one value per role (:data:`ROLES`): ``rewrite`` (did the
proposals it guided in Stage I pay?) and ``rewind`` (did removing its optimization from another
kernel give a measurable lesson?). The update rule is a Beta posterior: the prior is
Beta(1, 1); an outcome adds its success weight to ``successes`` and its failure weight to
``failures`` (:data:`SUCCESS_WEIGHT`; a ``neutral`` outcome counts half a failure, any other
non-success a whole one), and the value is the posterior mean
``(1 + successes) / (2 + successes + failures)``: 0.5 untried, towards 1 as the experience's
advice keeps paying, towards 0 as it keeps failing.

**Exploration.** Retrieval (:func:`ascendopt.bank.retrieve.retrieve`) adds to the similarity
parts a ``value`` part, the UCB1-like score :func:`ucb` =
``min(1, mean + EXPLORATION * sqrt(ln(1 + N) / (1 + n)))`` with ``n`` the experience's tries in
the role and ``N`` the tries of every experience in that role, so an experience not yet tried
keeps room next to those measured to pay.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ascendopt.bank.store import ExperienceBank

ROLES = ("rewrite", "rewind")
OUTCOMES = ("faster", "neutral", "not_faster", "wrong_result", "hazard", "build_failure", "failed")
#: Rewind's outcome classes: a removal kept as a lesson, or not.
REWIND_OUTCOMES = ("kept", "not_slower", "new_hazard", "failed")
#: (success, failure) weight of each outcome class.
SUCCESS_WEIGHT: dict[str, tuple[float, float]] = {"faster": (1.0, 0.0), "kept": (1.0, 0.0), "neutral": (0.0, 0.5)}
EXPLORATION = 0.25
_BUILD = ("compile_error", "tiling_error")
_ADD_VALUE = ("INSERT INTO exp_values (exp_id, role, successes, failures, tries) VALUES (?, ?, ?, ?, ?) "
              "ON CONFLICT (exp_id, role) DO UPDATE SET successes = successes + excluded.successes, "
              "failures = failures + excluded.failures, tries = tries + excluded.tries")


def known_fields(cls: type, d: dict[str, Any]) -> Any:
    """``cls`` built from the keys of ``d`` that are its dataclass fields (others ignored)."""
    return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


@dataclass
class Outcome:
    """One evaluated proposal and what came of it (see the module docstring)."""

    role: str
    op: str
    digest: str
    parent: str
    rewrite: str
    family: str
    outcome: str
    site: str = ""
    detail: str = ""
    latency_us: float | None = None
    diagnosis: str = ""
    findings: list[str] = field(default_factory=list)
    experiences: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Outcome":
        return known_fields(cls, d)


@dataclass(frozen=True)
class Value:
    """An experience's record in one role."""

    successes: float = 0.0
    failures: float = 0.0
    tries: int = 0

    @property
    def mean(self) -> float:
        """Posterior mean of Beta(1 + successes, 1 + failures)."""
        return (1.0 + self.successes) / (2.0 + self.successes + self.failures)


def ucb(v: Value, total_tries: int, c: float = EXPLORATION) -> float:
    """``mean + c * sqrt(ln(1 + N) / (1 + n))`` (module docstring)."""
    return v.mean + c * math.sqrt(math.log(1.0 + total_tries) / (1.0 + v.tries))


def outcome_class(reason: str, status: str = "", error_kind: str = "") -> str:
    """The outcome class of a Stage I verdict (``accepted``, ``neutral``, ``not_faster``,
    ``new_hazard``, ``failed``) and the evaluation's status."""
    if reason == "accepted":
        return "faster"
    if reason in ("neutral", "not_faster"):
        return reason
    if reason == "new_hazard" or error_kind in ("race", "hazard"):
        return "hazard"
    if status in _BUILD:
        return "build_failure"
    if status == "wrong_result":
        return "wrong_result"
    return "failed"


def record(bank: ExperienceBank, o: Outcome) -> bool:
    """Writes one outcome and, when it is new, updates the value of each experience it names
    in its role and the failure rules (:func:`ascendopt.bank.rules.learn`). Returns whether
    the row was new."""
    if not bank.learns:
        return False
    ok, bad = SUCCESS_WEIGHT.get(o.outcome, (0.0, 1.0))
    (new,) = bank.write([(
        "INSERT OR IGNORE INTO outcomes (role, op, digest, parent, rewrite, family, outcome, record) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (o.role, o.op, o.digest, o.parent, o.rewrite, o.family, o.outcome, json.dumps(o.to_dict(), sort_keys=True)))])
    if new != 1:
        return False
    bank.write([(_ADD_VALUE, (exp_id, o.role, ok, bad, 1)) for exp_id in dict.fromkeys(o.experiences)])
    return True


def values(bank: ExperienceBank, role: str = "rewrite") -> dict[str, Value]:
    """Every experience's value in ``role`` (experiences never tried are absent)."""
    if not bank.learns:
        return {}
    rows = bank.query("SELECT exp_id, successes, failures, tries FROM exp_values WHERE role = ?", (role,))
    return {r[0]: Value(float(r[1]), float(r[2]), int(r[3])) for r in rows}


def outcomes(bank: ExperienceBank, digest: str = "", experience: str = "", role: str = "",
             rewrite: str = "") -> list[Outcome]:
    """Outcome rows in order, optionally of one candidate (digest prefix), of proposals one
    experience led to, of one role, of one rewrite."""
    if not bank.learns:
        return []
    q, args = "SELECT record FROM outcomes WHERE digest LIKE ?", [digest + "%"]
    for col, val in (("role", role), ("rewrite", rewrite)):
        if val:
            q, args = q + f" AND {col} = ?", args + [val]
    out = [Outcome.from_dict(json.loads(r[0])) for r in bank.query(q + " ORDER BY seq", tuple(args))]
    return [o for o in out if not experience or any(e.startswith(experience) for e in o.experiences)]


def export_values(bank: ExperienceBank) -> list[dict[str, Any]]:
    """The values table as sorted JSON rows (for the bank export)."""
    if not bank.learns:
        return []
    rows = bank.query("SELECT exp_id, role, successes, failures, tries FROM exp_values ORDER BY exp_id, role")
    return [{"id": r[0], "role": r[1], "successes": r[2], "failures": r[3], "tries": r[4]} for r in rows]


def import_values(bank: ExperienceBank, rows: list[dict[str, Any]]) -> None:
    """Adds exported values to this bank's (counts add up, like support)."""
    bank.write([(_ADD_VALUE, (str(r["id"]), str(r["role"]), float(r["successes"]), float(r["failures"]),
                              int(r["tries"]))) for r in rows])
