#!/usr/bin/env python3
"""Golden for LogSoftmaxLast: numerically stable log-softmax over the last axis (float64 math)."""
import numpy as np


def _value(t):
    return t["value"] if isinstance(t, dict) else np.asarray(t)


def calc_expect_func(x, y):
    """Returns [y] with y = x - max - log(sum(exp(x - max))) in the input dtype."""
    x_value = _value(x)
    xd = x_value.astype(np.float64)
    shifted = xd - xd.max(axis=-1, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return [out.astype(x_value.dtype)]
