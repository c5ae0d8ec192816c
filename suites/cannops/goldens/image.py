"""Our numpy goldens for cann-ops ``src/image`` operators, written from each operator's aclnn docs
/ README and OpDef (msopst calling convention: one dict per input, one per output, then
attributes).

Resampling follows the documented PyTorch ``interpolate`` semantics, one dimension at a time: a
weight matrix W [out, in] per resized dim (nearest, nearest-exact, linear, cubic with A = -0.75,
and the anti-aliased linear / cubic (A = -0.5) filters whose support widens by the scale when
downsampling); the gradient applies W transposed. In _weights a scale s > 0 means the source step
is 1 / s (PyTorch's scale factor), otherwise in / out (align_corners: (in - 1) / (out - 1)).

The operators' own scale attributes are mostly the source step itself: their aclnn layer passes
1 / scale (computed in double) to the kernel operator, whose tiling uses an attribute > 0 as the
step (ComputeScaleValue / ComputeScales); those goldens convert with _op_steps. upsample_nearest3d_grad
is an exception (its aclnn layer passes the PyTorch scale)."""

from __future__ import annotations

import math

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _step(n_in: int, n_out: int, align_corners: bool, scale) -> float:
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    s = float(scale or 0.0)
    return 1.0 / s if s > 0 else n_in / n_out


def _cubic_w(t: float, a: float) -> list[float]:
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _weights(n_in: int, n_out: int, mode: str, align_corners=False, scale=None) -> np.ndarray:
    """W [n_out, n_in] such that out = W @ in along one dimension."""
    w = np.zeros((n_out, n_in))
    if mode in ("nearest", "nearest_exact"):
        st = (n_in / n_out) if not (scale and float(scale) > 0) else 1.0 / float(scale)
        for o in range(n_out):
            src = math.floor((o + 0.5) * st) if mode == "nearest_exact" else math.floor(o * st)
            w[o, min(src, n_in - 1)] = 1.0
        return w
    st = _step(n_in, n_out, align_corners, scale)
    if mode in ("linear_aa", "cubic_aa"):
        size, a = (2.0, 0.0) if mode == "linear_aa" else (4.0, -0.5)
        support = size / 2 * st if st >= 1.0 else size / 2
        inv = 1.0 / st if st >= 1.0 else 1.0

        def filt(x):
            x = abs(x)
            if mode == "linear_aa":
                return max(0.0, 1.0 - x)
            if x < 1.0:
                return ((a + 2) * x - (a + 3)) * x * x + 1
            if x < 2.0:
                return (((x - 5) * x + 8) * x - 4) * a
            return 0.0
        for o in range(n_out):
            center = st * (o + 0.5)
            lo = max(int(center - support + 0.5), 0)
            hi = min(int(center + support + 0.5), n_in)
            ws = np.array([filt((j - center + 0.5) * inv) for j in range(lo, hi)])
            if ws.sum() != 0:
                ws = ws / ws.sum()
            w[o, lo:hi] += ws
        return w
    for o in range(n_out):
        src = o * st if align_corners else (o + 0.5) * st - 0.5
        if mode == "linear":
            src = max(src, 0.0)
            i0 = min(int(math.floor(src)), n_in - 1)
            i1 = min(i0 + 1, n_in - 1)
            lam = src - i0
            w[o, i0] += 1.0 - lam
            w[o, i1] += lam
        else:  # cubic
            i0 = math.floor(src)
            for k, c in zip(range(i0 - 1, i0 + 3), _cubic_w(src - i0, -0.75)):
                w[o, min(max(k, 0), n_in - 1)] += c
    return w


