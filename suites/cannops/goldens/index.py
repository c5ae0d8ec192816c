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
    """Embedding backward: row r of y [num_weights, D] sums the grad rows of the indices equal to r;
    the padding_idx row stays 0; scale_grad_by_freq divides each row by how often its index occurs.
    What the two index inputs hold follows the aclnn layer (aclnn_embedding_dense_backward.cpp):
    for D <= 512 and num_weights <= 2^24 (not deterministic) both are the indices as given, in
    grad-row order; otherwise sort_indices are the indices sorted and pos_idx the grad row of each."""
    g = _f(grad).reshape(-1, int(y["shape"][-1]))
    out = np.zeros((int(num_weights), g.shape[1]))
    idx = _v(sort_indices).astype(np.int64).reshape(-1)
    small_dim = g.shape[1] <= 512 and int(num_weights) <= 1 << 24
    pos = np.arange(idx.size) if small_dim else _v(pos_idx).astype(np.int64).reshape(-1)
    np.add.at(out, idx, g[pos])
    if scale_grad_by_freq:
        cnt = np.bincount(idx, minlength=int(num_weights)).astype(np.float64)
        out = out / np.maximum(cnt, 1.0)[:, None]
    if 0 <= int(padding_idx) < out.shape[0]:
        out[int(padding_idx)] = 0.0
    return [out]


def _q8(v):
    return np.clip(np.rint(v), -128, 127)


def dynamic_quant_update_scatter(var, var_scale, indices, updates, smooth_scales=None, var_out=None,
                                 var_scale_out=None, reduce="update", axis=-2):
    """updates (times smooth_scales when given) quantised to int8 per last-dim row (scale = max|.| /
    127, q = round(u / scale)), then written into var at positions indices[b] ... along ``axis``
    for each batch b (the first dim); their scales go to the same rows of var_scale (var's shape
    without its last dim). Outputs var and var_scale (updated in place)."""
    out = np.asarray(var["value"]).astype(np.float64).copy()
    sc_out = _f(var_scale).copy().reshape(out.shape[:-1])
    u = _f(updates)
    sm = smooth_scales.get("value") if isinstance(smooth_scales, dict) else None
    if sm is not None:
        u = u * np.asarray(sm).astype(np.float64)
    s = np.abs(u).max(axis=-1, keepdims=True) / 127.0
    q = _q8(u / np.where(s == 0, 1.0, s))
    ax = int(axis) % out.ndim
    idx = _v(indices).astype(np.int64).reshape(len(u), -1)[:, -1]
    for b in range(u.shape[0]):
        n = u.shape[ax]
        sl = [slice(None)] * out.ndim
        sl[0] = b
        sl[ax] = slice(int(idx[b]), int(idx[b]) + n)
        out[tuple(sl)] = q[b]
        sc_out[tuple(sl[:-1])] = s[b][..., 0]
    return [out, sc_out.reshape(tuple(var_scale_out["shape"])) if var_scale_out else sc_out]


