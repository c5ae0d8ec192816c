"""compare_output gives exactly compare's Comparison (flags, errors, ratio, text): in one pass
for bit-identical outputs, in pieces for large ones, and by compare itself otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from ascendopt.cases import compare
from ascendopt.evaluate import outputs
from ascendopt.evaluate.outputs import compare_output

DTYPES = [("float16", np.float16), ("float32", np.float32), ("double", np.float64), ("int32", np.int32),
          ("int8", np.int8), ("uint8", np.uint8), ("int64", np.int64), ("bool", np.bool_)]


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(outputs, "CHUNK", 64)  # several pieces on small arrays


def _array(npdt, shape=(37, 11), seed=0):
    x = np.random.default_rng(seed).standard_normal(shape) * 100
    return (x > 0) if npdt is np.bool_ else x.astype(npdt)


def _same(x, y, name, **tol):
    got, want = compare_output(x, y, name, **tol), compare(x, y, name, **tol)
    assert got == want, (got, want)


@pytest.mark.parametrize("name, npdt", DTYPES)
@pytest.mark.parametrize("tol", [{}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 0.5, "atol": 2.0}])
def test_equal_outputs(name, npdt, tol):
    a = _array(npdt)
    if a.dtype.kind == "f":
        a.flat[3], a.flat[7], a.flat[9] = np.inf, -np.inf, -0.0
    _same(a, a.copy(), name, **tol)


@pytest.mark.parametrize("name, npdt", DTYPES)
@pytest.mark.parametrize("n_bad", [0, 1, 3, 40])
def test_outputs_with_mismatches_in_pieces(name, npdt, n_bad):
    rng = np.random.default_rng(n_bad)
    e = _array(npdt, (9, 5, 23))
    a = e.copy()
    if a.dtype.kind == "f":  # within tolerance everywhere, then some elements off
        a = (e.astype(np.float64) * (1 + 1e-5)).astype(npdt)
    flat = a.reshape(-1)
    for i in rng.choice(flat.size, n_bad, replace=False):
        flat[i] = (not flat[i]) if npdt is np.bool_ else flat[i] + np.asarray(7, dtype=npdt)
    _same(a, e, name)
    _same(a, e, name, rtol=0.0, atol=0.0)


@pytest.mark.parametrize("name, npdt", DTYPES[:3])
def test_specials_mixed_dtypes_and_fallbacks(name, npdt):
    e = _array(npdt, (40, 13))
    a = e.copy()
    a.flat[[5, 300]] = np.nan  # NaN where the golden has a number: a mismatch
    e2 = e.copy()
    e2.flat[[5, 300]] = np.nan
    a2 = e2.copy()  # NaN == NaN passes in compare (not bit-equal for array_equal)
    a3 = e.copy()
    a3.flat[[17, 480]] = [np.inf, -np.inf]  # inf where the golden is finite
    for x, y in [(a, e), (a2, e2), (a3, e), (e, e.astype(np.float64)), (e.astype(np.float64) + 1e-9, e),
                 (e, e[:-1]), (e[:1], e[:1].copy()), (e[:0], e[:0].copy())]:
        _same(x, y, name)