def _resample(v: np.ndarray, out_sizes, mode: str, align_corners=False, scales=None, grad=False,
              in_sizes=None) -> np.ndarray:
    """Resizes the trailing len(out_sizes) dims of v (grad: v holds the output gradient, the
    result has in_sizes)."""
    k = len(out_sizes)
    scales = list(scales) if scales is not None else [None] * k
    for i in range(k):
        ax = v.ndim - k + i
        n_out = int(out_sizes[i])
        n_in = int(in_sizes[i]) if grad else v.shape[ax]
        w = _weights(n_in, n_out, mode, align_corners, scales[i])
        v = np.moveaxis(np.tensordot(v, w if grad else w.T, axes=([ax], [0])), -1, ax)
    return v


def _op_steps(*steps) -> list[float]:
    """An operator's step attributes (source step, 0: in / out) as the scale factors _weights takes."""
    return [1.0 / float(st) if st and float(st) > 0 else 0.0 for st in steps]


def _sizes(t: dict, k: int) -> list[int]:
    return list(t["shape"][-k:])


# ----------------------------------------------------------------------------- forward resizes

def resize_upsample_trilinear(input, output=None, output_size=(), align_corners=False, scales_d=0.0,  # noqa: A002
                              scales_h=0.0, scales_w=0.0):
    """Trilinear resize of [N, C, D, H, W] to output_size (the output's D, H, W)."""
    return [_resample(_f(input), _sizes(output, 3), "linear", align_corners, _op_steps(scales_d, scales_h, scales_w))]


def upsample_bicubic2d(input, output=None, output_size=(), align_corners=False, scales_h=0.0, scales_w=0.0):  # noqa: A002
    """Bicubic (A = -0.75) resize of [N, C, H, W]."""
    return [_resample(_f(input), _sizes(output, 2), "cubic", align_corners, _op_steps(scales_h, scales_w))]


def upsample_bicubic2d_aa(x, y=None, output_size=(), align_corners=False, scales_h=0.0, scales_w=0.0):
    """Anti-aliased bicubic (A = -0.5) resize of [N, C, H, W]."""
    return [_resample(_f(x), _sizes(y, 2), "cubic_aa", align_corners, _op_steps(scales_h, scales_w))]


def upsample_bilinear2d(x, size, y=None, align_corners=False, scales=None):
    """Bilinear resize of [N, C, H, W] to size (an int32 tensor [H, W])."""
    return [_resample(_f(x), _sizes(y, 2), "linear", align_corners, scales or None)]


def upsample_bilinear2d_aa(input, output=None, output_size=(), align_corners=False, scales_h=0.0, scales_w=0.0):  # noqa: A002
    """Anti-aliased bilinear resize of [N, C, H, W]."""
    return [_resample(_f(input), _sizes(output, 2), "linear_aa", align_corners, _op_steps(scales_h, scales_w))]


def upsample_linear1d(x, size, y=None, align_corners=False, scale=0.0):
    """Linear resize of the last dim of x, given [N, C, 1, W] as its aclnn layer hands it to the
    kernel operator (View3dAs4d), to y [N, C, W_out]. The scale attribute is the source step (the
    aclnn layer passes 1 / scale; 0: in / out)."""
    v = _f(x)
    v = v.reshape(v.shape[0], v.shape[1], v.shape[-1])
    step = float(scale)
    return [_resample(v, _sizes(y, 1), "linear", align_corners, [1.0 / step if step > 0 else 0.0])]


def upsample_nearest(x, y=None, output_size=(), scales_h=0.0, scales_w=0.0, exact_mode=False):
    """Nearest (exact_mode: nearest-exact, (o + 0.5) * step) resize, channels last as the aclnn
    layer hands an ND tensor to the kernel (aclnn_upsample_nearest_exact1d/2d.cpp transpose NCL /
    NCHW to NLC / NHWC): 1-D [N, L, C], 2-D [N, H, W, C]. A scale attribute > 0 is the step
    (input per output pixel: upsample_nearest_tiling.cpp ComputeScaleValue), scales_h the 1-D one."""
    k = len(output_size)
    steps = [scales_h] if k == 1 else [scales_h, scales_w]
    sc = [1.0 / s if s > 0 else 0.0 for s in steps]
    v = np.moveaxis(_f(x), -1, 1)  # channels first for _resample
    out = _resample(v, list(y["shape"][1:1 + k]), "nearest_exact" if exact_mode else "nearest", False, sc)
    return [np.moveaxis(out, 1, -1)]


