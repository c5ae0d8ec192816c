#!/usr/bin/env python3
"""Golden for LayerNormCustom: (x - mean) / sqrt(var + epsilon) * gamma + beta (float64 math)."""
import numpy as np


def _value(t):
    return t["value"] if isinstance(t, dict) else np.asarray(t)


def calc_expect_func(x, gamma, beta, y, epsilon=1e-5):
    """Returns [y] in the input dtype; var is the biased variance over the last axis."""
    x_value = _value(x)
    xd = x_value.astype(np.float64)
    mean = xd.mean(axis=-1, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=-1, keepdims=True)
    out = (xd - mean) / np.sqrt(var + float(epsilon)) * _value(gamma).astype(np.float64) \
        + _value(beta).astype(np.float64)
    return [out.astype(x_value.dtype)]
