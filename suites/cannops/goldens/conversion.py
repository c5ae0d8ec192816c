"""Our numpy goldens for cann-ops ``src/conversion`` operators, written from each operator's
README / docs and OpDef (msopst calling convention)."""

from __future__ import annotations

import numpy as np


def _pad_index(n: int, before: int, after: int) -> np.ndarray:
    """For each position of a circularly padded axis, the source position it copies."""
    return (np.arange(-before, n + after)) % n


def circular_pad(x, paddings, y):
    """Circular (wrap-around) padding of the last len(paddings) / 2 axes; paddings lists
    (before, after) pairs starting from the last axis, as torch's pad does."""
    v = np.asarray(x["value"])
    p = np.asarray(paddings["value"]).astype(np.int64).reshape(-1)
    out = v
    for k in range(len(p) // 2):
        ax = v.ndim - 1 - k
        out = np.take(out, _pad_index(v.shape[ax], int(p[2 * k]), int(p[2 * k + 1])), axis=ax)
    return [out]


def circular_pad_grad(x, paddings, y):
    """Gradient of circular_pad: every element of the padded gradient x is added back onto the
    input position it was copied from."""
    g = np.asarray(x["value"]).astype(np.float64)
    p = np.asarray(paddings["value"]).astype(np.int64).reshape(-1)
    out = g
    for k in range(len(p) // 2):
        ax = g.ndim - 1 - k
        n = out.shape[ax] - int(p[2 * k]) - int(p[2 * k + 1])
        src = _pad_index(n, int(p[2 * k]), int(p[2 * k + 1]))
        moved = np.moveaxis(out, ax, 0)
        acc = np.zeros((n,) + moved.shape[1:])
        np.add.at(acc, src, moved)
        out = np.moveaxis(acc, 0, ax)
    return [out]