def upsample_nearest3d(x, y=None, output_size=(), scale_d=0.0, scale_h=0.0, scale_w=0.0):
    """Nearest resize of [N, C, D, H, W]."""
    return [_resample(_f(x), _sizes(y, 3), "nearest", False, _op_steps(scale_d, scale_h, scale_w))]


def upsample_nearest_exact3d(x, y=None, output_size=(), scale_d=0.0, scale_h=0.0, scale_w=0.0):
    """Nearest-exact resize of [N, C, D, H, W]."""
    return [_resample(_f(x), _sizes(y, 3), "nearest_exact", False, _op_steps(scale_d, scale_h, scale_w))]


# ----------------------------------------------------------------------------- gradients

def _grad(g: dict, out: dict, k: int, mode: str, align_corners=False, scales=None) -> list[np.ndarray]:
    v = _f(g)
    return [_resample(v, v.shape[-k:], mode, align_corners, scales, grad=True, in_sizes=_sizes(out, k))]


def upsample_bicubic2d_grad(grad_output, grad_input=None, align_corners=False, scales_h=0.0, scales_w=0.0):
    """Backward of the bicubic resize (sizes from the tensors). scales_h / scales_w are the steps
    the aclnn layer resolves (aclnn_upsample_bicubic_2d_backward.cpp computeScale: 1 / scale, or
    input / output size, or (in - 1) / (out - 1) with align_corners); the kernel uses them as given."""
    return _grad(grad_output, grad_input, 2, "cubic", align_corners, _op_steps(scales_h, scales_w))


def upsample_bicubic2d_aa_grad(grad_output, grad_input=None, output_size=(), input_size=(), align_corners=False,
                               scales_h=0.0, scales_w=0.0):
    return _grad(grad_output, grad_input, 2, "cubic_aa", align_corners, _op_steps(scales_h, scales_w))


def upsample_bilinear2d_grad(grad_output, grad_input=None, output_size=(), input_size=(), align_corners=False,
                             scales_h=0.0, scales_w=0.0):
    return _grad(grad_output, grad_input, 2, "linear", align_corners, [scales_h, scales_w])


def upsample_bilinear2d_aa_backward(grad_output, grad_input=None, output_size=(), input_size=(),
                                    align_corners=False, scales_h=0.0, scales_w=0.0):
    return _grad(grad_output, grad_input, 2, "linear_aa", align_corners, _op_steps(scales_h, scales_w))


def upsample_trilinear3d_backward(grad_output, grad_input=None, output_size=(), input_size=(), align_corners=False,
                                  scale_d=0.0, scale_h=0.0, scale_w=0.0):
    return _grad(grad_output, grad_input, 3, "linear", align_corners, _op_steps(scale_d, scale_h, scale_w))


def upsample_nearest3d_grad(grad_output, y=None, input_size=(), output_size=(), scales=(0.0, 0.0, 0.0)):
    return _grad(grad_output, y, 3, "nearest", False, list(scales) if scales else None)


def upsample_nearest_exact3d_grad(grad_output, y=None, input_size=(), output_size=(), scales=(0.0, 0.0, 0.0)):
    return _grad(grad_output, y, 3, "nearest_exact", False, list(scales) if scales else None)


def upsample_nearest_exact2d_grad(grad_output, grad_input=None, output_size=(), input_size=(), scales_h=0.0,
                                  scales_w=0.0):
    return _grad(grad_output, grad_input, 2, "nearest_exact", False, [scales_h, scales_w])


# ----------------------------------------------------------------------------- grid sampling

def _unnormalize(c, size, align_corners):
    return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2


