#!/usr/bin/env python3
"""Golden for MatmulCustom: c = a @ b with float16 inputs, computed in float32."""
import numpy as np


def _value(t):
    return t["value"] if isinstance(t, dict) else np.asarray(t)


def calc_expect_func(a, b, c):
    """Returns [c] with c = float32(a) @ float32(b) (float64 accumulation, rounded to float32)."""
    av = _value(a).astype(np.float64)
    bv = _value(b).astype(np.float64)
    return [(av @ bv).astype(np.float32)]
