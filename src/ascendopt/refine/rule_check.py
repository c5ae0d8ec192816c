"""Failure rules checked on a rewrite no offline transform made (an LLM answer), before it costs
an evaluation.

The offline rewriter does not propose a transform that an active rule in force forbids
(:func:`ascendopt.bank.rules.blocking` with the transform's name). A candidate written by the
LLM is held to the same rules, identified by what it is:

* a rule on LLM rewrites of a family (``rewrite == "llm"``) forbids an answer stating that
  family (the same :func:`~ascendopt.bank.rules.blocking` check, with ``"llm"`` and the family);
* a rule on an offline transform forbids an answer that makes that transform's edit: at some
  site the transform finds in the parent kernel, the lines its rewrite removes are removed by
  the answer too and the lines it adds are added too (compared as multisets of lines,
  whitespace-normalised, per file; :func:`contains_edit`). The answer may change more; it still
  makes the edit the rule says fails on kernels like this one.

Rules reach the rewriter already filtered to those in force for the parent's diagnosis
(:func:`ascendopt.bank.rules.in_force`), so the condition half of the check is the same as
the offline rewriter's; a kernel's diagnosis is the parent's, as no candidate is evaluated yet.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ascendopt.bank.rules import Rule, blocking
from ascendopt.operator import Operator


def _lines(text: str) -> Counter[str]:
    return Counter(n for n in (" ".join(line.split()) for line in text.splitlines()) if n)


def _change(old: Operator, new: Operator) -> dict[str, tuple[Counter[str], Counter[str]]]:
    """Per changed file: (lines removed, lines added), whitespace-normalised multisets."""
    out = {}
    for k in sorted(set(old.files) | set(new.files)):
        a, b = _lines(old.files.get(k, "")), _lines(new.files.get(k, ""))
        if a != b:
            out[k] = (a - b, b - a)
    return out


def contains_edit(parent: Operator, edited: Operator, cand: Operator) -> bool:
    """Whether ``cand`` makes the change ``parent`` -> ``edited`` (see the module docstring);
    False when that change is empty (whitespace only)."""
    want, got = _change(parent, edited), _change(parent, cand)
    if not want:
        return False
    for k, (removed, added) in want.items():
        have_removed, have_added = got.get(k, (Counter(), Counter()))
        if removed - have_removed or added - have_added:
            return False
    return True


def makes_transform_edit(transform: Any, parent: Operator, cand: Operator) -> bool:
    """Whether ``cand`` makes ``transform``'s edit at one of its sites in ``parent``."""
    from ascendopt.transforms.sites import anchored, sites_of

    try:
        sites = sites_of(transform, parent) if anchored(transform, parent) else []
    except Exception:  # noqa: BLE001 - a matcher that cannot read this kernel finds nothing (as offline)
        return False
    for s in sites:
        try:
            edited = transform.apply(parent, s)
        except Exception:  # noqa: BLE001 - a site the transform cannot edit is no edit
            continue
        if contains_edit(parent, edited, cand):
            return True
    return False


def broken_rules(rules: list[Rule], parent: Operator, cand: Operator, family: str) -> list[Rule]:
    """The rules in force (``rules``) that forbid ``cand``, an LLM rewrite of ``parent``
    stating ``family`` (see the module docstring); empty when it may be evaluated."""
    out = blocking(rules, "llm", family)
    names = sorted({r.rewrite for r in rules if r.rewrite != "llm"})
    if names:
        from ascendopt.transforms import REWRITES

        known = REWRITES.all()
        for name in names:
            if name in known and makes_transform_edit(known[name](), parent, cand):
                out += blocking(rules, name)
    return out