def _pad_coord(c, size, padding_mode, align_corners):
    """Coordinate after border / reflection padding, and d(result)/d(c)."""
    grad = np.ones_like(c)
    if padding_mode == "border":
        grad = np.where((c < 0) | (c > size - 1), 0.0, 1.0)
        c = np.clip(c, 0, size - 1)
    elif padding_mode == "reflection":
        lo, span = (0.0, 2.0 * (size - 1)) if align_corners else (-0.5, 2.0 * size)
        if span <= 0:
            return np.zeros_like(c), np.zeros_like(c)
        x = np.abs(c - lo)
        sign = np.where(c - lo < 0, -1.0, 1.0)
        half = span / 2
        flips = np.floor(x / half)
        extra = np.mod(x, half)
        grad = np.where(np.mod(flips, 2) == 0, 1.0, -1.0) * sign
        c = np.where(np.mod(flips, 2) == 0, extra + lo, half - extra + lo)
        g2 = np.where((c < 0) | (c > size - 1), 0.0, 1.0)
        c = np.clip(c, 0, size - 1)
        grad = grad * g2
    return c, grad


def _grid_sample_2d(v, grid, mode, padding_mode, align_corners, dy=None, coord_dtype=np.float64):
    """Forward (dy None): y [N, C, Ho, Wo]; backward: (dx, dgrid). The source coordinates are
    computed in coord_dtype (the rest in float64)."""
    n, c, h, w = v.shape
    gx = grid[..., 0].astype(coord_dtype)
    gy = grid[..., 1].astype(coord_dtype)
    ix = _unnormalize(gx, coord_dtype(w), align_corners).astype(np.float64)
    iy = _unnormalize(gy, coord_dtype(h), align_corners).astype(np.float64)
    ix, dix = _pad_coord(ix, w, padding_mode, align_corners)
    iy, diy = _pad_coord(iy, h, padding_mode, align_corners)
    dmul_x = (w - 1) / 2 if align_corners else w / 2
    dmul_y = (h - 1) / 2 if align_corners else h / 2
    ho, wo = gx.shape[1:]
    out = np.zeros((n, c, ho, wo))
    dx = np.zeros_like(v)
    dgrid = np.zeros(grid.shape)
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                x, y = ix[b, i, j], iy[b, i, j]
                if mode == "nearest":
                    xn, yn = int(np.rint(x)), int(np.rint(y))
                    if 0 <= xn < w and 0 <= yn < h:
                        if dy is None:
                            out[b, :, i, j] = v[b, :, yn, xn]
                        else:
                            dx[b, :, yn, xn] += dy[b, :, i, j]
                    continue
                x0, y0 = math.floor(x), math.floor(y)
                tx, ty = x - x0, y - y0
                gxs = gys = 0.0
                for yy, xx, wt, dwx, dwy in ((y0, x0, (1 - tx) * (1 - ty), -(1 - ty), -(1 - tx)),
                                             (y0, x0 + 1, tx * (1 - ty), (1 - ty), -tx),
                                             (y0 + 1, x0, (1 - tx) * ty, -ty, (1 - tx)),
                                             (y0 + 1, x0 + 1, tx * ty, ty, tx)):
                    if 0 <= xx < w and 0 <= yy < h:
                        if dy is None:
                            out[b, :, i, j] += wt * v[b, :, yy, xx]
                        else:
                            dx[b, :, yy, xx] += wt * dy[b, :, i, j]
                            s = float(np.dot(v[b, :, yy, xx], dy[b, :, i, j]))
                            gxs += dwx * s
                            gys += dwy * s
                if dy is not None:
                    dgrid[b, i, j, 0] = gxs * dix[b, i, j] * dmul_x
                    dgrid[b, i, j, 1] = gys * diy[b, i, j] * dmul_y
    return out if dy is None else (dx, dgrid)


