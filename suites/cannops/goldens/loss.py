"""Our numpy goldens for cann-ops ``src/loss`` operators, written from each operator's README /
docs and OpDef (msopst calling convention). Results in float64, cast by the caller."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _given(t) -> bool:
    return t is not None and isinstance(t, dict) and "value" in t


def mse_loss_v2(input, target, output, reduction="mean"):  # noqa: A002 - the operator's tensor name
    """(input - target)^2: mean, sum or element-wise ('none')."""
    d = (_f(input) - _f(target)) ** 2
    if reduction == "mean":
        return [np.array([d.mean()]).reshape(tuple(output["shape"]))]
    if reduction == "sum":
        return [np.array([d.sum()]).reshape(tuple(output["shape"]))]
    return [d]


def mse_loss_grad_v2(predict, label, dout, y, reduction="mean"):
    """2 (predict - label) dout, divided by the element count for 'mean'."""
    g = 2.0 * (_f(predict) - _f(label)) * _f(dout)
    return [g / g.size if reduction == "mean" else g]


def _log_softmax(v):
    m = v.max(axis=-1, keepdims=True)
    return v - m - np.log(np.exp(v - m).sum(axis=-1, keepdims=True))


def _ce_terms(lp, target, weight, ignore_index, label_smoothing):
    n, c = lp.shape
    t = np.asarray(target["value"]).astype(np.int64).reshape(-1)
    w = _f(weight).reshape(-1) if _given(weight) else np.ones(c)
    keep = t != ignore_index
    ts = np.where(keep, t, 0)
    wt = np.where(keep, w[ts], 0.0)
    return t, w, keep, ts, wt


def cross_entropy_loss(input, target, weight=None, loss=None, log_prob=None, zloss=None, lse_for_zloss=None,  # noqa: A002
                       reduction="mean",
                       ignore_index=-100, label_smoothing=0.0, lse_square_scale_for_zloss=0.0, return_zloss=False):
    """Cross entropy of logits [N, C] with class targets [N] (optional class weights):
    log_prob = log_softmax(input); loss_i = -(1 - ls) w[t_i] log_prob[i, t_i] - ls / C sum_c
    w[c] log_prob[i, c] (0 for ignore_index); 'mean' divides by the summed target weights, 'sum'
    adds, 'none' keeps [N]. zloss / lse_for_zloss are not checked: the operator's aclnn document
    lists the zloss outputs as not supported yet (lse_square_scale_for_zloss and return_zloss take
    only nullptr), and its kernel does not write them."""
    x = _f(input)
    lp = _log_softmax(x)
    n, c = lp.shape
    t, w, keep, ts, wt = _ce_terms(lp, target, weight, ignore_index, label_smoothing)
    nll = -wt * lp[np.arange(n), ts]
    smooth = -(lp * w).sum(axis=-1) * keep
    per = (1.0 - label_smoothing) * nll + label_smoothing / c * smooth
    if reduction == "mean":
        denom = wt.sum()
        out = np.array([per.sum() / denom if denom else 0.0])
    elif reduction == "sum":
        out = np.array([per.sum()])
    else:
        out = per
    return [out.reshape(tuple(loss["shape"])), lp, None, None]


def cross_entropy_loss_grad(grad_loss, log_prob, target, weight=None, grad_zloss=None, lse_for_zloss=None,
                            x_grad=None, reduction="mean", ignore_index=-100, label_smoothing=0.0, lse_square_scale_for_zloss=0.0):
    """Gradient of cross_entropy_loss w.r.t. the logits, from its log_prob output:
    g_i * (w[t_i] (1 - ls) (softmax - onehot) + ls / C (softmax sum_c w[c] - w)) for kept rows,
    g the incoming gradient (a scalar divided by the summed target weights for 'mean')."""
    lp = _f(log_prob)
    n, c = lp.shape
    t, w, keep, ts, wt = _ce_terms(lp, target, weight, ignore_index, label_smoothing)
    p = np.exp(lp)
    onehot = np.zeros_like(p)
    onehot[np.arange(n), ts] = 1.0
    g = _f(grad_loss).reshape(-1)
    if reduction == "mean":
        denom = wt.sum()
        g = np.full(n, g[0] / denom if denom else 0.0)
    elif reduction == "sum":
        g = np.full(n, g[0])
    nll_grad = wt[:, None] * (p - onehot)
    smooth_grad = p * w.sum() - w  # d/dx of -sum_c w_c lp_c
    smooth_grad = smooth_grad * keep[:, None]
    grad = (1.0 - label_smoothing) * nll_grad + label_smoothing / c * smooth_grad
    return [grad * g[:, None]]
