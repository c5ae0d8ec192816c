"""Our numpy goldens for cann-ops ``src/pooling`` operators, written from each operator's docs
(aclnn*.md / README) and OpDef (msopst calling convention: one dict per input, one per output,
then attributes). Tensors are NCDHW unless data_format says NDHWC; windows follow PyTorch's
pooling (floor or ceil output sizes, padding, dilation, adaptive bins
[floor(i * in / out), ceil((i + 1) * in / out))); argmax/indices are flat positions d * H * W +
h * W + w in a sample-channel's (unpadded) input."""

from __future__ import annotations

import itertools
import math

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _three(v, default=None) -> tuple[int, int, int]:
    v = list(v) if v is not None else list(default)
    if len(v) == 1:
        return (int(v[0]),) * 3
    if len(v) == 6:  # front/back, top/bottom, left/right: the leading pad of each
        return (int(v[0]), int(v[2]), int(v[4]))
    return tuple(int(x) for x in v[:3])


def _to_ncdhw(v: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(v, -1, 1) if str(data_format).upper() == "NDHWC" else v


def _from_ncdhw(v: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(v, 1, -1) if str(data_format).upper() == "NDHWC" else v


def _out_len(n, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    if ceil_mode:
        o = -(-(n + 2 * p - eff) // s) + 1
        if (o - 1) * s >= n + p:  # the last window must start inside the input or left padding
            o -= 1
        return o
    return (n + 2 * p - eff) // s + 1


def _windows(shape, k, s, p, d, ceil_mode):
    """Per output position (od, oh, ow): the list of input coordinates per dim (in range) and the
    unclipped window (start, end) per dim for the divisor."""
    outs = [_out_len(shape[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3)]
    per_dim = []
    for i in range(3):
        wins = []
        for o in range(outs[i]):
            start = o * s[i] - p[i]
            coords = [start + j * d[i] for j in range(k[i])]
            wins.append(([c for c in coords if 0 <= c < shape[i]], start, min(start + (k[i] - 1) * d[i] + 1, shape[i] + p[i])))
        per_dim.append(wins)
    return outs, per_dim


def _adaptive_bins(n_in, n_out):
    return [(math.floor(i * n_in / n_out), math.ceil((i + 1) * n_in / n_out)) for i in range(n_out)]


# ----------------------------------------------------------------------------- average pooling

def adaptive_avg_pool3d(x, y=None, output_size=(1, 1, 1)):
    """Adaptive 3-D average pooling to output_size, channels last as the aclnn layer hands the
    tensor to the kernel (aclnn_adaptive_avg_pool3d.cpp transposes NCDHW to NDHWC; the tiling reads
    x as [N, D, H, W, C]): x [N, D, H, W, C] -> [N, oD, oH, oW, C]."""
    v = np.moveaxis(_f(x), -1, 1)
    o = _three(output_size)
    sp = v.shape[-3:]
    bins = [_adaptive_bins(sp[i], o[i]) for i in range(3)]
    out = np.zeros(v.shape[:-3] + tuple(o))
    for a, b, c in itertools.product(*(range(n) for n in o)):
        (d0, d1), (h0, h1), (w0, w1) = bins[0][a], bins[1][b], bins[2][c]
        out[..., a, b, c] = v[..., d0:d1, h0:h1, w0:w1].mean(axis=(-3, -2, -1))
    return [np.moveaxis(out, 1, -1)]


def adaptive_avg_pool3d_grad(y_grad, x, x_grad=None):
    """Backward of AdaptiveAvgPool3d: each output's gradient spread evenly over its bin. The kernel
    sees what the aclnn layer makes (aclnn_adaptive_avg_pool3d_backward.cpp: N and C flattened and
    moved last): y_grad [oD, oH, oW, NC], x the forward input [N, C, D, H, W] (only its D, H, W
    are read), x_grad [D, H, W, NC]."""
    g = np.moveaxis(_f(y_grad), -1, 0)
    sp = tuple(x["shape"][-3:])
    o = g.shape[-3:]
    bins = [_adaptive_bins(sp[i], o[i]) for i in range(3)]
    out = np.zeros(g.shape[:-3] + sp)
    for a, b, c in itertools.product(*(range(n) for n in o)):
        (d0, d1), (h0, h1), (w0, w1) = bins[0][a], bins[1][b], bins[2][c]
        cnt = (d1 - d0) * (h1 - h0) * (w1 - w0)
        out[..., d0:d1, h0:h1, w0:w1] += g[..., a, b, c][..., None, None, None] / cnt
    return [np.moveaxis(out, 0, -1)]


def _avg_divisor(win, count_include_pad, divisor_override):
    (cd, sd, ed), (ch, sh, eh), (cw, sw, ew) = win
    if divisor_override:
        return float(divisor_override)
    if count_include_pad:
        return float((ed - sd) * (eh - sh) * (ew - sw))
    return float(len(cd) * len(ch) * len(cw))


def avg_pool3_d(x, y=None, ksize=(1, 1, 1), strides=(1, 1, 1), pads=(0, 0, 0), ceil_mode=False,
                count_include_pad=True, divisor_override=0, data_format="NDHWC"):
    """3-D average pooling (window ksize, stride strides, zero padding pads on both sides): the
    window sum over the divisor (divisor_override; else the window size within the padded input
    when count_include_pad, else the number of input elements it covers)."""
    v = _to_ncdhw(_f(x), data_format)
    k, s, p = _three(ksize), _three(strides or ksize), _three(pads, (0, 0, 0))
    outs, wins = _windows(v.shape[2:], k, s, p, (1, 1, 1), ceil_mode)
    out = np.zeros(v.shape[:2] + tuple(outs))
    for a, b, c in itertools.product(*(range(n) for n in outs)):
        win = (wins[0][a], wins[1][b], wins[2][c])
        cd, ch, cw = (w[0] for w in win)
        tot = v[:, :, cd][:, :, :, ch][:, :, :, :, cw].sum(axis=(2, 3, 4)) if cd and ch and cw else 0.0
        out[:, :, a, b, c] = tot / _avg_divisor(win, count_include_pad, divisor_override)
    return [_from_ncdhw(out, data_format)]


def avg_pool3_d_grad(orig_input_shape, grads, output=None, ksize=(1, 1, 1), strides=(1, 1, 1), pads=(0, 0, 0),
                     ceil_mode=False, count_include_pad=True, divisor_override=0, data_format="NDHWC"):
    """Backward of AvgPool3D: each output gradient / its divisor added to every input element
    of its window. The tensors are laid out as the operator's aclnn layer hands them to it:
    orig_input_shape is the forward input's [N, C, D, H, W]; N and C are merged, so grads is
    [1, Do, Ho, Wo, N*C] and the result [1, D, H, W, N*C] with data_format NDHWC, or grads
    [1, N*C, Do, Ho, Wo] and the result [N, C, D, H, W] with NCDHW (the layer's choice when the
    window and stride are 1 in H and W)."""
    g = _to_ncdhw(_f(grads), data_format)
    shape = tuple(int(v) for v in np.asarray(orig_input_shape["value"]).reshape(-1))
    shp = (1, shape[0] * shape[1]) + shape[2:]
    k, s, p = _three(ksize), _three(strides or ksize), _three(pads, (0, 0, 0))
    outs, wins = _windows(shp[2:], k, s, p, (1, 1, 1), ceil_mode)
    out = np.zeros(shp)
    for a, b, c in itertools.product(*(range(n) for n in outs)):
        win = (wins[0][a], wins[1][b], wins[2][c])
        val = g[:, :, a, b, c] / _avg_divisor(win, count_include_pad, divisor_override)
        for dd in win[0][0]:
            for hh in win[1][0]:
                for ww in win[2][0]:
                    out[:, :, dd, hh, ww] += val
    return [_from_ncdhw(out, data_format) if str(data_format).upper() == "NDHWC" else out.reshape(shape)]


def global_avg_pool(x, y=None):
    """Mean of x [N, C, *] over every dim after the second: y [N, C, 1, ...]."""
    v = _f(x)
    return [v.mean(axis=tuple(range(2, v.ndim)), keepdims=True)]


# ----------------------------------------------------------------------------- max pooling

def _flat(d, h, w, shape):
    return (d * shape[1] + h) * shape[2] + w


def adaptive_max_pool3d(x, y=None, indices=None, output_size=(1, 1, 1)):
    """Adaptive 3-D max pooling of x [N, C, D, H, W]: the max of each bin and its flat index
    (the first one among equal values)."""
    v = _f(x)
    o = _three(output_size)
    sp = v.shape[-3:]
    bins = [_adaptive_bins(sp[i], o[i]) for i in range(3)]
    out = np.zeros(v.shape[:-3] + tuple(o))
    idx = np.zeros(out.shape, dtype=np.int64)
    for a, b, c in itertools.product(*(range(n) for n in o)):
        (d0, d1), (h0, h1), (w0, w1) = bins[0][a], bins[1][b], bins[2][c]
        blk = v[..., d0:d1, h0:h1, w0:w1]
        flat = blk.reshape(blk.shape[:-3] + (-1,))
        am = flat.argmax(axis=-1)
        out[..., a, b, c] = flat.max(axis=-1)
        bd, rem = np.divmod(am, (h1 - h0) * (w1 - w0))
        bh, bw = np.divmod(rem, w1 - w0)
        idx[..., a, b, c] = _flat(bd + d0, bh + h0, bw + w0, sp)
    return [out, idx]


def _scatter_argmax(grad: np.ndarray, argmax: np.ndarray, shape) -> np.ndarray:
    """Each gradient added at its argmax (flat over the last three dims of shape)."""
    lead = grad.shape[:-3]
    g = grad.reshape(-1, int(np.prod(grad.shape[-3:])))
    am = argmax.reshape(g.shape).astype(np.int64)
    sp = int(np.prod(shape[-3:]))
    out = np.zeros((g.shape[0], sp))
    for r in range(g.shape[0]):
        np.add.at(out[r], am[r], g[r])
    return out.reshape(lead + tuple(shape[-3:]))


def adaptive_max_pool3d_grad(x, grad, argmax, y=None):
    """Backward of AdaptiveMaxPool3d: each gradient added at its argmax."""
    return [_scatter_argmax(_f(grad), np.asarray(argmax["value"]), tuple(x["shape"]))]


def max_pool3_d_with_argmax_v2(x, y=None, argmax=None, ksize=(1, 1, 1), strides=(1, 1, 1), pads=(0, 0, 0),
                               dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW"):
    """3-D max pooling of x [N, C, D, H, W] (padding -inf, dilation) with each max's flat input
    index (the first one among equal values)."""
    v = _f(x)
    k, s, p, dl = _three(ksize), _three(strides or ksize), _three(pads, (0, 0, 0)), _three(dilation, (1, 1, 1))
    sp = v.shape[2:]
    outs, wins = _windows(sp, k, s, p, dl, ceil_mode)
    out = np.zeros(v.shape[:2] + tuple(outs))
    idx = np.zeros(out.shape, dtype=np.int64)
    for a, b, c in itertools.product(*(range(n) for n in outs)):
        cd, ch, cw = wins[0][a][0], wins[1][b][0], wins[2][c][0]
        pos = [(dd, hh, ww) for dd in cd for hh in ch for ww in cw]
        vals = np.stack([v[:, :, dd, hh, ww] for dd, hh, ww in pos], axis=-1)
        am = vals.argmax(axis=-1)
        out[:, :, a, b, c] = vals.max(axis=-1)
        flat = np.array([_flat(dd, hh, ww, sp) for dd, hh, ww in pos])
        idx[:, :, a, b, c] = flat[am]
    return [out, idx]


def max_pool3d_grad_with_argmax(x, grad, argmax, y=None, ksize=(1, 1, 1), strides=(1, 1, 1), pads=(0, 0, 0),
                                dilation=(1, 1, 1), ceil_mode=False):
    """Backward of MaxPool3DWithArgmax: each gradient added at its argmax."""
    return [_scatter_argmax(_f(grad), np.asarray(argmax["value"]), tuple(x["shape"]))]
