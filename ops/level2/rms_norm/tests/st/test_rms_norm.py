#!/usr/bin/env python3
"""Golden for RmsNorm: y = x / sqrt(mean(x^2, -1) + epsilon) * gamma (float64 math)."""
import numpy as np


def _value(t):
    return t["value"] if isinstance(t, dict) else np.asarray(t)


def calc_expect_func(x, gamma, y, epsilon=1e-6):
    """Returns [y] in the input dtype."""
    x_value = _value(x)
    xd = x_value.astype(np.float64)
    gd = _value(gamma).astype(np.float64)
    rms = np.sqrt(np.mean(xd * xd, axis=-1, keepdims=True) + float(epsilon))
    out = xd / rms * gd
    return [out.astype(x_value.dtype)]
