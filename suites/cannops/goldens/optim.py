"""Our numpy goldens for cann-ops ``src/optim`` operators, from each operator's README formulas
and OpDef (msopst calling convention). Results in float64, cast by the caller."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def apply_fused_ema_adam(grad, var, m, v, s, step, var_out, m_out, v_out, s_out, lr=1e-3, ema_decay=0.9999,
                         beta1=0.9, beta2=0.999, eps=1e-8, mode=1, bias_correction=True, weight_decay=0.0):
    """Adam (mode 0: L2 weight decay folded into grad; mode 1: decoupled, AdamW) followed by an
    exponential moving average s of the updated var. Returns var, m, v, s."""
    g, x, mm, vv, ss = (_f(t) for t in (grad, var, m, v, s))
    t = float(np.asarray(step["value"]).reshape(-1)[0])
    c1, c2 = (1.0 - beta1 ** t, 1.0 - beta2 ** t) if bias_correction else (1.0, 1.0)
    if int(mode) == 0:
        g = g + weight_decay * x
    mm = beta1 * mm + (1.0 - beta1) * g
    vv = beta2 * vv + (1.0 - beta2) * g * g
    upd = (mm / c1) / (np.sqrt(vv / c2) + eps)
    if int(mode) == 1:
        upd = upd + weight_decay * x
    x = x - lr * upd
    ss = ema_decay * ss + (1.0 - ema_decay) * x
    return [x, mm, vv, ss]


def apply_adam_wv2(var, m, v, grad, step, max_grad_norm=None, lr=0.1, beta1=0.1, beta2=0.1, weight_decay=0.1,
                   eps=0.1, amsgrad=False, maximize=False):
    """AdamW, in place on var, m, v (and max_grad_norm with amsgrad): var is first decayed by
    lr * weight_decay, then moved by lr * m_hat / (sqrt(v_hat) + eps); maximize flips grad.
    Returns var, m, v."""
    g = -_f(grad) if maximize else _f(grad)
    x, mm, vv = _f(var), _f(m), _f(v)
    t = float(np.asarray(step["value"]).reshape(-1)[0])
    x = x * (1.0 - lr * weight_decay)
    mm = beta1 * mm + (1.0 - beta1) * g
    vv = beta2 * vv + (1.0 - beta2) * g * g
    vmax = np.maximum(_f(max_grad_norm), vv) if amsgrad and max_grad_norm is not None else vv
    x = x - lr * (mm / (1.0 - beta1 ** t)) / (np.sqrt(vmax / (1.0 - beta2 ** t)) + eps)
    return [x, mm, vv]


def apply_adam_wv2(var, m, v, grad, step, *rest, lr=0.1, beta1=0.1, beta2=0.1, weight_decay=0.1, eps=0.1,
                   amsgrad=False, maximize=False):
    """AdamW, updating var, m, v (and max_grad_norm with amsgrad) in place; step t is used as
    given: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2 (g negated when maximize); with amsgrad
    max_grad_norm = max(max_grad_norm, v) replaces v below; var = var - lr * wd * var - lr *
    (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps). The outputs share the inputs' names, so the
    arguments bind by position: rest is [max_grad_norm,] then the output dicts."""
    n_out = 4 if amsgrad else 3
    mgn = rest[0] if len(rest) > n_out else None
    x, mm, vv, g = (_f(t) for t in (var, m, v, grad))
    if maximize:
        g = -g
    t = float(np.asarray(step["value"]).reshape(-1)[0])
    mm = beta1 * mm + (1 - beta1) * g
    vv = beta2 * vv + (1 - beta2) * g * g
    vmax = np.maximum(_f(mgn), vv) if amsgrad and mgn is not None else vv
    denom = np.sqrt(vmax / (1 - beta2 ** t)) + eps
    out = x - lr * weight_decay * x - lr * (mm / (1 - beta1 ** t)) / denom
    return [out, mm, vv, vmax] if amsgrad else [out, mm, vv]