def grid_sample(x, grid, y=None, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False,
                channel_last=False, scheduler_mode=1):
    """2-D grid sampling of x [N, C, H, W] (channel_last: [N, H, W, C]) at grid [N, Ho, Wo, 2]
    ((x, y) in [-1, 1]): bilinear or nearest (half to even), zeros / border / reflection
    padding; y [N, C, Ho, Wo]."""
    v = _f(x)
    if channel_last:
        v = np.moveaxis(v, -1, 1)
    return [_grid_sample_2d(v, _f(grid), interpolation_mode, padding_mode, bool(align_corners))]


def grid_sampler2d_grad(grad, x, grid, dx=None, dgrid=None, interpolation_mode="bilinear", padding_mode="zeros",
                        align_corners=False):
    """Backward of 2-D grid sampling: dx (gradient of x) and dgrid (of grid; 0 for nearest). x,
    grad and dx are channel-last, [N, H, W, C] (the README's NHWC; its tiling reads C from dim 3).
    The source coordinate is computed in float32, as the reference (PyTorch's backward for float
    inputs) and the kernel do: dgrid sums C x 4 products scaled by W / 2, so the coordinate's float32
    rounding (~1e-6 at 64 pixels) moves it by ~1e-3 relative, beyond float32's 1e-4 tolerance."""
    v, dy = np.moveaxis(_f(x), -1, 1), np.moveaxis(_f(grad), -1, 1)
    gx, gg = _grid_sample_2d(v, _f(grid), interpolation_mode, padding_mode, bool(align_corners), dy,
                             coord_dtype=np.float32)
    return [np.moveaxis(gx, 1, -1), gg]


# ----------------------------------------------------------------------------- deformable attention

def _msda(value, shapes, starts, loc, attn, grad_out=None):
    """Multi-scale deformable attention (bilinear sampling, zeros outside, pixel = loc * size -
    0.5); forward output [bs, nq, nh * ch] or the three gradients."""
    bs, nk, nh, ch = value.shape
    _, nq, _, nl, npnt, _ = loc.shape
    out = np.zeros((bs, nq, nh, ch))
    gv = np.zeros_like(value)
    gl = np.zeros_like(loc)
    ga = np.zeros_like(attn)
    for lv in range(nl):
        hh, ww = int(shapes[lv, 0]), int(shapes[lv, 1])
        st = int(starts[lv])
        for b in range(bs):
            for q in range(nq):
                for hd in range(nh):
                    for p in range(npnt):
                        x = loc[b, q, hd, lv, p, 0] * ww - 0.5
                        y = loc[b, q, hd, lv, p, 1] * hh - 0.5
                        a = attn[b, q, hd, lv, p]
                        x0, y0 = math.floor(x), math.floor(y)
                        tx, ty = x - x0, y - y0
                        samp = np.zeros(ch)
                        dsx = np.zeros(ch)
                        dsy = np.zeros(ch)
                        corners = ((y0, x0, (1 - tx) * (1 - ty), -(1 - ty), -(1 - tx)),
                                   (y0, x0 + 1, tx * (1 - ty), (1 - ty), -tx),
                                   (y0 + 1, x0, (1 - tx) * ty, -ty, (1 - tx)),
                                   (y0 + 1, x0 + 1, tx * ty, ty, tx))
                        for yy, xx, wt, dwx, dwy in corners:
                            if 0 <= xx < ww and 0 <= yy < hh:
                                vv = value[b, st + yy * ww + xx, hd]
                                samp += wt * vv
                                dsx += dwx * vv
                                dsy += dwy * vv
                                if grad_out is not None:
                                    gv[b, st + yy * ww + xx, hd] += wt * a * grad_out[b, q, hd]
                        if grad_out is None:
                            out[b, q, hd] += a * samp
                        else:
                            g = grad_out[b, q, hd]
                            ga[b, q, hd, lv, p] = float(np.dot(samp, g))
                            gl[b, q, hd, lv, p, 0] = a * float(np.dot(dsx, g)) * ww
                            gl[b, q, hd, lv, p, 1] = a * float(np.dot(dsy, g)) * hh
    if grad_out is None:
        return out.reshape(bs, nq, nh * ch)
    return gv, gl, ga


