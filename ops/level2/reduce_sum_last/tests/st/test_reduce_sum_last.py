#!/usr/bin/env python3
"""Golden for ReduceSumLast: y[r] = sum over the last axis of x (accumulated in float64)."""
import numpy as np


def _value(t):
    return t["value"] if isinstance(t, dict) else np.asarray(t)


def calc_expect_func(x, y):
    """Returns [y] with y = x.sum(-1) in the input dtype."""
    x_value = _value(x)
    out = x_value.astype(np.float64).sum(axis=-1)
    return [out.astype(x_value.dtype)]
