"""Our numpy goldens for cann-ops ``src/conversion`` operators, written from each operator's
README / docs and OpDef (msopst calling convention)."""

from __future__ import annotations

import numpy as np


def _pad_index(n: int, before: int, after: int) -> np.ndarray:
    """For each position of a circularly padded axis, the source position it copies."""
    return (np.arange(-before, n + after)) % n


def circular_pad(x, paddings, y):
    """Circular (wrap-around) padding; paddings as _pairs reads them (the operator's aclnn layer
    hands the kernel 2 * ndim values, (before, after) per axis from the first)."""
    v = np.asarray(x["value"])
    out = v
    for ax, (before, after) in enumerate(_pairs(paddings, v.ndim)):
        if before or after:
            out = np.take(out, _pad_index(v.shape[ax], before, after), axis=ax)
    return [out]


def circular_pad_grad(x, paddings, y):
    """Gradient of circular_pad: every element of the padded gradient x is added back onto the
    input position it was copied from."""
    g = np.asarray(x["value"]).astype(np.float64)
    out = g
    for ax, (before, after) in enumerate(_pairs(paddings, g.ndim)):
        if not (before or after):
            continue
        n = out.shape[ax] - before - after
        moved = np.moveaxis(out, ax, 0)
        acc = np.zeros((n,) + moved.shape[1:])
        np.add.at(acc, _pad_index(n, before, after), moved)
        out = np.moveaxis(acc, 0, ax)
    return [out]


# ----------------------------------------------------------------------------- pad gradients

