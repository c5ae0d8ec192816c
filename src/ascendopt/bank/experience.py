"""The experience record: one measured optimization, in the optimizing direction (slow -> fast).

Every field is filled from execution (the two evaluations and their profiles) and from the
transform that made the pair; nothing is a guess about the hardware. The JSON form
(:meth:`Experience.to_dict`) is what the bank stores, exports and imports; its schema version
is :data:`EXPERIENCE_VERSION` and :func:`validate` checks a record against it (the LLM
distiller's answers go through the same check).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ascendopt.transforms.families import FAMILIES, FAMILIES_VERSION


EXPERIENCE_VERSION = 1
REQUIRED_TEXT = ("title", "family", "mechanism", "causal_chain", "bottleneck", "diff")


@dataclass
class Experience:
    """One optimization with its evidence.

    Attributes:
        title: The optimization, imperative (``Double-buffer the copy queues``).
        family: Canonical family (:data:`ascendopt.transforms.families.FAMILIES`).
        mechanism: The root mechanism: why it pays on this hardware.
        causal_chain: What removing it did to the pipes, in words, from the two profiles.
        bottleneck: The symptom its absence shows (the slow side's bound and pipes).
        applicability: ``{"rewrite": name of the Stage I rewrite that applies it,
            "motif": name of the rewind motif that removed it, "pattern": what the
            matcher finds (site labels on the slow side)}``; the rewrite's matcher decides
            whether it applies to a new kernel.
        expected_effect: ``{"speedup": fast over slow, "slow_us", "fast_us", "tau_us",
            "sigma_us", "repeats"}`` as measured.
        evidence: ``{"slow": diagnosis dict, "fast": diagnosis dict}`` (pipe ratios, bound,
            roofline share, top instructions, findings).
        reusable_when: When to reach for it (from the slow side's diagnosis).
        avoid_when: When it will not pay (from the fast side's state and the motif).
        diff: Unified diff slow -> fast.
        source: ``{"op", "case", "soc", "backend", "fast_digest", "slow_digest", "depth"}``.
        origin: ``rewind`` (offline) or ``online`` (an accepted Stage I rewrite).
        families_version: Version of the family list the family belongs to.
        version: Schema version of this record.
    """

    title: str
    family: str
    mechanism: str
    causal_chain: str
    bottleneck: str
    applicability: dict[str, Any]
    expected_effect: dict[str, Any]
    evidence: dict[str, Any]
    reusable_when: str
    avoid_when: str
    diff: str
    source: dict[str, Any] = field(default_factory=dict)
    origin: str = "rewind"
    families_version: int = FAMILIES_VERSION
    version: int = EXPERIENCE_VERSION

    @property
    def speedup(self) -> float:
        return float(self.expected_effect.get("speedup") or 1.0)

    def dedup_key(self) -> str:
        """Same family and same normalised diff (:func:`normalized_diff`) -> same key."""
        return hashlib.sha256(f"{self.family}\0{normalized_diff(self.diff)}".encode()).hexdigest()[:24]

    @property
    def id(self) -> str:
        """Content id: the first 12 hex digits of the dedup key (near-identical experiences
        share it)."""
        return self.dedup_key()[:12]

    def search_text(self) -> str:
        """What lexical retrieval indexes."""
        ev = self.evidence.get("slow") or {}
        return " ".join([self.title, self.family.replace("_", " "), self.mechanism, self.causal_chain, self.bottleneck,
                         self.reusable_when, " ".join(f.replace("_", " ") for f in ev.get("findings", ())),
                         " ".join(ev.get("top_instructions", ())), str(self.applicability.get("pattern", ""))])

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["id"] = self.id
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Experience":
        validate(d)
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})


def validate(d: dict[str, Any]) -> None:
    """Checks a JSON record against the schema.

    Raises:
        ValueError: A missing or empty field, an unknown family, a newer schema version.
    """
    if not isinstance(d, dict):
        raise ValueError("an experience must be a JSON object")
    if int(d.get("version", EXPERIENCE_VERSION)) > EXPERIENCE_VERSION:
        raise ValueError(f"experience schema version {d.get('version')} is newer than this tool's "
                         f"({EXPERIENCE_VERSION}); upgrade ascendopt")
    missing = [k for k in REQUIRED_TEXT if not isinstance(d.get(k), str) or not d[k].strip()]
    if missing:
        raise ValueError(f"experience {d.get('title', '?')!r}: missing or empty {', '.join(missing)}")
    if d["family"] not in FAMILIES:
        raise ValueError(f"experience {d['title']!r}: unknown family {d['family']!r}")
    for k in ("applicability", "expected_effect", "evidence"):
        if not isinstance(d.get(k), dict):
            raise ValueError(f"experience {d['title']!r}: {k} must be an object")
    sp = d["expected_effect"].get("speedup")
    if not isinstance(sp, (int, float)) or sp <= 0:
        raise ValueError(f"experience {d['title']!r}: expected_effect.speedup must be a positive number")


_HUNK = re.compile(r"^@@.*@@")


def normalized_diff(diff: str) -> str:
    """The changed lines of a diff with whitespace collapsed, file names and hunk positions
    dropped, so the same edit on two copies of a kernel compares equal."""
    out = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")) or _HUNK.match(line):
            continue
        if line.startswith(("+", "-")):
            out.append(line[0] + " ".join(line[1:].split()))
    return "\n".join(out)
