"""Our numpy goldens for cann-ops ``src/index`` operators, written from each operator's README /
docs and OpDef (msopst calling convention: one dict per input, one per output, attributes)."""

from __future__ import annotations

import numpy as np


def _v(t: dict) -> np.ndarray:
    return np.asarray(t["value"])


def _f(t: dict) -> np.ndarray:
    return _v(t).astype(np.float64)


def feeds_repeat(feeds, feeds_repeat_times, y, output_feeds_size=0):
    """Row i of feeds (axis 0) repeated feeds_repeat_times[i] times, then zero rows up to
    output_feeds_size rows."""
    rep = np.repeat(_f(feeds), _v(feeds_repeat_times).astype(np.int64).reshape(-1), axis=0)
    out = np.zeros((int(output_feeds_size),) + rep.shape[1:])
    out[: rep.shape[0]] = rep[: int(output_feeds_size)]
    return [out]


def top_k_v3(x, k, values, indices, sorted=True, dim=-1, largest=True):  # noqa: A002 - the attr's name
    """The k largest (smallest) values along ``dim``, in order, and their indices (the lower index
    first among equal values)."""
    v = _f(x)
    kk = int(_v(k).reshape(-1)[0])
    d = int(dim) % v.ndim
    order = np.argsort(-v if largest else v, axis=d, kind="stable")
    order = np.take(order, np.arange(kk), axis=d)
    return [np.take_along_axis(v, order, axis=d), order]


def gather_v3(x, indices, axis, y, batchDims=0, negativeIndexSupport=False):  # noqa: N803 - attr names
    """Slices of x along ``axis`` (a one-element tensor) picked by indices (negative: from the
    end)."""
    v = _v(x)
    ax = int(_v(axis).reshape(-1)[0]) % v.ndim
    idx = _v(indices).astype(np.int64)
    idx = np.where(idx < 0, idx + v.shape[ax], idx)
    return [np.take(v, idx, axis=ax)]


def inplace_index_add_with_sorted(var, value, sorted_indices, pos, alpha=None, var_out=None, axis=0):
    """var with alpha * value's slice pos[i] (along ``axis``) added at index sorted_indices[i]
    (index_add with the indices given sorted and their original positions in pos)."""
    out = _f(var).copy()
    val = _f(value)
    a = float(_v(alpha).reshape(-1)[0]) if alpha is not None and "value" in alpha else 1.0
    ax = int(axis) % out.ndim
    for i, p in zip(_v(sorted_indices).reshape(-1), _v(pos).reshape(-1)):
        tgt = [slice(None)] * out.ndim
        src = [slice(None)] * out.ndim
        tgt[ax], src[ax] = int(i), int(p)
        out[tuple(tgt)] += a * val[tuple(src)]
    if np.issubdtype(_v(var).dtype, np.integer):
        out = np.trunc(out)
    return [out]


def scatter_elements_v2(var, indices, updates, var_out, axis=0, reduction="none"):
    """torch scatter: for every element (i, j, ...) of indices, var at that position with axis
    coordinate replaced by indices[i, j, ...] receives updates[i, j, ...] ('none': replaced,
    'add': added, 'mul': multiplied)."""
    out = _f(var).copy()
    idx = _v(indices).astype(np.int64)
    ax = int(axis) % out.ndim
    pos = list(np.indices(idx.shape))
    pos[ax] = idx
    src = _f(updates)[tuple(np.indices(idx.shape))]
    if reduction == "add":
        np.add.at(out, tuple(pos), src)
    elif reduction == "mul":
        np.multiply.at(out, tuple(pos), src)
    else:
        out[tuple(pos)] = src
    return [out]


def embedding_dense_grad_v2(grad, sort_indices, pos_idx, y, num_weights=0, padding_idx=-1, scale_grad_by_freq=False):
    """Embedding backward: row r of y [num_weights, D] sums the grad rows pos_idx[i] whose
    sort_indices[i] == r; the padding_idx row stays 0; scale_grad_by_freq divides each row by
    how often its index occurs."""
    g = _f(grad).reshape(-1, int(y["shape"][-1]))
    out = np.zeros((int(num_weights), g.shape[1]))
    idx = _v(sort_indices).astype(np.int64).reshape(-1)
    pos = _v(pos_idx).astype(np.int64).reshape(-1)
    np.add.at(out, idx, g[pos])
    if scale_grad_by_freq:
        cnt = np.bincount(idx, minlength=int(num_weights)).astype(np.float64)
        out = out / np.maximum(cnt, 1.0)[:, None]
    if 0 <= int(padding_idx) < out.shape[0]:
        out[int(padding_idx)] = 0.0
    return [out]
