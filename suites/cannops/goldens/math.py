"""Our numpy goldens for cann-ops ``src/math`` operators (the repository's own goldens import
TensorFlow or PyTorch). Each is written from the operator's documented semantics: msopst
calls it with one dict per input (``value``, ``dtype``, ...), one per output, then attributes.
Results are computed in float64/float32 and cast to the output dtype by the caller."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    """A tensor's values as float64 (bfloat16/float16 widened)."""
    return np.asarray(t["value"]).astype(np.float64)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def abs_(x, y):
    return [np.abs(x["value"])]


def add(x, y, z=None):
    return [np.asarray(x["value"]) + np.asarray(y["value"])]


def sub(x, y, z=None):
    return [np.asarray(x["value"]) - np.asarray(y["value"])]


def addcmul(input_data, x1, x2, value, y):
    """input_data + value * x1 * x2."""
    if np.issubdtype(np.asarray(input_data["value"]).dtype, np.integer):
        v = np.asarray(value["value"]).reshape(-1)[0]
        return [input_data["value"] + v * x1["value"] * x2["value"]]
    return [_f(input_data) + _f(value).reshape(-1)[0] * _f(x1) * _f(x2)]


def arange(start, end, step, out):
    """start, start + step, ... below end (the output's length)."""
    s, st = np.asarray(start["value"]).reshape(-1)[0], np.asarray(step["value"]).reshape(-1)[0]
    n = int(np.prod(out["shape"]))
    return [s + st * np.arange(n)]


def clip_by_value(x, clip_value_min, clip_value_max, y):
    """max(min(x, clip_value_max), clip_value_min) (the lower bound wins when they cross)."""
    lo = np.asarray(clip_value_min["value"]).reshape(-1)[0]
    hi = np.asarray(clip_value_max["value"]).reshape(-1)[0]
    return [np.maximum(np.minimum(x["value"], hi), lo)]


def cos(x, y):
    return [np.cos(_f(x))]


def sin(x, y):
    return [np.sin(_f(x))]


def sqrt(x, y):
    return [np.sqrt(_f(x))]


def rsqrt(x, y):
    return [1.0 / np.sqrt(_f(x))]


def reciprocal(x, y):
    return [1.0 / _f(x)]


def cross(x1, x2, y, dim=1):
    """Vector cross product along ``dim`` (of length 3)."""
    a, b = np.asarray(x1["value"]), np.asarray(x2["value"])
    return [np.cross(a, b, axis=dim)]


def eye(y_in, y_out, *, num_rows=1, num_columns=-1, batch_shape=(), dtype=0):
    """Batches of identity matrices (num_rows x num_columns; num_columns <= 0: square). The
    operator's one tensor is both its input and its output (``y``)."""
    cols = num_columns if num_columns and num_columns > 0 else num_rows
    m = np.eye(num_rows, cols)
    return [np.broadcast_to(m, tuple(y_out["shape"]))]


def fast_gelu(x, y):
    """x * sigmoid(1.702 x), the fast GELU approximation."""
    v = _f(x)
    return [v * _sigmoid(1.702 * v)]


def fast_gelu_grad(dy, x, z):
    """dy * d/dx [x * sigmoid(1.702 x)]."""
    v = _f(x)
    s = _sigmoid(1.702 * v)
    return [_f(dy) * (s + 1.702 * v * s * (1.0 - s))]


def gelu_grad(dy, x, y, z):
    """dy * d/dx GELU(x), GELU in its tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    v = _f(x)
    c = np.sqrt(2.0 / np.pi)
    inner = c * (v + 0.044715 * v ** 3)
    t = np.tanh(inner)
    d = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * v * v)
    return [_f(dy) * d]


def lerp(start, end, weight, y):
    s = _f(start)
    return [s + _f(weight) * (_f(end) - s)]


def logical_or(x1, x2, y):
    return [np.logical_or(x1["value"], x2["value"])]


def logical_not(x, y):
    return [np.logical_not(x["value"])]


def spence(x, y):
    """Spence's integral (dilogarithm) for x >= 0, as scipy.special.spence defines it."""
    from scipy.special import spence as _spence

    return [_spence(_f(x))]


def swish(x, y, scale=1.0):
    """x * sigmoid(scale * x)."""
    v = _f(x)
    return [v * _sigmoid(scale * v)]


def tril(x, y, diagonal=0):
    return [np.tril(x["value"], diagonal)]


def triu(x, y, diagonal=0):
    return [np.triu(x["value"], diagonal)]


def xlogy(x1, x2, y):
    """x1 * log(x2), 0 where x1 == 0."""
    a, b = _f(x1), _f(x2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a * np.log(b)
    return [np.where(a == 0, 0.0, r)]


def greater_equal(x1, x2, y):
    return [np.asarray(x1["value"]) >= np.asarray(x2["value"])]


def less_equal(x1, x2, y):
    return [np.asarray(x1["value"]) <= np.asarray(x2["value"])]


def less(x1, x2, y):
    return [np.asarray(x1["value"]) < np.asarray(x2["value"])]


def equal(x1, x2, y):
    return [np.asarray(x1["value"]) == np.asarray(x2["value"])]


def neg(x, y):
    return [-np.asarray(x["value"])]


def tanh(x, y):
    return [np.tanh(_f(x))]


def is_finite(x, y):
    return [np.isfinite(_f(x))]


def is_inf(x, y):
    return [np.isinf(_f(x))]


def trunc(input_x, output_y):
    return [np.trunc(_f(input_x))]


def dawsn(x, y):
    """Dawson's integral, as scipy.special.dawsn defines it."""
    from scipy.special import dawsn as _dawsn

    return [_dawsn(_f(x))]
