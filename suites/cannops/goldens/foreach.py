"""Our numpy goldens for cann-ops ``src/foreach`` operators: each applies one elementwise
function (or a norm) to every tensor of a list. Written from the operators' aclnn docs and
OpDefs: list parameters (``x``, ``x1``...) arrive as lists of tensor dicts and each list output
is returned as a list of arrays; scalar inputs are one-element tensors, ``scalars`` holds one
value per tensor of the list. Results are computed in float64 and cast by the caller."""

from __future__ import annotations

import math

import numpy as np


def _f(t: dict) -> np.ndarray:
    """A tensor's values as float64 (bfloat16/float16 widened)."""
    return np.asarray(t["value"]).astype(np.float64)


def _s(t: dict, i: int = 0) -> float:
    """Element i of a scalar(s) tensor."""
    return float(np.asarray(t["value"]).reshape(-1)[i])


def _each(fn, xs: list[dict]) -> list[list[np.ndarray]]:
    return [[fn(_f(t)) for t in xs]]


# ------------------------------------------------------------------------------ unary

_erf = np.vectorize(math.erf, otypes=[np.float64])


def abs_(x, y):
    return _each(np.abs, x)


def acos(x, y):
    return _each(np.arccos, x)


def asin(x, y):
    return _each(np.arcsin, x)


def atan(x, y):
    return _each(np.arctan, x)


def cos(x, y):
    return _each(np.cos, x)


def cosh(x, y):
    return _each(np.cosh, x)


def erf(x, y):
    return _each(_erf, x)


def erfc(x, y):
    return _each(lambda v: 1.0 - _erf(v), x)


def exp(x, y):
    return _each(np.exp, x)


def expm1(x, y):
    return _each(np.expm1, x)


def log(x, y):
    return _each(np.log, x)


def log10(x, y):
    return _each(np.log10, x)


def log1p(x, y):
    return _each(np.log1p, x)


def log2(x, y):
    return _each(np.log2, x)


def neg(x, y):
    return _each(np.negative, x)


def reciprocal(x, y):
    return _each(lambda v: 1.0 / v, x)


def sigmoid(x, y):
    return _each(lambda v: 0.5 * (1.0 + np.tanh(0.5 * v)), x)


def sign(x, y):
    return _each(np.sign, x)


def sin(x, y):
    return _each(np.sin, x)


def sinh(x, y):
    return _each(np.sinh, x)


def sqrt(x, y):
    return _each(np.sqrt, x)


def tan(x, y):
    return _each(np.tan, x)


def tanh(x, y):
    return _each(np.tanh, x)


def copy(x, y):
    return [[np.asarray(t["value"]) for t in x]]


# ----------------------------------------------------------------------- with a scalar


def add_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: v + s, x)


def sub_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: v - s, x)


def mul_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: v * s, x)


def div_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: v / s, x)


def maximum_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: np.maximum(v, s), x)


def minimum_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: np.minimum(v, s), x)


def pow_scalar(x, scalar, y):
    s = _s(scalar)
    return _each(lambda v: np.power(v, s), x)


def pow_scalar_and_tensor(scalar, x, y):
    s = _s(scalar)
    return _each(lambda v: np.power(s, v), x)


def add_scalar_list(x, scalars, y):
    return [[_f(t) + _s(scalars, i) for i, t in enumerate(x)]]


def div_scalar_list(x, scalars, y):
    return [[_f(t) / _s(scalars, i) for i, t in enumerate(x)]]


def round_off_number(x, roundMode, y):  # noqa: N803 - the OpDef's name
    mode = int(_s(roundMode))
    fns = {2: np.floor, 3: np.ceil, 4: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5), 5: np.trunc}
    return _each(fns.get(mode, np.rint), x)


def norm(x, scalar, y):
    p = _s(scalar)
    if math.isinf(p):
        return _each(lambda v: np.max(np.abs(v)), x)
    if p == 0:
        return _each(lambda v: np.count_nonzero(v).astype(np.float64), x)
    return _each(lambda v: np.sum(np.abs(v) ** p) ** (1.0 / p), x)


# ------------------------------------------------------------------------- two lists


def div_list(x1, x2, y):
    return [[_f(a) / _f(b) for a, b in zip(x1, x2)]]


def mul_list(x1, x2, y):
    return [[_f(a) * _f(b) for a, b in zip(x1, x2)]]


def add_list(x1, x2, alpha, y):
    s = _s(alpha)
    return [[_f(a) + s * _f(b) for a, b in zip(x1, x2)]]


def lerp_scalar(x1, x2, weight, y):
    w = _s(weight)
    return [[_f(a) + w * (_f(b) - _f(a)) for a, b in zip(x1, x2)]]


# ----------------------------------------------------------------------- three lists


def addcdiv_scalar(x1, x2, x3, scalar, y):
    return [[_f(a) + _s(scalar, 0) * np.divide(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]


def addcmul_scalar(x1, x2, x3, scalar, y):
    return [[_f(a) + _s(scalar, 0) * np.multiply(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]


def addcdiv_list(x1, x2, x3, scalars, y):
    return [[_f(a) + _s(scalars, i) * np.divide(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]


def addcmul_list(x1, x2, x3, scalars, y):
    return [[_f(a) + _s(scalars, i) * np.multiply(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]


def addcdiv_scalar_list(x1, x2, x3, scalars, y):
    return [[_f(a) + _s(scalars, i) * np.divide(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]


def addcmul_scalar_list(x1, x2, x3, scalars, y):
    return [[_f(a) + _s(scalars, i) * np.multiply(_f(b), _f(c)) for i, (a, b, c) in enumerate(zip(x1, x2, x3))]]



# ------------------------------------------------------------------- updated in place


def zero_inplace(x, x_out):
    return [[np.zeros_like(_f(t)) for t in x]]


def non_finite_check_and_unscale(scaled_grads, found_inf, inv_scale, grads_out, found_out):
    """The grads times inv_scale, in place; found_inf set to 1 when any grad is inf or NaN
    (else left as it was)."""
    grads = [_f(t) for t in scaled_grads]
    bad = any(not np.all(np.isfinite(g)) for g in grads)
    return [[g * _s(inv_scale) for g in grads], np.array([1.0 if bad else _s(found_inf)])]
