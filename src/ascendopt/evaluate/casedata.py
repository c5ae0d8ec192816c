"""A case's seeded inputs and their golden outputs, kept across candidates.

Drawing a case's inputs and computing its golden depend on the case and the seed only, never
on the candidate: two candidates checked with the same seed would draw the same arrays and get
the same expected outputs. With the evaluator's input pool (:attr:`EvalConfig.input_pool`,
:meth:`Evaluator.seed_for`) candidates of one operator share a few seeds, so these are drawn
and computed once per (case, seed) and kept here: on a 4 M-element case that is most of an
evaluation's driver time (the golden alone is about half a second).

Entries are read-only (a kernel run or a comparison cannot change them), least recently used
out beyond ``limit_bytes``; two threads asking the same entry at once compute it once. A
failure (:class:`~ascendopt.dtypes.CaseError`: bad input spec, golden error or timeout) is
never kept: the next ask tries again. Evaluators share one per process (:func:`shared`: the
pairs of a bench run make an evaluator each, with the same seeds); a pickled one is, where it
is unpickled, that process's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from ascendopt.cases import Case, make_inputs
from ascendopt.cases.golden_worker import golden_worker


def _file_hash(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        return "missing"


def _inputs_fingerprint(case: Case) -> list[tuple]:
    """What about a case's inputs decides their generated values (with the seed)."""
    return [(t.key, t.dtype, list(t.shape), t.format, t.distribution, list(t.value_range),
             None if t.value is None else hashlib.sha256(repr(t.value).encode()).hexdigest()[:16])
            for t in case.inputs]


def case_fingerprint(case: Case) -> dict[str, Any]:
    """What about a case affects an evaluation (shapes, dtypes, ranges, attrs, golden code)."""
    golden = case.golden.rpartition(":") if case.golden else None
    return {
        "name": case.name,
        "inputs": _inputs_fingerprint(case),
        "outputs": [(t.key, t.dtype, list(t.shape), t.format) for t in case.outputs],
        "attrs": json.loads(json.dumps(case.attrs, default=str)),
        "golden": None if golden is None else (golden[2], _file_hash(golden[0])),
    }


#: Default memory kept (inputs and goldens together).
DEFAULT_LIMIT_BYTES = 512 << 20


def _frozen(arrays: Any) -> Any:
    """Marks every array (also inside lists) read-only; returns its argument."""
    for a in arrays.values() if isinstance(arrays, dict) else arrays:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
        elif isinstance(a, (list, tuple)):
            _frozen(a)
    return arrays


def _nbytes(arrays: Any) -> int:
    items = arrays.values() if isinstance(arrays, dict) else arrays or ()
    return sum(a.nbytes if isinstance(a, np.ndarray) else _nbytes(a) if isinstance(a, (list, tuple)) else 0
               for a in items)


class CaseData:
    """``(make_inputs(case, seed), golden of them)`` by (case fingerprint, seed), kept."""

    def __init__(self, limit_bytes: int = DEFAULT_LIMIT_BYTES):
        self.limit_bytes = limit_bytes
        self._items: OrderedDict[tuple[str, int], tuple[dict[str, np.ndarray], list | None]] = OrderedDict()
        self._sizes: dict[tuple[str, int], int] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, int], threading.Lock] = {}
        self.hits = self.misses = 0

    @staticmethod
    def key(case: Case, seed: int) -> tuple[str, int]:
        """What decides the arrays: everything about the case an evaluation's config key covers
        (shapes, dtypes, value ranges, attributes, golden function and file hash), and the seed."""
        return json.dumps(case_fingerprint(case), sort_keys=True, default=str), seed

    def get(self, case: Case, seed: int) -> tuple[dict[str, np.ndarray], list | None]:
        """The case's inputs for ``seed`` and its golden outputs for them (None when the case
        has no golden), as :func:`~ascendopt.evaluate.check.check_case` computes them.

        Raises:
            CaseError: Drawing the inputs or the golden failed (nothing is kept).
        """
        key = self.key(case, seed)
        with self._lock:
            hit = self._hit(key)
            if hit is not None:
                return hit
            gate = self._pending.setdefault(key, threading.Lock())
        with gate:  # one computation per key; the others wait for it, then hit
            with self._lock:
                hit = self._hit(key)
                if hit is not None:
                    return hit
                self.misses += 1
            try:
                inputs = _frozen(make_inputs(case, seed))
                expected = _frozen(golden_worker().run(case.golden, case, inputs)) if case.golden else None
                self._keep(key, (inputs, expected))
                return inputs, expected
            finally:
                with self._lock:
                    self._pending.pop(key, None)

    def _hit(self, key: tuple[str, int]) -> tuple[dict[str, np.ndarray], list | None] | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
            self.hits += 1
        return item

    def _keep(self, key: tuple[str, int], item: tuple[dict[str, np.ndarray], list | None]) -> None:
        size = _nbytes(item[0]) + _nbytes(item[1] or ())
        with self._lock:
            if size > self.limit_bytes or key in self._items:
                return
            self._items[key], self._sizes[key] = item, size
            self._bytes += size
            while self._bytes > self.limit_bytes:
                old, _ = self._items.popitem(last=False)
                self._bytes -= self._sizes.pop(old)

    def __len__(self) -> int:
        return len(self._items)

    def __reduce__(self) -> tuple:
        return shared, ()


@functools.cache
def shared() -> CaseData:
    """This process's :class:`CaseData` (made on first use)."""
    return CaseData()
