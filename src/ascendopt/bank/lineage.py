"""Lineage: the chain from evidence to outcome, read back from the bank.

* A **candidate** (by digest) links to the diagnosis of the kernel it was made from, the
  experiences that led to it, the failure rules in force, and what came of it
  (:func:`candidate_lineage`), from the outcome rows (:mod:`ascendopt.bank.outcomes`).
* An **experience** links back to where it was measured (operator, the two digests, origin)
  and forward to every proposal it led to with its outcome, and carries its value per role
  (:func:`experience_lineage`).

``ascendopt bank show`` prints both (:func:`lineage_lines`); the optimize report shows the
candidate chains of a run from its own steps (:mod:`ascendopt.optimize_report`).
"""

from __future__ import annotations

from typing import Any

from ascendopt.bank.outcomes import ROLES, Value, outcomes, values
from ascendopt.bank.rules import rules
from ascendopt.bank.store import ExperienceBank


def candidate_lineage(bank: ExperienceBank, digest: str) -> list[dict[str, Any]]:
    """One entry per recorded outcome of the candidate(s) whose digest starts with ``digest``."""
    texts = {r.id: r.text() for r in rules(bank)}
    out = []
    for o in outcomes(bank, digest=digest):
        exps = []
        for i in o.experiences:
            e = bank.get(i)
            exps.append({"id": i, "title": e.experience.title if e else "(not in this bank)"})
        out.append({"op": o.op, "digest": o.digest, "parent": o.parent, "role": o.role, "rewrite": o.rewrite,
                    "family": o.family, "site": o.site, "diagnosis": o.diagnosis, "findings": o.findings,
                    "experiences": exps, "rules": [{"id": r, "text": texts.get(r, "")} for r in o.rules],
                    "outcome": o.outcome, "detail": o.detail, "latency_us": o.latency_us})
    return out


def experience_lineage(bank: ExperienceBank, exp_id: str) -> dict[str, Any]:
    """Where an experience came from, its values per role, and the proposals it led to."""
    vals = {role: values(bank, role).get(exp_id) or Value() for role in ROLES}
    led = outcomes(bank, experience=exp_id)
    return {"values": {r: {"mean": round(v.mean, 4), "successes": v.successes, "failures": v.failures,
                           "tries": v.tries} for r, v in vals.items()},
            "led_to": [{"op": o.op, "digest": o.digest, "role": o.role, "rewrite": o.rewrite, "outcome": o.outcome,
                        "rules": o.rules} for o in led]}


def lineage_lines(entry: dict[str, Any]) -> list[str]:
    """A candidate lineage entry as text, one link per line (evidence -> outcome)."""
    lines = [f"candidate {entry['digest'][:12]} of {entry['op']} (from {entry['parent'][:12] or '-'}): "
             f"{entry['rewrite']} [{entry['family']}] {entry['site']}",
             f"  diagnosis: {entry['diagnosis'] or '-'}" + (f" ({', '.join(entry['findings'])})"
                                                            if entry["findings"] else "")]
    lines += [f"  experience {e['id']}: {e['title']}" for e in entry["experiences"]] or ["  experiences: none"]
    lines += [f"  rule {r['id']}: {r['text']}" for r in entry["rules"]] or ["  rules in force: none"]
    lat = f", {entry['latency_us']:.3f} us" if entry.get("latency_us") else ""
    lines.append(f"  outcome: {entry['outcome']}{lat}" + (f" ({entry['detail'][:160]})" if entry["detail"] else ""))
    return lines
