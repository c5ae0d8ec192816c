"""Failure rules: a validity failure that recurs for the same rewrite on several operators.

A **validity failure** is an outcome of class ``wrong_result``, ``hazard`` or
``build_failure`` (:mod:`ascendopt.bank.outcomes`): the rewrite broke the kernel, which no
later measurement can excuse. When the same rewrite (an offline transform by name; an LLM
answer by its stated family) failed the same way on at least :data:`MIN_OPERATORS` distinct
operators, the bank holds a :class:`Rule`:

* **condition**: the diagnosis findings every failing kernel showed (their intersection; empty:
  any kernel);
* **what fails**: the outcome class and the first line of the most frequent failure text;
* **evidence**: each failing operator with its candidate digest and failure text;
* **support**: how many distinct operators failed.

A rule is *active* unless the same rewrite was also ``faster`` on a kernel whose diagnosis
met the condition (then the condition does not separate the failures from the successes, and
the rule would only hide a rewrite that pays); the rule is kept but marked inactive.

The offline rewriter does not propose a rewrite an active rule's condition holds for
(:func:`blocking`); the LLM refiner's prompt states the active rules that hold for the
current diagnosis (:func:`rules_text`). Rules travel with the bank export.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from ascendopt.bank.outcomes import known_fields, outcomes
from ascendopt.bank.store import ExperienceBank

VALIDITY_FAILURES = ("wrong_result", "hazard", "build_failure")
MIN_OPERATORS = 2
_EVIDENCE_KEPT = 6


@dataclass
class Rule:
    """One failure rule (see the module docstring)."""

    rewrite: str
    family: str
    fails: str
    condition: list[str] = field(default_factory=list)
    what: str = ""
    evidence: list[dict[str, str]] = field(default_factory=list)
    support: int = 0
    active: bool = True

    @property
    def id(self) -> str:
        return rule_id(self.rewrite, self.family, self.fails)

    def holds(self, findings: Iterable[str]) -> bool:
        """Whether the condition holds for a kernel with these diagnosis findings."""
        return set(self.condition) <= set(findings)

    def text(self) -> str:
        """The rule as one sentence (what the LLM prompt and ``bank rules`` show)."""
        who = f"an LLM rewrite of family {self.family}" if self.rewrite == "llm" else f"the `{self.rewrite}` rewrite"
        when = ("a kernel whose diagnosis shows " + ", ".join(self.condition)) if self.condition else "any kernel"
        ops = ", ".join(sorted({e["op"] for e in self.evidence}))
        return (f"Do not apply {who} to {when}: it gave {self.fails.replace('_', ' ')} on {self.support} "
                f"operators ({ops})" + (f": {self.what}" if self.what else "") + ".")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **asdict(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Rule":
        return known_fields(cls, d)


def rule_id(rewrite: str, family: str, fails: str) -> str:
    key = f"{rewrite}\0{family if rewrite == 'llm' else ''}\0{fails}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def _same_rewrite(o: Any, rewrite: str, family: str) -> bool:
    return o.rewrite == rewrite and (rewrite != "llm" or o.family == family)


def derive(history: list[Any], rewrite: str, family: str, fails: str) -> Rule | None:
    """The rule the outcome ``history`` supports for (rewrite, family, fails), or None when
    fewer than :data:`MIN_OPERATORS` operators failed that way."""
    bad = [o for o in history if _same_rewrite(o, rewrite, family) and o.outcome == fails]
    ops = sorted({o.op for o in bad})
    if len(ops) < MIN_OPERATORS:
        return None
    condition = sorted(set.intersection(*(set(o.findings) for o in bad)))
    firsts = [(o.detail.strip().splitlines() or [""])[0][:200] for o in bad]
    what = Counter(f for f in firsts if f).most_common(1)
    evidence = [{"op": o.op, "digest": o.digest, "detail": f} for o, f in zip(bad, firsts)][-_EVIDENCE_KEPT:]
    rule = Rule(rewrite, family if rewrite == "llm" else "", fails, condition, what[0][0] if what else "",
                evidence, len(ops))
    rule.active = not any(_same_rewrite(o, rewrite, family) and o.outcome == "faster" and rule.holds(o.findings)
                          for o in history)
    return rule


def learn(bank: ExperienceBank, o: Any) -> Rule | None:
    """Re-derives the rule an outcome concerns (after it was recorded): a validity failure may
    create or widen one; a ``faster`` outcome may retire the rules of its rewrite it meets."""
    if o.role != "rewrite" or (o.outcome not in VALIDITY_FAILURES and o.outcome != "faster"):
        return None
    history = [h for h in outcomes(bank, role="rewrite", rewrite=o.rewrite) if _same_rewrite(h, o.rewrite, o.family)]
    kinds = [o.outcome] if o.outcome in VALIDITY_FAILURES else list(VALIDITY_FAILURES)
    made = None
    for fails in kinds:
        rule = derive(history, o.rewrite, o.family, fails)
        if rule is not None:
            save(bank, [rule])
            made = rule
    return made


def save(bank: ExperienceBank, rules: list[Rule]) -> None:
    bank.write([("INSERT INTO rules (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                 (r.id, json.dumps(r.to_dict(), sort_keys=True))) for r in rules])


def rules(bank: ExperienceBank | None, active_only: bool = False) -> list[Rule]:
    """The bank's rules (by rewrite, family, failure)."""
    if bank is None or not bank.learns:
        return []
    out = [Rule.from_dict(json.loads(r[0])) for r in bank.query("SELECT record FROM rules ORDER BY id")]
    out.sort(key=lambda r: (r.rewrite, r.family, r.fails))
    return [r for r in out if r.active or not active_only]


def in_force(bank: ExperienceBank | None, findings: Iterable[str]) -> list[Rule]:
    """The active rules whose condition holds for a kernel with these findings."""
    f = set(findings)
    return [r for r in rules(bank, active_only=True) if r.holds(f)]


def blocking(in_force_rules: list[Rule], rewrite: str, family: str = "") -> list[Rule]:
    """The rules (already in force) that forbid proposing ``rewrite``."""
    return [r for r in in_force_rules if r.rewrite == rewrite and (rewrite != "llm" or r.family == family)]


def rules_text(in_force_rules: list[Rule]) -> str:
    """The rules as a bullet list for a prompt."""
    return "\n".join(f"- {r.text()}" for r in in_force_rules) or "(none)"


def merge_imported(bank: ExperienceBank, records: list[dict[str, Any]]) -> int:
    """Adds exported rules: a rule already present keeps the larger support and the union of
    the evidence; returns how many were new."""
    have = {r.id: r for r in rules(bank)}
    new, out = 0, []
    for d in records:
        r = Rule.from_dict(d)
        old = have.get(r.id)
        if old is None:
            new += 1
        else:
            seen = {(e["op"], e["digest"]) for e in old.evidence}
            r.evidence = old.evidence + [e for e in r.evidence if (e["op"], e["digest"]) not in seen]
            r.support = max(r.support, old.support, len({e["op"] for e in r.evidence}))
            r.active = r.active and old.active
            r.condition = sorted(set(r.condition) & set(old.condition))
        out.append(r)
    save(bank, out)
    return new