def embedding_bag(weight, indices, offsets, per_sample_weight=None, y=None, offset2bag=None, bag_size=None,
                  max_indices=None, mode="mean", scale_grad_by_freq=False, sparse=False, include_last_offset=False,
                  padding_idx=-1):
    """torch embedding_bag on 1-D indices: bag i holds indices[offsets[i]:offsets[i + 1]] (the
    last bag runs to the end, or include_last_offset: offsets' last entry closes the last bag);
    sum (times per_sample_weight) / mean / max of the weight rows, padding_idx rows skipped.
    offset2bag: each index's bag; bag_size: rows per bag (0 for an empty one); max_indices: the
    row chosen per bag and column in max mode; in the other modes the documentation
    (aclnnEmbeddingBag.md: maxIndices is the max rows "when mode is max") defines none, so it is
    not checked (None). bag_size in sum mode is not checked either: the reference semantics
    (torch embedding_bag, make_bag_size_out) compute bag sizes for mean and max only (the kernel
    writes 0 there)."""
    w = _f(weight)
    idx = _v(indices).astype(np.int64).reshape(-1)
    off = _v(offsets).astype(np.int64).reshape(-1)
    psw = per_sample_weight.get("value") if isinstance(per_sample_weight, dict) else None
    nb = len(off) - 1 if include_last_offset else len(off)
    bounds = [(int(off[i]), int(off[i + 1]) if i + 1 < len(off) else len(idx)) for i in range(nb)]
    out = np.zeros((nb, w.shape[1]))
    o2b = np.zeros(len(idx), dtype=np.int64)
    bsz = np.zeros(nb, dtype=np.int64)
    mx = np.zeros((nb, w.shape[1]) if mode == "max" else (nb,), dtype=np.int64)
    for b, (s, e) in enumerate(bounds):
        o2b[s:e] = b
        rows = [k for k in range(s, e) if idx[k] != int(padding_idx)]
        bsz[b] = len(rows)
        if not rows:
            continue
        vals = w[idx[rows]]
        if mode == "sum":
            if psw is not None:
                vals = vals * np.asarray(psw, dtype=np.float64).reshape(-1)[rows][:, None]
            out[b] = vals.sum(axis=0)
        elif mode == "mean":
            out[b] = vals.mean(axis=0)
        else:
            am = vals.argmax(axis=0)
            out[b] = vals.max(axis=0)
            mx[b] = idx[rows][am]
    return [out, o2b, None if mode == "sum" else bsz, mx if mode == "max" else None]


def masked_select_v3(x, mask, y):
    """The elements of x where mask (broadcast together) is true, in row-major order."""
    v, m = np.broadcast_arrays(_v(x), _v(mask).astype(bool))
    return [v[m]]


def scatter_add_with_sorted(var, value, sorted_index, pos=None, var_out=None, reduction="add"):
    """var viewed as rows of its last dim: row sorted_index[k] receives row pos[k] of value (row k
    when pos is left out), added ('add') or written ('update')."""
    v = _v(var)
    out = v.astype(np.float64).reshape(-1, v.shape[-1]).copy()
    val = _f(value).reshape(-1, _v(value).shape[-1])
    si = _v(sorted_index).astype(np.int64).reshape(-1)
    p = _v(pos).astype(np.int64).reshape(-1) if isinstance(pos, dict) and pos.get("value") is not None \
        else np.arange(len(si))
    w = min(out.shape[1], val.shape[1])
    for k, r in zip(si, p):
        if reduction == "update":
            out[k, :w] = val[r, :w]
        else:
            out[k, :w] += val[r, :w]
    if np.issubdtype(v.dtype, np.integer):
        info = np.iinfo(v.dtype)
        out = (np.trunc(out).astype(np.int64) - info.min) % (int(info.max) - int(info.min) + 1) + info.min
    return [out.reshape(v.shape)]


def scatter_list(var, indice, updates, mask=None, var_out=None, reduce="update", axis=-2):
    """var is a list of B tensors; for each b (mask[b] != 0 when a mask is given), updates[b] is
    written into var[b] from position indice[b] (the last column of a [B, 2] indice) along
    ``axis`` (counted on updates, whose first dim is B)."""
    vs = [np.asarray(t["value"]).copy() for t in var]
    u = _v(updates)
    ind = _v(indice).astype(np.int64).reshape(u.shape[0], -1)[:, -1]
    m = _v(mask).reshape(-1) if isinstance(mask, dict) and mask.get("value") is not None else np.ones(u.shape[0])
    ax = int(axis) % u.ndim - 1
    for b in range(u.shape[0]):
        if not m[b]:
            continue
        sl = [slice(None)] * vs[b].ndim
        sl[ax] = slice(int(ind[b]), int(ind[b]) + u.shape[ax + 1])
        vs[b][tuple(sl)] = u[b]
    return [vs]
