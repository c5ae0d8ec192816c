"""The knob space of one operator: domains, sampling, neighbours, apply, JSON.

A *config* is a plain ``dict[str, int]`` from knob id to value (optionally with the reserved key
:data:`REGION_KEY` holding replacement text for the whole evolvable region, proposed by an LLM
mutator). Configs missing a knob take its default.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.cxx.parse import Parsed
from ascendopt.operator import Operator
from ascendopt.slots import CONSTEXPR, HostSlots, render_literal, slot_text, slottable
from ascendopt.tiling.domain import Domain
from ascendopt.tiling.knobs import Knob, Span, extract_knobs
from ascendopt.tiling.priors import SocLimits, domain_for, prior_value
from ascendopt.tiling.template import TemplateError, TilingTemplate, find_template

Config = dict[str, Any]
REGION_KEY = "@region"
SPACE_FORMAT_VERSION = 1
MUTATIONS = ("neighbour", "pow2", "resample")


class KnobSpace:
    """An ordered set of knobs with domains.

    Args:
        knobs: Knobs, each with a ``domain``.
        template: Where the tiling region is (None for purely synthetic spaces).
        soc: The SoC limits the priors were computed for.
        region_text: The original region text (what an LLM mutator edits).
    """

    def __init__(self, knobs: list[Knob], template: TilingTemplate | None = None,
                 soc: SocLimits | None = None, region_text: str = ""):
        for k in knobs:
            if k.domain is None:
                raise ValueError(f"knob {k.id} has no domain")
        ids = [k.id for k in knobs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate knob ids: {ids}")
        self.knobs: tuple[Knob, ...] = tuple(knobs)
        self._by_id = {k.id: k for k in knobs}
        self.template = template
        self.soc = soc
        self.region_text = region_text

    # -- construction ------------------------------------------------------------------------
    @staticmethod
    def from_operator(op: Operator, soc: str = DEFAULT_SOC, include_kernel: bool = True) -> KnobSpace:
        """Extracts the knobs of ``op`` and gives them SoC-derived domains.

        Operators without a locatable tiling function give an empty space (never an error).
        """
        limits = SocLimits.load(soc)
        parsed: dict[str, Parsed] = {}
        try:
            tpl = find_template(op, parsed)
        except TemplateError:
            return KnobSpace([], None, limits, "")
        knobs = []
        for k in extract_knobs(op, tpl, parsed, include_kernel=include_kernel):
            default, dom = domain_for(k, limits)
            knobs.append(replace(k, default=default, domain=dom))
        return KnobSpace(knobs, tpl, limits, tpl.region_text(op))

    @staticmethod
    def synthetic(domains: Mapping[str, Domain]) -> KnobSpace:
        """A space without sources (tests, replays): one knob per domain."""
        knobs = [Knob(id=i, name=i, file="", start=0, end=0, line=0, text=str(d.default), default=d.default,
                      role="other", scope="synthetic", domain=d) for i, d in domains.items()]
        return KnobSpace(knobs)

    # -- access ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.knobs)

    def __iter__(self):
        return iter(self.knobs)

    def __getitem__(self, knob_id: str) -> Knob:
        return self._by_id[knob_id]

    @property
    def ids(self) -> list[str]:
        return [k.id for k in self.knobs]

    def domain(self, knob_id: str) -> Domain:
        d = self._by_id[knob_id].domain
        assert d is not None
        return d

    def defaults(self) -> Config:
        return {k.id: k.default for k in self.knobs}

    def prior_config(self) -> Config:
        """Every knob at its SoC prior (:func:`~ascendopt.tiling.priors.prior_value`): all
        cores, double buffering, no reserve; other knobs at their defaults."""
        return {k.id: prior_value(k, self.domain(k.id), k.default) for k in self.knobs}

    def complete(self, config: Mapping[str, Any]) -> Config:
        """``config`` with missing knobs set to their defaults (unknown keys kept)."""
        out = self.defaults()
        out.update(config)
        return out

    def contains(self, config: Mapping[str, Any]) -> bool:
        for key, v in config.items():
            if key == REGION_KEY:
                continue
            if key not in self._by_id or not isinstance(v, int) or not self.domain(key).contains(v):
                return False
        return True

    def key(self, config: Mapping[str, Any]) -> tuple:
        """A hashable identity of a config (defaults filled in)."""
        c = self.complete(config)
        return tuple(c[i] for i in self.ids) + ((c[REGION_KEY],) if REGION_KEY in c else ())

    def size(self) -> int:
        n = 1
        for k in self.knobs:
            n *= self.domain(k.id).size()
        return n

    # -- sampling and moves ----------------------------------------------------------------
    def sample(self, rng: random.Random) -> Config:
        return {k.id: self.domain(k.id).sample(rng) for k in self.knobs}

    def mutate_knob(self, config: Mapping[str, Any], knob_id: str, how: str, rng: random.Random) -> Config:
        """Returns a copy of ``config`` with one knob moved by ``how`` in :data:`MUTATIONS`."""
        c = self.complete(config)
        d = self.domain(knob_id)
        if how == "neighbour":
            c[knob_id] = d.neighbour(c[knob_id], rng)
        elif how == "pow2":
            c[knob_id] = d.pow2_jump(c[knob_id], rng)
        elif how == "resample":
            c[knob_id] = d.sample(rng)
        else:
            raise ValueError(f"unknown mutation {how!r}")
        return c

    def neighbour(self, config: Mapping[str, Any], rng: random.Random, knob_id: str | None = None) -> Config:
        """One neighbour step on one knob (random if not given)."""
        if not self.knobs:
            return dict(config)
        return self.mutate_knob(config, knob_id or rng.choice(self.ids), "neighbour", rng)

    def neighbours(self, config: Mapping[str, Any]) -> list[Config]:
        """All configs one grid step away on one knob (deterministic order)."""
        c = self.complete(config)
        out = []
        for k in self.knobs:
            grid = self.domain(k.id).grid()
            if c[k.id] not in grid:
                continue
            i = grid.index(c[k.id])
            for j in (i - 1, i + 1):
                if 0 <= j < len(grid):
                    out.append({**c, k.id: grid[j]})
        return out

    # -- sources -------------------------------------------------------------------------------
    def apply(self, op: Operator, config: Mapping[str, Any], origin: str = "stage2") -> Operator:
        """Writes ``config`` into ``op``'s sources and returns the new Operator.

        Knobs at their default are left untouched, so ``apply(op, defaults())`` has the same
        sources as ``op``. Only the knobs' spans change (rewritten right to left per file); a
        :data:`REGION_KEY` entry replaces the whole region text first (knob spans inside the
        region are then not written). Overlapping spans are skipped.
        """
        edits: dict[str, list[tuple[int, int, str]]] = {}
        region = config.get(REGION_KEY)
        tpl = self.template
        for kid, v in config.items():
            if kid == REGION_KEY or kid not in self._by_id:
                continue
            k = self._by_id[kid]
            if v == k.default:
                continue
            for s in k.spans:
                if region is not None and tpl is not None and s.file == tpl.file and \
                        tpl.region_start <= s.start < tpl.region_end:
                    continue
                edits.setdefault(s.file, []).append((s.start, s.end, k.render_value(int(v))))
        if region is not None and tpl is not None:
            edits.setdefault(tpl.file, []).append((tpl.region_start, tpl.region_end, str(region)))
        slots = None if region is not None else self._slots(op, config)
        if not edits:
            return op if slots is None else replace(op, slots=slots)
        files = _edited(op.files, edits)
        return Operator(op.name, MappingProxyType(files), op.root, op.digest, origin, slots=slots)

    def _slots(self, op: Operator, config: Mapping[str, Any]) -> HostSlots | None:
        """The host files with every slottable literal knob span as a slot (see
        :mod:`ascendopt.slots`), so candidates differing only in those values share one
        host build; None when no span qualifies."""
        c = self.complete(config)
        edits: dict[str, list[tuple[int, int, str]]] = {}
        values: list[int] = []
        host = {rel: op.files[rel].encode() for rel in op.host_files()}
        for k in self.knobs:
            v = int(c[k.id])
            for s in k.spans:
                src = host.get(s.file)
                if src is None:
                    continue
                text = src[s.start:s.end].decode()
                literal = text if v == k.default else k.render_value(v)
                if k.render == "literal" and slottable(text, v) and render_literal(text, v) == literal \
                        and not _constant_context(src, s.start):
                    edits.setdefault(s.file, []).append((s.start, s.end, slot_text(len(values), text)))
                    kw = _constexpr_keyword(src, s.start)
                    if kw:
                        edits[s.file].append((*kw, CONSTEXPR))
                    values.append(v)
                elif k.render == "cap" and v != k.default and literal == k.render_value(v) \
                        and slottable("1U", v) and not _constant_context(src, s.start):
                    # (x < VU ? x : VU): V is a slot, one build for every cap value
                    slot = slot_text(len(values), "1U")
                    edits.setdefault(s.file, []).append((s.start, s.end, f"({text} < {slot} ? {text} : {slot})"))
                    values.append(v)
                elif literal != text:
                    edits.setdefault(s.file, []).append((s.start, s.end, literal))
        if not values:
            return None
        files = _edited(op.files, edits)
        return HostSlots.make({rel: files[rel] for rel in op.host_files()}, values)

    # -- (de)serialisation -----------------------------------------------------------------
    def to_json(self) -> dict:
        t = self.template
        return {"version": SPACE_FORMAT_VERSION,
                "knobs": [k.to_json() for k in self.knobs],
                "template": None if t is None else dict(t.__dict__),
                "soc": None if self.soc is None else self.soc.to_json(),
                "region_text": self.region_text}

    @staticmethod
    def from_json(d: dict) -> KnobSpace:
        if d.get("version") != SPACE_FORMAT_VERSION:
            raise ValueError(f"unsupported knob-space format version {d.get('version')!r}")
        tpl = TilingTemplate(**d["template"]) if d.get("template") else None
        soc = SocLimits(**d["soc"]) if d.get("soc") else None
        return KnobSpace([Knob.from_json(k) for k in d["knobs"]], tpl, soc, d.get("region_text", ""))


_CONSTANT_CONTEXT = re.compile(rb"\b(case|static_assert|alignas|enum|template)\b")
_CONSTEXPR = re.compile(rb"\bconstexpr\b")


def _statement_start(src: bytes, pos: int) -> int:
    return max(src.rfind(b";", 0, pos), src.rfind(b"{", 0, pos), src.rfind(b"}", 0, pos)) + 1


def _constant_context(src: bytes, start: int) -> bool:
    """True when the statement holding byte ``start`` needs a constant expression there
    (case labels, static_assert, template arguments, ...): such a span cannot be a slot.
    ``constexpr`` declarations can (see :func:`_constexpr_keyword`)."""
    return bool(_CONSTANT_CONTEXT.search(src[_statement_start(src, start):start]))


def _constexpr_keyword(src: bytes, start: int) -> tuple[int, int] | None:
    """Byte span of the ``constexpr`` keyword of the declaration holding byte ``start``, if
    any: a slotted declaration becomes ``const`` (:data:`ascendopt.slots.CONSTEXPR`), and the
    build falls back to the literal source if the constant was needed at compile time."""
    stmt = _statement_start(src, start)
    m = _CONSTEXPR.search(src, stmt, start)
    return (m.start(), m.end()) if m else None


def _edited(files: Mapping[str, str], edits: dict[str, list[tuple[int, int, str]]]) -> dict[str, str]:
    """``files`` with byte-span replacements applied right to left per file (overlapping
    spans are skipped)."""
    out = dict(files)
    for rel, es in edits.items():
        src = out[rel].encode()
        last = len(src) + 1
        for start, end, text in sorted(es, key=lambda e: e[0], reverse=True):
            if end > last:
                continue
            src = src[:start] + text.encode() + src[end:]
            last = start
        out[rel] = src.decode()
    return out


__all__ = ["MUTATIONS", "REGION_KEY", "Config", "KnobSpace", "Span"]
