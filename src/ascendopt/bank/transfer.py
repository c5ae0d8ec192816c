"""The bank as a JSON file, and the bank shipped with the package.

An export (:data:`~ascendopt.bank.store.EXPORT_FORMAT`, version 2) holds the experiences with
their support, each experience's values per role (:mod:`ascendopt.bank.outcomes`) and the failure
rules (:mod:`ascendopt.bank.rules`); a version 1 export has experiences only. Export then import
into an empty bank gives the same experiences, values and rules. This module sits above the
store, the outcomes and the rules (the store knows neither).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ascendopt.bank.experience import EXPERIENCE_VERSION, Experience
from ascendopt.bank.outcomes import export_values, import_values
from ascendopt.bank.rules import merge_imported, rules
from ascendopt.bank.store import DEFAULT_BANK_JSON, EXPORT_FORMAT, EXPORT_VERSION, BankError, ExperienceBank
from ascendopt.transforms.families import FAMILIES_VERSION


def export_dict(bank: ExperienceBank) -> dict[str, Any]:
    """Experiences (sorted by id), their values per role and the failure rules."""
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "experience_version": EXPERIENCE_VERSION,
            "families_version": FAMILIES_VERSION,
            "experiences": [{"support": e.support, "seen_on": list(e.seen_on), **e.experience.to_dict()}
                            for e in sorted(bank.entries(), key=lambda e: e.id)],
            "values": export_values(bank), "rules": [r.to_dict() for r in rules(bank)]}


def export_json(bank: ExperienceBank, path: str | Path) -> int:
    """Writes the bank to a JSON file (sorted, deterministic); returns the experience count."""
    d = export_dict(bank)
    Path(path).write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    return len(d["experiences"])


def import_json(bank: ExperienceBank, path: str | Path) -> tuple[int, int]:
    """Reads an export into ``bank``; returns ``(added, merged)`` (merged: already present,
    support raised).

    Raises:
        BankError: Not an export, a newer format, or an invalid record (no experience is added).
    """
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise BankError(f"{path}: cannot read a bank export ({e})") from None
    if not isinstance(d, dict) or d.get("format") != EXPORT_FORMAT:
        raise BankError(f"{path}: not an ascendopt experience-bank export")
    if int(d.get("version", 0)) > EXPORT_VERSION:
        raise BankError(f"{path}: export version {d.get('version')} is newer than this ascendopt ({EXPORT_VERSION})")
    recs = d.get("experiences") or []
    try:
        exps = [(Experience.from_dict(r), r.get("seen_on", ()), int(r.get("support", 1))) for r in recs]
    except (ValueError, TypeError) as e:
        raise BankError(f"{path}: invalid experience: {e}") from None
    added = merged = 0
    for exp, seen, support in exps:
        _, new = bank.add(exp, seen, support)
        added, merged = added + new, merged + (not new)
    try:
        import_values(bank, list(d.get("values") or []))
        merge_imported(bank, list(d.get("rules") or []))
    except (KeyError, ValueError, TypeError) as e:
        raise BankError(f"{path}: invalid values or rules: {e}") from None
    return added, merged


def open_default() -> ExperienceBank:
    """An in-memory bank holding the bank shipped with the package (empty if absent)."""
    bank = ExperienceBank(":memory:")
    if DEFAULT_BANK_JSON.exists():
        import_json(bank, DEFAULT_BANK_JSON)
    return bank
