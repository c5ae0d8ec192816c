"""Retrieval: the top-k experiences for a diagnosis of a new operator.

The default retriever needs nothing beyond SQLite. An experience's score is the sum of three
parts, each in [0, 1]:

* **lexical**: BM25 of the experience's text (title, mechanism, causal chain, findings, top
  instructions) against the diagnosis's words (findings, bound, busiest pipe, top
  instructions), divided by the best BM25 of the query;
* **profile**: similarity of the diagnosis's numeric features (pipe busy ratios, overlap,
  roofline share, core use, transfer size; :meth:`Diagnosis.features`) to those of the
  experience's *slow* side, ``1 - mean |a - b|``: a kernel that looks like the slow side did
  is likely to gain what the fast side gained;
* **applicability**: 1 when the experience's Stage I rewrite finds a site in the kernel
  (its own matcher decides), 0 when it finds none, 0.5 when the kernel or rewrite is unknown.

An optional dense retriever (:class:`DenseScorer`: an OpenAI-compatible embeddings endpoint
or a local sentence-embedding model) adds a fourth part behind the same interface.

With ``mode="value"`` (the default; ``"similarity"`` is the ablation) a **value** part is added:
what the experience's guidance has been worth in the role so far, with an exploration bonus
for experiences seldom tried (:func:`ascendopt.bank.outcomes.ucb`: the Beta posterior mean of
its outcomes plus a UCB1 term; 0.5 for every experience before any outcome).

An experience whose Stage I rewrite is known and finds no site in the kernel (``applies`` 0)
cannot be what the rewriter does next: it ranks after every experience that applies or whose
rewrite is unknown, whatever its other parts (so on a kernel with no scalar loop, "use vector
instructions instead of scalar element loops" is not among the top hits). Within each of the
two groups, a repeat of a lesson already ranked (same title and family, measured on another
kernel) comes after every lesson's first occurrence, so the top hits are distinct lessons.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ascendopt.bank.store import Entry, ExperienceBank
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import FEATURES, Diagnosis


@dataclass(frozen=True)
class Hit:
    """One retrieved experience with its score and the parts of it."""

    entry: Entry
    score: float
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def experience(self):
        return self.entry.experience

    def to_dict(self) -> dict[str, Any]:
        e = self.entry.experience
        return {"id": e.id, "title": e.title, "family": e.family, "score": round(self.score, 4),
                "parts": {k: round(v, 4) for k, v in self.parts.items()}, "speedup": e.speedup,
                "rewrite": e.applicability.get("rewrite", ""), "support": self.entry.support,
                "seen_on": list(self.entry.seen_on)}


class DenseScorer(Protocol):
    """Optional semantic similarity of a query text to each experience (values in [0, 1])."""

    def scores(self, query: str, entries: list[Entry]) -> dict[str, float]: ...


def profile_similarity(a: dict[str, float], b: dict[str, float]) -> float:
    """``1 - mean |a_f - b_f|`` over :data:`FEATURES` (both sides' features lie in [0, 1])."""
    diffs = [abs(float(a.get(f, 0.0)) - float(b.get(f, 0.0))) for f in FEATURES]
    return max(0.0, 1.0 - sum(diffs) / len(diffs))


def rewrite_applies(rewrite: str, op: Operator | None, cache: dict[str, bool] | None = None) -> float:
    """1.0 / 0.0 whether Stage I's rewrite ``rewrite`` finds a site in ``op``; 0.5 unknown."""
    if op is None or not rewrite:
        return 0.5
    if cache is not None and rewrite in cache:
        return 1.0 if cache[rewrite] else 0.0
    from ascendopt.transforms import REWRITES
    from ascendopt.transforms.sites import sites_of

    try:
        found = bool(sites_of(REWRITES.get(rewrite), op))
    except KeyError:
        return 0.5
    except Exception:  # noqa: BLE001 - a matcher that cannot read this kernel finds nothing
        found = False
    if cache is not None:
        cache[rewrite] = found
    return 1.0 if found else 0.0


MODES = ("value", "similarity")


def retrieve(bank: ExperienceBank, diagnosis: Diagnosis, k: int = 5, op: Operator | None = None,
             exclude_ops: Iterable[str] = (), dense: DenseScorer | None = None, mode: str | None = None,
             role: str = "rewrite") -> list[Hit]:
    """The ``k`` best experiences for ``diagnosis`` (of kernel ``op`` when given).

    Args:
        exclude_ops: Leave out experiences measured only on these operators (held-out
            evaluation: an operator must not retrieve what was learnt on itself).
        dense: Optional dense scorer; its score is added as a fourth part.
        mode: ``value`` (similarity parts plus the value part) or ``similarity``; default
            the bank's ``retrieval`` attribute (``value``).
        role: Whose value counts (:data:`ascendopt.bank.outcomes.ROLES`).
    """
    from ascendopt.bank.outcomes import Value, ucb, values

    mode = mode or getattr(bank, "retrieval", "value")
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r} ({', '.join(MODES)})")
    excluded = set(exclude_ops)
    entries = [e for e in bank.entries() if not (e.seen_on and set(e.seen_on) <= excluded)]
    if not entries:
        return []
    lex = bank.lexical(diagnosis.query_text(), limit=max(50, len(entries)))
    top_lex = max(lex.values(), default=0.0)
    feats = diagnosis.features()
    dense_scores = dense.scores(diagnosis.query_text(), entries) if dense is not None else {}
    applies: dict[str, bool] = {}
    vals = values(bank, role) if mode == "value" else {}
    total = sum(v.tries for v in vals.values())
    hits = []
    for e in entries:
        exp = e.experience
        slow = Diagnosis.from_dict(exp.evidence.get("slow") or {})
        parts = {"lexical": lex.get(e.id, 0.0) / top_lex if top_lex > 0 else 0.0,
                 "profile": profile_similarity(feats, slow.features()),
                 "applies": rewrite_applies(str(exp.applicability.get("rewrite") or ""), op, applies)}
        if dense is not None:
            parts["dense"] = float(dense_scores.get(e.id, 0.0))
        if mode == "value":
            parts["value"] = ucb(vals.get(e.id, Value()), total)
        hits.append(Hit(e, sum(parts.values()), parts))
    hits.sort(key=lambda h: (h.parts["applies"] == 0.0, -h.score, -h.experience.speedup, h.experience.id))
    cannot = [h for h in hits if h.parts["applies"] == 0.0]
    return (diverse([h for h in hits if h.parts["applies"] != 0.0]) + diverse(cannot))[:k]


def diverse(hits: list[Hit]) -> list[Hit]:
    """The hits with repeats of a lesson (same title and family: the same optimization
    measured on other kernels) moved after every first occurrence, order otherwise kept."""
    seen: set[tuple[str, str]] = set()
    first, again = [], []
    for h in hits:
        key = (h.experience.title, h.experience.family)
        (again if key in seen else first).append(h)
        seen.add(key)
    return first + again