def _pad_src(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of an axis padded by (before, after), the input position it reads:
    edge (replicate), reflect (mirror without the edge), symmetric (mirror with it), circular;
    -1 for constant padding."""
    j = np.arange(-before, n + after)
    if mode in ("edge", "replicate"):
        return np.clip(j, 0, n - 1)
    if mode == "reflect":
        j = np.abs(j)
        return np.where(j >= n, 2 * (n - 1) - j, j)
    if mode == "symmetric":
        j = np.where(j < 0, -j - 1, j)
        return np.where(j >= n, 2 * n - 1 - j, j)
    if mode == "circular":
        return j % n
    return np.where((j >= 0) & (j < n), j, -1)


def _pairs(paddings: dict, ndim: int, contiguous: bool = True) -> list[tuple[int, int]]:
    """(before, after) per axis, first axis first. A paddings tensor of 2 * ndim values lists the
    pairs from the first axis (contiguous) or all befores then all afters; a shorter one lists
    them from the last axis, as torch's pad does."""
    p = [int(v) for v in np.asarray(paddings["value"]).reshape(-1)]
    if len(p) == 2 * ndim:
        if contiguous:
            return [(p[2 * i], p[2 * i + 1]) for i in range(ndim)]
        return [(p[i], p[ndim + i]) for i in range(ndim)]
    pairs = [(0, 0)] * ndim
    for k in range(len(p) // 2):
        pairs[ndim - 1 - k] = (p[2 * k], p[2 * k + 1])
    return pairs


def _pad_grad(g: np.ndarray, pairs, mode: str) -> np.ndarray:
    out = g
    for ax, (b, a) in enumerate(pairs):
        if b == 0 and a == 0:
            continue
        n = out.shape[ax] - b - a
        src = _pad_src(n, b, a, mode)
        moved = np.moveaxis(out, ax, 0)
        keep = src >= 0
        acc = np.zeros((n,) + moved.shape[1:])
        np.add.at(acc, src[keep], moved[keep])
        out = np.moveaxis(acc, 0, ax)
    return out


def pad_v3_grad_replicate(x, paddings, y, mode="edge", paddings_contiguous=True):
    """Gradient of PadV3 (edge/replicate padding): x is the padded gradient; each element is
    added onto the input position it was copied from. paddings: (before, after) per axis."""
    g = np.asarray(x["value"]).astype(np.float64)
    return [_pad_grad(g, _pairs(paddings, g.ndim, paddings_contiguous), mode)]


def pad_v4_grad(x, paddings, y, mode="reflect", paddings_contiguous=True):
    """Gradient of PadV4 (reflect padding by default; mode as PadV3)."""
    return pad_v3_grad_replicate(x, paddings, y, mode, paddings_contiguous)


def pad_v3_grad_replication(x, paddings, z):
    """Gradient of 3-D replication padding (4-D or 5-D x); paddings lists (before, after) from the
    last axis: (left, right, top, bottom, front, back)."""
    g = np.asarray(x["value"]).astype(np.float64)
    return [_pad_grad(g, _pairs(paddings, g.ndim), "edge")]


def reflection_pad3d_grad(x, paddings, y):
    """Gradient of 3-D reflection padding of [N, C, D, H, W]; paddings: (before, after) per axis."""
    g = np.asarray(x["value"]).astype(np.float64)
    return [_pad_grad(g, _pairs(paddings, g.ndim), "reflect")]


# ----------------------------------------------------------------------------- others

def coalesce_sparse(unique_len, unique_indices, indices, values, new_indices, new_values):
    """Coalescing a sparse tensor given the unique pass over its flattened indices: entry i goes
    to slot unique_indices[i]; new_indices[slot] = indices[i], new_values[slot] sums the values."""
    u = int(new_indices["shape"][0])
    slot = np.asarray(unique_indices["value"]).astype(np.int64).reshape(-1)
    idx = np.asarray(indices["value"])
    vals = np.asarray(values["value"])
    ni = np.zeros((u,) + idx.shape[1:], dtype=idx.dtype)
    ni[slot] = idx
    acc = np.zeros((u,) + vals.shape[1:], dtype=np.int64 if np.issubdtype(vals.dtype, np.integer) else np.float64)
    np.add.at(acc, slot, vals)
    return [ni, acc]


def diag_flat(x, y, diagonal=0):
    """x flattened onto diagonal ``diagonal`` of a square matrix of side numel + |diagonal|."""
    return [np.diagflat(np.asarray(x["value"]).reshape(-1), int(diagonal))]


def reverse_sequence(x, seq_lengths, y, seq_dim=1, batch_dim=0):
    """For each index b along batch_dim, the first seq_lengths[b] slices along seq_dim reversed."""
    v = np.asarray(x["value"])
    out = v.copy()
    lens = np.asarray(seq_lengths["value"]).astype(np.int64).reshape(-1)
    sd, bd = int(seq_dim) % v.ndim, int(batch_dim) % v.ndim
    for b, n in enumerate(lens):
        src = [slice(None)] * v.ndim
        src[bd] = b
        src[sd] = slice(0, int(n))
        dst = list(src)
        out[tuple(dst)] = np.flip(v[tuple(src)], axis=sd - (1 if bd < sd else 0))
    return [out]


def strided_slice_assign_v2(var, input_value, begin, end, strides, axes=None, var_out=None):
    """var with var[begin:end:strides] (per listed axis; all leading axes when axes is left out)
    set to input_value."""
    out = np.asarray(var["value"]).copy()
    b = [int(v) for v in np.asarray(begin["value"]).reshape(-1)]
    e = [int(v) for v in np.asarray(end["value"]).reshape(-1)]
    s = [int(v) for v in np.asarray(strides["value"]).reshape(-1)]
    ax = [int(v) for v in np.asarray(axes["value"]).reshape(-1)] if axes is not None and axes.get("value") is not None \
        else list(range(len(b)))
    sl = [slice(None)] * out.ndim
    for a, bb, ee, ss in zip(ax, b, e, s):
        sl[a % out.ndim] = slice(bb, ee, ss)
    out[tuple(sl)] = np.asarray(input_value["value"]).reshape(out[tuple(sl)].shape)
    return [out]
