"""Checking a run's outputs against the golden: :func:`ascendopt.cases.compare`, the same
answer, cheaper on large outputs.

``compare`` works on whole arrays: about fifteen float64 temporaries the size of the output.
On a multi-million-element output, allocating and faulting in those (hundreds of MB) costs
more than the arithmetic: measured on this 2-core machine, 1.8 s for a 4 M-element float32
output against 0.08 s in 64 K-element pieces. Every evaluation compares its largest cases
twice (correctness and timed run), so this was the largest single share of a Stage II
evaluation.

:func:`compare_output` gives exactly what ``compare`` gives (the same
:class:`~ascendopt.cases.compare.Comparison`: flags, float errors, ratio, text), because each
element is computed by the same code and only maxima and counts are combined:

* an output equal to the golden bit for bit (same shape and dtype, no NaN) is checked in one
  pass: every error is 0;
* a large output is compared in pieces of :data:`CHUNK` elements (``compare`` on each), and
  the pieces' maxima, mismatch counts and first mismatch are combined into the whole's.

Anything else (complex outputs, shape or size mismatches, small outputs) goes to ``compare``
itself. A test holds the two equal on passing, failing, NaN/inf and mixed-dtype outputs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np

from ascendopt.cases import compare
from ascendopt.cases.compare import TOLERANCES, Comparison
from ascendopt.dtypes import dtype_info

#: Elements per piece (small enough for the temporaries to stay in cache).
CHUNK = 1 << 16
_FIRST = re.compile(r"; first mismatch at \((\d+),\): ")


def compare_output(actual: Any, expected: Any, dtype: str, rtol: float | None = None,
                   atol: float | None = None) -> Comparison:
    """``compare(actual, expected, dtype, rtol=rtol, atol=atol)``, computed cheaply (see the
    module docstring)."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape or a.size <= 1 or a.dtype.kind not in "biuf" or e.dtype.kind not in "biuf":
        return compare(actual, expected, dtype, rtol=rtol, atol=atol)
    if a.dtype == e.dtype and np.array_equal(a, e):
        one = compare(a.reshape(-1)[:1], e.reshape(-1)[:1], dtype, rtol=rtol, atol=atol)
        head = "passed: 0/1 elements "
        if one.passed and one.message.startswith(head) and one.max_abs_err == 0 and one.max_rel_err == 0:
            return replace(one, message=f"passed: 0/{a.size} elements " + one.message[len(head):])
    if a.size <= CHUNK:
        return compare(actual, expected, dtype, rtol=rtol, atol=atol)
    return _chunked(a, e, dtype, rtol, atol)


def _chunked(a: np.ndarray, e: np.ndarray, dtype: str, rtol: float | None, atol: float | None) -> Comparison:
    tol = TOLERANCES[dtype_info(dtype).name]
    rtol = tol.rtol if rtol is None else rtol
    atol = tol.atol if atol is None else atol
    ratio_ok = tol.max_mismatch_ratio
    fa, fe = a.reshape(-1), e.reshape(-1)
    n_bad, max_abs, max_rel, first = 0, 0.0, 0.0, None
    for start in range(0, a.size, CHUNK):
        part = compare(fa[start:start + CHUNK], fe[start:start + CHUNK], dtype, rtol=rtol, atol=atol)
        size = min(CHUNK, a.size - start)
        bad = round(part.mismatch_ratio * size)  # exact: the ratio is bad / size
        if bad and first is None:
            m = _FIRST.search(part.message)
            if m is None:  # not the text this was written against: let compare say it
                return compare(a, e, dtype, rtol=rtol, atol=atol)
            first = start + int(m.group(1))
        n_bad += bad
        max_abs, max_rel = max(max_abs, part.max_abs_err), max(max_rel, part.max_rel_err)
    ratio = n_bad / a.size
    passed = ratio <= ratio_ok
    stats = (f"{n_bad}/{a.size} elements ({ratio:.3%}) outside atol={atol:g} + rtol={rtol:g}"
             f"*|expected| (allowed {ratio_ok:.3%}); max_abs_err={max_abs:.4g}, "
             f"max_rel_err={max_rel:.4g}")
    if first is not None:
        idx = tuple(int(i) for i in np.unravel_index(first, a.shape))
        stats += f"; first mismatch at {idx}: actual={a[idx]!r}, expected={e[idx]!r}"
    return Comparison(passed, max_abs, max_rel, ratio, ("passed: " if passed else "failed: ") + stats)
