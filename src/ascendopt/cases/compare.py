"""Output comparison under CANN's per-dtype precision policy."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ascendopt.dtypes import dtype_info

@dataclass(frozen=True)
class Tolerance:
    """Per-dtype acceptance rule.

    An element passes if ``|a - e| <= atol + rtol * |e|``; an output passes if the share
    of failing elements is at most ``max_mismatch_ratio``.
    """

    rtol: float
    atol: float
    max_mismatch_ratio: float


_EXACT = Tolerance(0.0, 0.0, 0.0)

# CANN precision policy for operator ST results, as documented by Huawei:
# - float16: "dual thousandth" (双千分之一): relative/absolute error threshold 1e-3 and at
#   most 0.1 % of elements beyond it (cann-ops verify_result.py scripts: LOSS = 1e-3,
#   "fp16 要求绝对误差和相对误差均不超过千分之一"; mindstudio-probe api_accuracy_checker.md
#   defines 双千 as "share of elements with rel. error > 1/1000 below 1/1000").
# - float32 / double: "dual ten-thousandth" (双万分之一): threshold 1e-4, at most 0.01 %
#   (cann-ops fp32 verify_result.py: LOSS = 1e-4; msprobe applies 双千/双万 to fp32/fp64).
# - bfloat16: msprobe grades fp16/bf16 by 双百 (rel. error 1e-2 in < 1 %: error) and 双千
#   (warning), and by ULP: |ULP error| > 1 in < 0.1 % of elements. bf16 keeps 8 significand
#   bits, so one ULP is up to 2^-7 ~ 7.8e-3 relative and 双千 would reject results one
#   rounding step apart. We use rtol = atol = 2^-7 (a 1-ULP difference always passes, as
#   1e-3 does for fp16's 2^-10 ULP) and the ULP rule's 0.1 % ratio.
# - integers and bool: exact (msprobe's binary-consistency rule, error ratio 0).
# Our per-element rule atol + rtol*|e| is slightly looser than CANN's "abs <= t or rel <= t"
# (at most 2x near |e| ~ 1) and takes the relative error against |expected|.
TOLERANCES: dict[str, Tolerance] = {
    "float16": Tolerance(1e-3, 1e-3, 1e-3),
    "float32": Tolerance(1e-4, 1e-4, 1e-4),
    "double": Tolerance(1e-4, 1e-4, 1e-4),
    "bfloat16": Tolerance(2.0**-7, 2.0**-7, 1e-3),
    "complex64": Tolerance(1e-4, 1e-4, 1e-4),
    "complex128": Tolerance(1e-4, 1e-4, 1e-4),
    **{name: _EXACT for name in (
        "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool")},
}

# ------------------------------------------------------------------------ comparison

@dataclass(frozen=True)
class Comparison:
    """Result of comparing one output against its expected values.

    Attributes:
        passed: Whether the mismatch ratio is within the allowed ratio.
        max_abs_err: Largest ``|actual - expected|`` (``inf`` for NaN/inf mismatches).
        max_rel_err: Largest ``|actual - expected| / max(|expected|, tiny)``.
        mismatch_ratio: Share of elements outside tolerance.
        message: Human-readable summary, including the first mismatch.
    """

    passed: bool
    max_abs_err: float
    max_rel_err: float
    mismatch_ratio: float
    message: str


_TINY = float(np.finfo(np.float32).tiny)


def _float_errors(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> tuple[np.ndarray, np.ndarray]:
    """Absolute errors and mismatch mask; NaN==NaN and equal infinities match."""
    special_ok = (np.isnan(a) & np.isnan(e)) | (np.isinf(a) & np.isinf(e) & (a == e))
    finite = np.isfinite(a) & np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - e)
        within = finite & (diff <= atol + rtol * np.abs(e))
    abs_err = np.where(special_ok, 0.0, np.where(finite, diff, np.inf))
    return abs_err, ~(special_ok | within)


def compare(actual: Any, expected: Any, dtype: str, rtol: float | None = None,
            atol: float | None = None, max_mismatch_ratio: float | None = None) -> Comparison:
    """Compare an output with its expected values under the dtype's precision policy.

    Args:
        actual: Output of the operator.
        expected: Golden output.
        dtype: msopst type name selecting the default :data:`TOLERANCES` entry.
        rtol: Relative tolerance overriding the default.
        atol: Absolute tolerance overriding the default.
        max_mismatch_ratio: Allowed share of failing elements overriding the default.

    Returns:
        A :class:`Comparison`; a shape mismatch is a failed comparison, not an exception.
    """
    tol = TOLERANCES[dtype_info(dtype).name]
    rtol = tol.rtol if rtol is None else rtol
    atol = tol.atol if atol is None else atol
    ratio_ok = tol.max_mismatch_ratio if max_mismatch_ratio is None else max_mismatch_ratio
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype.kind == "c" or e.dtype.kind == "c":  # compare real and imaginary parts elementwise
        a, e = (np.stack([np.real(x), np.imag(x)], axis=-1) if x.dtype.kind == "c" else x for x in (a, e))
    if a.shape != e.shape:
        return Comparison(False, math.inf, math.inf, 1.0,
                          f"shape mismatch: actual {a.shape} vs expected {e.shape}")
    if a.size == 0:
        return Comparison(True, 0.0, 0.0, 0.0, "passed: empty output")
    af, ef = a.astype(np.float64), e.astype(np.float64)
    if rtol == 0 and atol == 0 and a.dtype.kind in "biu" and e.dtype.kind in "biu":
        bad = a != e  # exact, without float64 rounding of large 64-bit values
        abs_err = np.where(bad, np.abs(af - ef), 0.0)
    else:
        abs_err, bad = _float_errors(af, ef, rtol, atol)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        denom = np.where(np.isfinite(ef), np.maximum(np.abs(ef), _TINY), 1.0)
        rel_err = abs_err / denom
    n_bad = int(np.count_nonzero(bad))
    ratio = n_bad / a.size
    passed = ratio <= ratio_ok
    stats = (f"{n_bad}/{a.size} elements ({ratio:.3%}) outside atol={atol:g} + rtol={rtol:g}"
             f"*|expected| (allowed {ratio_ok:.3%}); max_abs_err={abs_err.max():.4g}, "
             f"max_rel_err={rel_err.max():.4g}")
    if n_bad:
        idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), a.shape))
        stats += f"; first mismatch at {idx}: actual={a[idx]!r}, expected={e[idx]!r}"
    return Comparison(passed, float(abs_err.max()), float(rel_err.max()), ratio,
                      ("passed: " if passed else "failed: ") + stats)