def multi_scale_deformable_attn_function(value, value_spatial_shapes, value_level_start_index, sampling_locations,
                                         attention_weights, output=None):
    """value [bs, num_keys, heads, ch] (levels flattened H * W from their start index),
    sampling_locations [bs, nq, heads, levels, points, 2] ((x, y) in [0, 1]), attention_weights
    [bs, nq, heads, levels, points]: output [bs, nq, heads * ch]."""
    return [_msda(_f(value), np.asarray(value_spatial_shapes["value"]), np.asarray(value_level_start_index["value"]),
                  _f(sampling_locations), _f(attention_weights))]


def multi_scale_deformable_attention_grad(value, value_spatial_shapes, value_level_start_index, sampling_locations,
                                          attention_weights, grad_output, grad_value=None,
                                          grad_sampling_locations=None, grad_attention_weights=None):
    """Gradients of MultiScaleDeformableAttn for value, sampling_locations, attention_weights."""
    v = _f(value)
    go = _f(grad_output).reshape(v.shape[0], -1, v.shape[2], v.shape[3])
    return list(_msda(v, np.asarray(value_spatial_shapes["value"]), np.asarray(value_level_start_index["value"]),
                      _f(sampling_locations), _f(attention_weights), go))


# ----------------------------------------------------------------------------- point clouds

def _rot(q):
    w, x, y, z = q
    n = w * w + x * x + y * y + z * z
    s = 2.0 / n if n > 0 else 0.0
    return np.array([[1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
                     [s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)],
                     [s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)]])


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def motion_compensation(points, timestamp, out=None, timestamp_min=0, timestamp_max=1, translation_min=(0, 0, 0),
                        translation_max=(0, 0, 0), quaterniond_min=(1, 0, 0, 0), quaterniond_max=(1, 0, 0, 0)):
    """Per point (points [ndim, N], quaternions (w, x, y, z)): t = (tmax - ts) / (tmax - tmin); T =
    R(conj(qmax)) (tmin - tmax); qrel = conj(qmax) * qmin normalised; out = R(slerp(1, qrel, t)) p
    + t T (translation only when qrel is the identity); rows after the third and points with a
    NaN coordinate are copied."""
    p = _f(points)
    ts = np.asarray(timestamp["value"]).astype(np.float64).reshape(-1)
    tmin, tmax = float(timestamp_min), float(timestamp_max)
    if tmax == tmin:
        return [p]
    t = (tmax - ts) / (tmax - tmin)
    qmax = np.asarray(quaterniond_max, dtype=np.float64)
    qmin = np.asarray(quaterniond_min, dtype=np.float64)
    conj = qmax * np.array([1, -1, -1, -1])
    trans = _rot(conj) @ (np.asarray(translation_min, dtype=np.float64) - np.asarray(translation_max, dtype=np.float64))
    qrel = _qmul(conj, qmin)
    qrel = qrel / np.linalg.norm(qrel)
    d = qrel[0]
    out_p = p.copy()
    xyz = p[:3]
    if abs(d) < 1 - 1e-8:
        theta = math.acos(abs(d))
        sgn = 1.0 if d >= 0 else -1.0
        res = np.zeros_like(xyz)
        for i in range(xyz.shape[1]):
            c0 = math.sin((1 - t[i]) * theta) / math.sin(theta)
            c1 = math.sin(t[i] * theta) / math.sin(theta) * sgn
            qi = c0 * np.array([1.0, 0, 0, 0]) + c1 * qrel
            res[:, i] = _rot(qi) @ xyz[:, i] + t[i] * trans
    else:
        res = xyz + t[None, :] * trans[:, None]
    nan = np.isnan(xyz).any(axis=0)
    out_p[:3] = np.where(nan[None, :], xyz, res)
    return [out_p]
