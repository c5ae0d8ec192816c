"""Our numpy goldens for cann-ops ``src/norm`` operators, written from each operator's docs
(aclnn*.md formulas), README and OpDef (msopst calling convention: one dict per input, one per
output, then attributes). Statistics are computed in float64 over the trailing dimensions that
gamma spans (layer/RMS norms) or per (sample, group) / (sample, channel) (group/instance norms);
results are cast to the output dtypes by the caller. Quantised outputs are rounded half to even
and saturated to int8 here. Gradient goldens use the mean/rstd they are given (not recomputed)."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _opt(t) -> np.ndarray | None:
    """An optional input's values, None when the case leaves it out."""
    if t is None or not isinstance(t, dict) or t.get("value") is None:
        return None
    return _f(t)


def _q8(v):
    return np.clip(np.rint(v), -128, 127)


def _axes(x: np.ndarray, gamma_ndim: int) -> tuple[int, ...]:
    return tuple(range(x.ndim - gamma_ndim, x.ndim))


def _stat_shape(out: dict | None, v: np.ndarray) -> np.ndarray:
    return v if out is None else v.reshape(tuple(out["shape"]))


def _layer_norm(x, nd, eps):
    """(normalised x, mean, rstd) over the last nd dims (keepdims)."""
    ax = _axes(x, nd)
    mean = x.mean(axis=ax, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=ax, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    return (x - mean) * rstd, mean, rstd


def _rms(x, nd, eps):
    ax = _axes(x, nd)
    return 1.0 / np.sqrt((x * x).mean(axis=ax, keepdims=True) + eps)


def _ln_backward(dy, x, mean, rstd, gamma):
    """LayerNorm backward over gamma's dims with the given mean/rstd: (dx, dgamma, dbeta)."""
    nd = gamma.ndim
    ax = _axes(x, nd)
    lead = tuple(range(x.ndim - nd))
    n = float(np.prod([x.shape[a] for a in ax]))
    xmu = x - mean
    g = dy * gamma
    dx = rstd * g - rstd * g.sum(axis=ax, keepdims=True) / n \
        - rstd ** 3 * xmu * (g * xmu).sum(axis=ax, keepdims=True) / n
    dgamma = (dy * xmu * rstd).sum(axis=lead)
    dbeta = dy.sum(axis=lead)
    return dx, dgamma, dbeta


def _bcast_stat(s: np.ndarray, x: np.ndarray, nd: int) -> np.ndarray:
    """A per-row statistic (shape of x's leading dims, with or without trailing 1s) broadcast
    against x."""
    lead = x.shape[: x.ndim - nd]
    return s.reshape(lead + (1,) * nd)


# ----------------------------------------------------------------------------- layer norm family

def add_layer_norm(x1, x2, gamma, beta, bias=None, y=None, mean=None, rstd=None, x=None, epsilon=1e-5,
                   additional_output=False):
    """x = x1 + x2 (+ bias); y = LayerNorm(x) * gamma + beta over gamma's dims; mean, rstd, x."""
    s = _f(x1) + _f(x2)
    b = _opt(bias)
    if b is not None:
        s = s + b
    g = _f(gamma)
    xn, m, r = _layer_norm(s, g.ndim, float(epsilon))
    return [xn * g + _f(beta), _stat_shape(mean, m), _stat_shape(rstd, r), s]


def inplace_add_layer_norm(x1, x2, gamma, beta, bias=None, x1_out=None, mean=None, rstd=None, x2_out=None,
                           epsilon=1e-5, additional_output=False):
    """AddLayerNorm writing y into x1 and x1 + x2 + bias into x2. Outputs share the inputs' names,
    so the arguments bind by position: our cases always give bias."""
    return add_layer_norm(x1, x2, gamma, beta, bias, None, mean, rstd, None, epsilon)


def add_layer_norm_grad(dy, x1, x2, rstd, mean, gamma, dsum=None, dx=None, dgamma=None, dbeta=None):
    """Backward of AddLayerNorm: dx (the gradient of x1 and of x2, plus dsum when given),
    dgamma, dbeta."""
    x = _f(x1) + _f(x2)
    g = _f(gamma)
    ddx, dg, db = _ln_backward(_f(dy), x, _bcast_stat(_f(mean), x, g.ndim), _bcast_stat(_f(rstd), x, g.ndim), g)
    ds = _opt(dsum)
    if ds is not None:
        ddx = ddx + ds
    return [ddx, dg, db]


def layer_norm_v4(x, normalized_shape, gamma=None, beta=None, y=None, mean=None, rstd=None, epsilon=1e-5):
    """LayerNorm over the trailing len(normalized_shape) dims; gamma/beta optional (1 / 0)."""
    v = _f(x)
    nd = int(np.asarray(normalized_shape["value"]).size)
    xn, m, r = _layer_norm(v, nd, float(epsilon))
    g, b = _opt(gamma), _opt(beta)
    out = xn * (g if g is not None else 1.0) + (b if b is not None else 0.0)
    return [out, _stat_shape(mean, m), _stat_shape(rstd, r)]


def layer_norm_grad_v3(dy, x, rstd, mean, gamma, pd_x=None, pd_gamma=None, pd_beta=None):
    """LayerNorm backward (given mean, rstd): pd_x, pd_gamma, pd_beta."""
    v = _f(x)
    g = _f(gamma)
    return list(_ln_backward(_f(dy), v, _bcast_stat(_f(mean), v, g.ndim), _bcast_stat(_f(rstd), v, g.ndim), g))


def deep_norm(x, gx, beta, gamma, mean=None, rstd=None, y=None, alpha=0.3, epsilon=1e-6):
    """y = LayerNorm(alpha * x + gx) * gamma + beta; mean, rstd of alpha * x + gx."""
    s = float(alpha) * _f(x) + _f(gx)
    g = _f(gamma)
    xn, m, r = _layer_norm(s, g.ndim, float(epsilon))
    return [_stat_shape(mean, m), _stat_shape(rstd, r), xn * g + _f(beta)]


def deep_norm_grad(dy, x, gx, gamma, mean, rstd, dx=None, dgx=None, dbeta=None, dgamma=None, alpha=0.3):
    """Backward of DeepNorm: dgx is the LayerNorm input gradient, dx = alpha * dgx."""
    s = float(alpha) * _f(x) + _f(gx)
    g = _f(gamma)
    d, dg, db = _ln_backward(_f(dy), s, _bcast_stat(_f(mean), s, g.ndim), _bcast_stat(_f(rstd), s, g.ndim), g)
    return [float(alpha) * d, d, db, dg]


def add_layer_norm_quant(x1, x2, gamma, beta, bias=None, scales1=None, scales2=None, zero_points1=None,
                         zero_points2=None, y1=None, y2=None, x=None, out_scales1=None, out_scales2=None,
                         quant_mode="dynamic", epsilon=1e-5, additional_output=False):
    """y = LayerNorm(x1 + x2 + bias) * gamma + beta, quantised to int8 twice. dynamic: scales1/2
    are smoothing factors (y * s), per-row scale max|y * s| / 127 (out_scales), y_i = round(y * s /
    scale); static: y_i = round(y / scales_i + zero_points_i) (out_scales unused: 0)."""
    s = _f(x1) + _f(x2)
    b = _opt(bias)
    if b is not None:
        s = s + b
    g = _f(gamma)
    xn, _, _ = _layer_norm(s, g.ndim, float(epsilon))
    yv = (xn * g + _f(beta)).astype(np.float32).astype(np.float64)
    lead = s.shape[: s.ndim - 1]
    outs, scales = [], []
    for sc, zp, os_ in ((scales1, zero_points1, out_scales1), (scales2, zero_points2, out_scales2)):
        sv, zv = _opt(sc), _opt(zp)
        if quant_mode == "static":
            outs.append(_q8(yv / (sv if sv is not None else 1.0) + (zv if zv is not None else 0.0)))
            scales.append(np.zeros(lead))
            continue
        t = yv * sv if sv is not None else yv
        d = np.abs(t).max(axis=-1, keepdims=True) / 127.0
        outs.append(_q8(t / d))
        scales.append(d.reshape(lead))
    return [outs[0], outs[1], s, _stat_shape(out_scales1, scales[0]), _stat_shape(out_scales2, scales[1])]


def quantize_add_layer_norm(x1, x2, gamma, beta, bias, scales, zero_points=None, y=None, x=None, dtype=2,
                            axis=-1, epsilon=1e-5, additional_output=False):
    """x = x1 + x2 + bias; y = round(LayerNorm(x) * gamma + beta) / scales + zero_points) to int8,
    scales / zero_points per channel (a one-element tensor: per tensor), as AscendQuant's
    division by the scale."""
    s = _f(x1) + _f(x2) + _f(bias)
    g = _f(gamma)
    xn, _, _ = _layer_norm(s, g.ndim, float(epsilon))
    yv = (xn * g + _f(beta)).astype(np.float32).astype(np.float64)
    zp = _opt(zero_points)
    return [_q8(yv / _f(scales) + (zp if zp is not None else 0.0)), s]


def dua_quantize_add_layer_norm(x1, x2, gamma, beta, bias, scales1, scales2, zero_points1=None, zero_points2=None,
                                y1=None, y2=None, x=None, dtype=2, axis=-1, epsilon=1e-5, additional_output=False):
    """x = x1 + x2 + bias; y = LayerNorm(x) * gamma + beta; y_i = round(y / scales_i +
    zero_points_i) per channel (axis = -65535: y * scales_i instead)."""
    s = _f(x1) + _f(x2) + _f(bias)
    g = _f(gamma)
    xn, _, _ = _layer_norm(s, g.ndim, float(epsilon))
    yv = (xn * g + _f(beta)).astype(np.float32).astype(np.float64)
    outs = []
    for sc, zp in ((scales1, zero_points1), (scales2, zero_points2)):
        t = yv * _f(sc) if int(axis) == -65535 else yv / _f(sc)
        z = _opt(zp)
        outs.append(_q8(t + (z if z is not None else 0.0)))
    return [outs[0], outs[1], s]


# ----------------------------------------------------------------------------- RMS norm family

def rms_norm(x, gamma, y=None, rstd=None, epsilon=1e-6):
    """y = x * rstd * gamma, rstd = 1 / sqrt(mean(x^2) + eps) over gamma's dims."""
    v = _f(x)
    g = _f(gamma)
    r = _rms(v, g.ndim, float(epsilon))
    return [v * r * g, _stat_shape(rstd, r)]


def rms_norm_grad(dy, x, rstd, gamma, dx=None, dgamma=None):
    """RmsNorm backward (given rstd): dx = rstd * (dy * gamma) - x * rstd^3 * mean(dy * gamma * x),
    dgamma = sum over rows of dy * x * rstd."""
    v, d, g = _f(x), _f(dy), _f(gamma)
    r = _bcast_stat(_f(rstd), v, g.ndim)
    ax = _axes(v, g.ndim)
    n = float(np.prod([v.shape[a] for a in ax]))
    gd = d * g
    ddx = r * gd - v * r ** 3 * (gd * v).sum(axis=ax, keepdims=True) / n
    dg = (d * v * r).sum(axis=tuple(range(v.ndim - g.ndim)))
    return [ddx, dg]


def _sum_in_dtype(x1, x2) -> np.ndarray:
    """x1 + x2 rounded to the inputs' dtype (the tensor x the operator outputs), in float64: the
    AddRmsNorm kernels normalise that x (float16 is added in float16; bfloat16 is added in float32
    and cast back with CAST_RINT before rstd is computed from it), as PyTorch's x = x1 + x2 does."""
    a = np.asarray(x1["value"])
    s = _f(x1) + _f(x2)
    if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
        return s
    return s.astype(a.dtype).astype(np.float64)


def add_rms_norm(x1, x2, gamma, y=None, rstd=None, x=None, epsilon=1e-6):
    """x = x1 + x2 (in the inputs' dtype); y = RmsNorm(x) * gamma; rstd; x."""
    s = _sum_in_dtype(x1, x2)
    g = _f(gamma)
    r = _rms(s, g.ndim, float(epsilon))
    return [s * r * g, _stat_shape(rstd, r), s]


def inplace_add_rms_norm(x1, x2, gamma, x1_out=None, rstd=None, x2_out=None, epsilon=1e-6):
    """AddRmsNorm writing y into x1 and x1 + x2 into x2."""
    return add_rms_norm(x1, x2, gamma, None, rstd, None, epsilon)


def add_rms_norm_cast(x1, x2, gamma, y1=None, y2=None, rstd=None, x=None, epsilon=1e-6):
    """AddRmsNorm with y given twice: in the input dtype (y2) and that same y widened to float32
    (y1), following the repository's 910B golden (tests/st): float16 adds x1 + x2 in float16 and
    rounds x * rstd to float16 before multiplying by gamma; bfloat16 normalises the float32 sum
    (rounded to bfloat16 first only when D > 12288) and rounds y once."""
    a = np.asarray(x1["value"])
    g = _f(gamma)
    if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
        yv, r, sm = add_rms_norm(x1, x2, gamma, None, rstd, None, epsilon)
        return [yv, yv, r, sm]
    rd = lambda v: v.astype(a.dtype).astype(np.float64)  # noqa: E731
    sm = _f(x1) + _f(x2)
    if a.dtype == np.float16 or a.shape[-1] > 12288:
        sm = rd(sm)
    r = _rms(sm, g.ndim, float(epsilon))
    yv = rd(rd(sm * r) * g) if a.dtype == np.float16 else rd(sm * r * g)
    return [yv, yv, _stat_shape(rstd, r), sm]


def _add_rms_y(x1, x2, gamma, epsilon):
    s = _sum_in_dtype(x1, x2)
    g = _f(gamma)
    # the normalised output in the input dtype, as the quantisation reads it
    yv = (s * _rms(s, g.ndim, float(epsilon)) * g).astype(np.float32)
    return s, yv.astype(np.float64)


def add_rms_norm_quant(x1, x2, gamma, scales1, scales2=None, zero_points1=None, zero_points2=None, y1=None,
                       y2=None, x=None, axis=-1, epsilon=1e-6, div_mode=True):
    """y = RmsNorm(x1 + x2) * gamma; y1 = round(y / scales1 + zero_points1) (div_mode false:
    y * scales1) to int8; x = x1 + x2. y2 is not computed: aclnnAddRmsNormQuant documents
    scales2 / zero_points2 as reserved, unused, and y2 as 'output is random' (None: unchecked)."""
    s, yv = _add_rms_y(x1, x2, gamma, epsilon)
    return _rms_quant_outs(yv, s, scales1, zero_points1, div_mode)


def _rms_quant_outs(yv, s, scales1, zero_points1, div_mode):
    sv, zv = _f(scales1), _opt(zero_points1)
    t = yv / sv if div_mode else yv * sv
    return [_q8(t + (zv if zv is not None else 0.0)), None, s]


def add_rms_norm_quant_v2(x1, x2, gamma, scales1, scales2=None, zero_points1=None, zero_points2=None, bias=None,
                          y1=None, y2=None, x=None, axis=-1, epsilon=1e-6, div_mode=True):
    """AddRmsNormQuant with an optional bias added to the normalised output before quantising
    (y2 not computed, as in AddRmsNormQuant: no kernel path writes it)."""
    s, yv = _add_rms_y(x1, x2, gamma, epsilon)
    b = _opt(bias)
    if b is not None:
        yv = (yv + b).astype(np.float32).astype(np.float64)
    return _rms_quant_outs(yv, s, scales1, zero_points1, div_mode)


def add_rms_norm_dynamic_quant(x1, x2, gamma, smooth_scale1=None, smooth_scale2=None, y1=None, y2=None, x=None,
                               scale1=None, scale2=None, epsilon=1e-6):
    """y = RmsNorm(x1 + x2) * gamma; per smoothing factor s_i (1 when absent): t = y * s_i,
    scale_i = row max|t| / 127, y_i = round(t / scale_i)."""
    s, yv = _add_rms_y(x1, x2, gamma, epsilon)
    lead = s.shape[:-1]
    outs, scales = [], []
    for sm in (smooth_scale1, smooth_scale2):
        sv = _opt(sm)
        t = yv * sv if sv is not None else yv
        d = np.abs(t).max(axis=-1, keepdims=True) / 127.0
        outs.append(_q8(t / d))
        scales.append(d.reshape(lead))
    return [outs[0], outs[1], s, _stat_shape(scale1, scales[0]), _stat_shape(scale2, scales[1])]


# ----------------------------------------------------------------------------- batch / instance / group

def batch_norm_v3(x, weight, bias, running_mean, running_var, y=None, running_mean_out=None, running_var_out=None,
                  save_mean=None, save_rstd=None, epsilon=1e-5, momentum=0.1, is_training=True):
    """BatchNorm over every dim but the channel dim 1 (NCHW / NCDHW). Training: batch statistics,
    running stats updated as (1 - momentum) * running + momentum * batch (the variance unbiased),
    save_mean the batch mean; save_rstd holds the biased batch variance (the kernel's save_var: its
    full-reduce and Welford paths both store it there, and the running-variance update scales that
    same value), not 1 / sqrt(var + eps). Inference: running stats."""
    v = _f(x)
    ax = tuple(i for i in range(v.ndim) if i != 1)
    shp = [1] * v.ndim
    shp[1] = v.shape[1]
    rm, rv = _f(running_mean), _f(running_var)
    eps, mom = float(epsilon), float(momentum)
    if is_training:
        m = v.mean(axis=ax)
        var = v.var(axis=ax)
        n = v.size / v.shape[1]
        rstd = 1.0 / np.sqrt(var + eps)
        out = (v - m.reshape(shp)) * rstd.reshape(shp)
        new_rm = (1 - mom) * rm + mom * m
        new_rv = (1 - mom) * rv + mom * var * n / max(n - 1.0, 1.0)
        sm, sr = m, var  # both kernel paths store the biased batch variance in save_rstd
    else:
        out = (v - rm.reshape(shp)) / np.sqrt(rv.reshape(shp) + eps)
        new_rm, new_rv = rm, rv
        sm, sr = rm, 1.0 / np.sqrt(rv + eps)
    out = out * _f(weight).reshape(shp) + _f(bias).reshape(shp)
    return [out, new_rm, new_rv, sm, sr]


def instance_norm_v3(x, gamma, beta, y=None, mean=None, variance=None, data_format="NCHW", epsilon=1e-6):
    """InstanceNorm of a 4-D x (NCHW, or NHWC when data_format says so): statistics per (n, c)
    over the spatial dims; mean and (biased) variance per (n, c)."""
    v = _f(x)
    if str(data_format).upper() in ("NHWC", "NDHWC"):
        ax = tuple(range(1, v.ndim - 1))
        shp = (1,) * (v.ndim - 1) + (-1,)
    else:
        ax = tuple(range(2, v.ndim))
        shp = (1, -1) + (1,) * (v.ndim - 2)
    m = v.mean(axis=ax, keepdims=True)
    var = ((v - m) ** 2).mean(axis=ax, keepdims=True)
    out = (v - m) / np.sqrt(var + float(epsilon)) * _f(gamma).reshape(shp) + _f(beta).reshape(shp)
    return [out, _stat_shape(mean, m), _stat_shape(variance, var)]


def _groups(v: np.ndarray, num_groups: int) -> np.ndarray:
    """x [N, C, *] as [N, G, C/G * prod(*)]."""
    return v.reshape(v.shape[0], int(num_groups), -1)


def _chan(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    return a.reshape((1, -1) + (1,) * (v.ndim - 2))


def _group_norm(x, gamma, beta, num_groups, eps):
    v = _f(x)
    gv = _groups(v, num_groups)
    m = gv.mean(axis=2)
    var = gv.var(axis=2)
    r = 1.0 / np.sqrt(var + float(eps))
    xn = ((gv - m[..., None]) * r[..., None]).reshape(v.shape)
    g, b = _opt(gamma), _opt(beta)
    out = xn * (_chan(g, v) if g is not None else 1.0) + (_chan(b, v) if b is not None else 0.0)
    return out, m, r


def _silu(v, scale=1.0):
    return v / (1.0 + np.exp(-scale * v))


def group_norm_silu(x, gamma=None, beta=None, y=None, mean=None, rstd=None, num_groups=1, eps=1e-5,
                    activate_silu=True):
    """GroupNorm of x [N, C, *] in num_groups groups, then SiLU (y * sigmoid(y)); mean, rstd [N, G]."""
    out, m, r = _group_norm(x, gamma, beta, num_groups, eps)
    if activate_silu:
        out = _silu(out)
    return [out, _stat_shape(mean, m), _stat_shape(rstd, r)]


def group_norm_swish(x, gamma, beta, y=None, mean=None, rstd=None, num_groups=1, data_format="NCHW", eps=1e-5,
                     activate_swish=True, swish_scale=1.0):
    """GroupNorm, then Swish y / (1 + exp(-swish_scale * y)); mean, rstd [N, G]."""
    out, m, r = _group_norm(x, gamma, beta, num_groups, eps)
    if activate_swish:
        out = _silu(out, float(swish_scale))
    return [out, _stat_shape(mean, m), _stat_shape(rstd, r)]


def _gn_backward(dyv, v, m, r, g, num_groups):
    """GroupNorm backward with the given per-(n, group) mean/rstd: (dx, dgamma, dbeta)."""
    n, c = v.shape[0], v.shape[1]
    G = int(num_groups)
    xs = _groups(v, G)
    mm = m.reshape(n, G, 1)
    rr = r.reshape(n, G, 1)
    xhat = ((xs - mm) * rr).reshape(v.shape)
    red = tuple(range(2, v.ndim))
    dgamma = (dyv * xhat).sum(axis=(0,) + red)
    dbeta = dyv.sum(axis=(0,) + red)
    gd = _groups(dyv * _chan(g, v), G)
    cnt = float(gd.shape[2])
    xmu = xs - mm
    dx = rr * gd - rr * gd.sum(axis=2, keepdims=True) / cnt - rr ** 3 * xmu * (gd * xmu).sum(axis=2, keepdims=True) / cnt
    return dx.reshape(v.shape), dgamma, dbeta


def group_norm_grad(dy, mean, rstd, x, gamma, dx=None, dgamma=None, dbeta=None, num_groups=1, data_format="NCHW",
                    dx_is_require=True, dgamma_is_require=True, dbeta_is_require=True):
    """GroupNorm backward (given mean, rstd [N, G]): dx, dgamma [C], dbeta [C]."""
    return list(_gn_backward(_f(dy), _f(x), _f(mean), _f(rstd), _f(gamma), num_groups))


def group_norm_swish_grad(dy, mean, rstd, x, gamma, beta, dx=None, dgamma=None, dbeta=None, num_groups=1,
                          data_format="NCHW", swish_scale=1.0, dgamma_is_require=True, dbeta_is_require=True):
    """Backward of GroupNormSwish: the GroupNorm output z is rebuilt from x, mean, rstd, gamma,
    beta; dz = dy * d swish(z) / dz, then the GroupNorm backward."""
    v, g, b = _f(x), _f(gamma), _f(beta)
    n = v.shape[0]
    G = int(num_groups)
    m, r = _f(mean).reshape(n, G, 1), _f(rstd).reshape(n, G, 1)
    xhat = ((_groups(v, G) - m) * r).reshape(v.shape)
    z = xhat * _chan(g, v) + _chan(b, v)
    s = float(swish_scale)
    sig = 1.0 / (1.0 + np.exp(-s * z))
    dz = _f(dy) * (sig + s * z * sig * (1.0 - sig))
    return list(_gn_backward(dz, v, _f(mean), _f(rstd), g, G))
