"""Shapes the search never used, derived from an operator's cases.

A tuner or a rewriting agent only ever runs the operator's cases; a tiling that hard-codes what
it saw (a length, a tile count, a core split that divides the benchmark shape evenly) passes all
of them and breaks elsewhere. This module derives *unseen* cases from the cases the search used,
so that the returned best can be checked on them (:mod:`ascendopt.evaluate.unseen_check`).

Each derived case starts from a *base* case (the largest case of each dtype combination: what
the search timed) and changes it in one way:

* ``ragged``: every dimension of at least :data:`STRUCTURAL_DIM` elements becomes the odd number
  below it (``d - 1`` when ``d`` is even, ``d - 2`` otherwise): sizes that are multiples of no
  tile, no core count and no 32-byte block;
* ``single``: every dimension becomes 1 (one element);
* ``largest``: the outermost dimension (of the first input) of at least 2 is multiplied by the
  largest ``k >= 2`` that keeps the case within ``max_elements`` (elements of all its inputs and
  outputs), so a check stays a few seconds on the simulator;
* ``half``: every dimension of at least :data:`STRUCTURAL_DIM` is halved;
* ``dtype``: the base case with every tensor's dtype set to a dtype combination the operator's
  OpDef declares (``DataType({...})`` lists, position by position) that no case uses.

A dimension is changed the same way wherever it occurs (a map from old size to new size over
all of the case's tensors), so relations between inputs that are equalities (a shared ``K``, a
broadcast partner, an output equal to an input) hold in the derived case; a size 2 to 4 times
another that a second tensor has on the same axis (a concatenation, a split, a gated half) stays
that multiple of the other's new size. A tensor with fixed
data (``value``) keeps its shape, attributes are kept. Relations this cannot keep (an attribute
naming a size, an output of twice an input's length) are caught by running the unmodified
operator on each derived case first: a case the original fails is not a valid check and is
dropped (:func:`ascendopt.evaluate.unseen_check.select_shapes`).

Derived cases never repeat a shape (tensors' keys, dtypes and shapes, and attributes) of the
operator's own cases or of each other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ascendopt.cases import Case, TensorSpec
from ascendopt.dtypes import CaseError, canonical_dtype
from ascendopt.evaluate.evaluator import case_elements

#: Dimensions smaller than this are taken as structural (channels, a complex pair, a broadcast
#: 1) and kept by ``ragged`` and ``half``; ``single`` sets them to 1 too.
STRUCTURAL_DIM = 8
#: Largest ratio between two tensors' sizes on one axis that a derived case keeps (a size 2, 3
#: or 4 times another stays that multiple of its new size).
MAX_RATIO = 4
#: Default bound on a derived case's elements (all inputs and outputs): a few seconds of
#: simulated run for a streaming kernel.
DEFAULT_MAX_ELEMENTS = 1 << 22
#: Default number of unseen shapes checked (after the original's filter).
DEFAULT_COUNT = 8
KINDS = ("ragged", "dtype", "single", "largest", "half")
#: Seed of the unseen shapes' inputs (shape j uses ``UNSEEN_SEED + j``): the original and every
#: candidate see the same data.
UNSEEN_SEED = 7_000_003


@dataclass(frozen=True)
class UnseenShape:
    """One derived case.

    Attributes:
        case: The case (its name says the base and the kind).
        kind: ``ragged``, ``single``, ``largest``, ``half`` or ``dtype``.
        base: Name of the case it was derived from.
        seed: Seed of its inputs.
        origin: The case it was derived from (``largest`` is derived again from it when the
            original's runs say it would take too long: :func:`ascendopt.evaluate.unseen_check.select_shapes`).
    """

    case: Case
    kind: str
    base: str
    seed: int = UNSEEN_SEED
    origin: Case | None = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        """``x float32[63, 2999], y float32[63, 2999]``: what the shape is, for reports."""
        return ", ".join(f"{t.key} {canonical_dtype(t.dtype)}{list(t.shape)}" for t in (*self.case.inputs,
                                                                                          *self.case.outputs))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.case.name, "kind": self.kind, "base": self.base, "shape": self.describe(),
                "attrs": json.loads(json.dumps(self.case.attrs, default=str))}


def signature(case: Case) -> str:
    """What makes two cases the same check: tensors (key, dtype, shape) and attributes."""
    tensors = [(t.key, canonical_dtype(t.dtype), list(t.shape)) for t in (*case.inputs, *case.outputs)]
    return json.dumps([tensors, case.attrs], sort_keys=True, default=str)


def _related(shapes: Sequence[tuple[int, ...]]) -> set[tuple[int, int]]:
    """Pairs ``(e, d)`` of sizes that two tensors have on the same axis (counted from the last)
    with ``d`` 2 to :data:`MAX_RATIO` times ``e`` (and ``e`` at least :data:`STRUCTURAL_DIM`):
    a concatenation, a split, a gated half."""
    out = set()
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            for x, y in zip(reversed(a), reversed(b)):
                e, d = min(x, y), max(x, y)
                if e >= STRUCTURAL_DIM and d % e == 0 and 2 <= d // e <= MAX_RATIO:
                    out.add((e, d))
    return out


def _size_map(shapes: Sequence[tuple[int, ...]], rule: Callable[[int], int]) -> dict[int, int]:
    """Old size -> new size: ``rule(d)``, except that a size related to a smaller one
    (:func:`_related`) stays the same multiple of its new size."""
    related = _related(shapes)
    out: dict[int, int] = {}
    for d in sorted({d for sh in shapes for d in sh}):
        parent = next((e for e in sorted(out, reverse=True) if (e, d) in related), None)
        out[d] = rule(d) if parent is None else d // parent * out[parent]
    return out


def _remap(case: Case, rule: Callable[[int], int], kind: str) -> Case:
    """The case with every dimension ``d`` of its tensors (those without fixed data) replaced by
    its new size (:func:`_size_map`)."""
    size = _size_map([t.shape for t in (*case.inputs, *case.outputs) if t.value is None], rule)

    def tensor(t: TensorSpec) -> TensorSpec:
        return t if t.value is not None else replace(t, shape=tuple(size[d] for d in t.shape))

    return replace(case, name=f"{case.name}__unseen_{kind}", inputs=[tensor(t) for t in case.inputs],
                   outputs=[tensor(t) for t in case.outputs])


def ragged(case: Case) -> Case:
    return _remap(case, lambda d: d if d < STRUCTURAL_DIM else (d - 1 if d % 2 == 0 else d - 2), "ragged")


def single(case: Case) -> Case:
    return _remap(case, lambda d: 1 if d > 0 else d, "single")


def half(case: Case) -> Case:
    return _remap(case, lambda d: d if d < STRUCTURAL_DIM else d // 2, "half")


def largest(case: Case, max_elements: int = DEFAULT_MAX_ELEMENTS) -> Case | None:
    """The case with its outermost dimension (first input with one of at least 2) multiplied by
    the largest ``k >= 2`` that keeps it within ``max_elements``; None when even ``k = 2`` does
    not fit or there is no such dimension."""
    outer = next((d for t in (*case.inputs, *case.outputs) if t.value is None for d in t.shape if d >= 2), None)
    if outer is None or case_elements(case) == 0:
        return None
    k = max_elements // case_elements(case)
    while k >= 2:
        grown = _remap(case, lambda d: d * k if d == outer else d, "largest")
        if case_elements(grown) <= max_elements:
            return grown
        k = k // 2 if k > 8 else k - 1
    return None


def declared_dtypes(op: Any) -> list[dict[str, str]]:
    """The dtype combinations the operator's OpDef declares: for position ``j`` of its
    ``DataType({...})`` lists, parameter name -> canonical dtype (parameters whose list is
    unknown or shorter are left out of that combination)."""
    from ascendopt.opdef_params import literal_params

    if op is None:
        return []
    params = []
    for rel in op.host_files():
        params = [p for p in literal_params(op.files[rel]) if p.role in ("input", "output") and p.dtypes]
        if params:
            break
    n = max((len(p.dtypes) for p in params), default=0)
    combos = []
    for j in range(n):
        combo = {}
        for p in params:
            if j < len(p.dtypes):
                try:
                    combo[p.name] = canonical_dtype(p.dtypes[j])
                except CaseError:
                    combo = {}
                    break
        if combo and combo not in combos:
            combos.append(combo)
    return combos


def _case_combo(case: Case) -> dict[str, str]:
    return {t.name: canonical_dtype(t.dtype) for t in (*case.inputs, *case.outputs)}


def dtype_variants(cases: Sequence[Case], bases: Sequence[Case], op: Any) -> list[Case]:
    """The base case (the largest) in every declared dtype combination no case uses (the
    combination must name a dtype for each of the case's tensors)."""
    used = [_case_combo(c) for c in cases]
    out = []
    for j, combo in enumerate(declared_dtypes(op)):
        for base in sorted(bases, key=case_elements, reverse=True):
            names = {t.name for t in (*base.inputs, *base.outputs)}
            if not names <= set(combo):
                continue
            want = {k: combo[k] for k in names}
            if want in used:
                break
            def retype(t: TensorSpec) -> TensorSpec:
                return replace(t, dtype=want[t.name])

            out.append(replace(base, name=f"{base.name}__unseen_dtype{j}", inputs=[retype(t) for t in base.inputs],
                               outputs=[retype(t) for t in base.outputs]))
            used.append(want)
            break
    return out


def base_cases(cases: Sequence[Case]) -> list[Case]:
    """The largest case of each dtype combination (what the search timed), in first-seen order."""
    best: dict[str, Case] = {}
    for c in cases:
        if c.expect != "success":
            continue
        k = json.dumps(sorted(_case_combo(c).items()))
        if k not in best or case_elements(c) > case_elements(best[k]):
            best[k] = c
    return list(best.values())


def generate(cases: Sequence[Case], op: Any = None, max_elements: int = DEFAULT_MAX_ELEMENTS) -> list[UnseenShape]:
    """Every derived case, in the order they are worth checking: one of each kind in turn
    (:data:`KINDS`), the ``j``-th size change going through the base cases from the ``j``-th on, so that the
    first few cover every kind and every dtype path. None repeats a case's shape or another
    derived one."""
    bases = base_cases(cases)
    make = {"ragged": ragged, "single": single, "half": half,
            "largest": lambda b: largest(b, max_elements)}
    lists: list[list[tuple[Case | None, str, Case]]] = []
    j = 0
    for kind in KINDS:
        if kind == "dtype":
            by_name = {b.name: b for b in bases}
            lists.append([(c, kind, by_name[c.name.split("__unseen_")[0]]) for c in dtype_variants(cases, bases, op)])
            continue
        turn = bases[j % len(bases):] + bases[:j % len(bases)] if bases else []
        j += 1
        lists.append([(make[kind](b), kind, b) for b in turn])
    seen = {signature(c) for c in cases}
    out: list[UnseenShape] = []
    for k in range(max((len(x) for x in lists), default=0)):
        for lst in lists:
            if k >= len(lst):
                continue
            case, kind, base = lst[k]
            if case is None or signature(case) in seen:
                continue
            seen.add(signature(case))
            out.append(UnseenShape(case, kind, base.name, UNSEEN_SEED + len(out), base))
    return out
