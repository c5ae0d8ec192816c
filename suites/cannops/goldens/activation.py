"""Our numpy goldens for cann-ops ``src/activation`` operators, written from each operator's
README / docs and OpDef (msopst calling convention: one dict per input, one per output, then
attributes). Results are computed in float64 and cast to the output dtype by the caller;
quantised outputs are rounded half to even and saturated to int8 here."""

from __future__ import annotations

import numpy as np
from scipy.special import erf


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _sigmoid(v):
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def _gelu(v, approximate: int):
    """GELU: the tanh approximation (approximate = 1) or the erf form (0)."""
    if int(approximate) == 1:
        return 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v ** 3)))
    return 0.5 * v * (1.0 + erf(v / np.sqrt(2.0)))


def _gelu_grad(v, approximate: int):
    if int(approximate) == 1:
        c = np.sqrt(2.0 / np.pi)
        t = np.tanh(c * (v + 0.044715 * v ** 3))
        return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * v * v)
    return 0.5 * (1.0 + erf(v / np.sqrt(2.0))) + v * np.exp(-0.5 * v * v) / np.sqrt(2.0 * np.pi)


def _halves(v, dim):
    a, b = np.split(v, 2, axis=int(dim))
    return a, b


def _quant_int8(v):
    return np.clip(np.rint(v), -128, 127)


def swi_glu(x, y, dim=-1):
    """Swish(A) * B, A and B the first and second halves of x along ``dim``."""
    a, b = _halves(_f(x), dim)
    return [a * _sigmoid(a) * b]


def swi_glu_grad(y_grad, x, x_grad, dim=-1):
    """Gradient of swi_glu w.r.t. x: [dy * B * sig(A) (1 + A (1 - sig(A))), dy * A sig(A)]."""
    a, b = _halves(_f(x), dim)
    g = _f(y_grad)
    s = _sigmoid(a)
    return [np.concatenate([g * b * s * (1.0 + a * (1.0 - s)), g * a * s], axis=int(dim))]


def _geglu(x, dim, approximate, activate_left):
    a, b = _halves(_f(x), dim)
    act, other = (a, b) if activate_left else (b, a)
    g = _gelu(act, approximate)
    return [other * g, g]


def ge_glu_v2(x, y, gelu, dim=-1, approximate=1, activate_left=False):
    """x split in halves along ``dim``; GELU of the right half (the left with activate_left)
    times the other half; also returns that GELU."""
    return _geglu(x, dim, approximate, activate_left)


def ge_glu_v3(x, y, gelu, dim=-1, approximate=1, activate_left=False):
    """As ge_glu_v2."""
    return _geglu(x, dim, approximate, activate_left)


def ge_glu_grad_v2(dy, x, gelu, dx, dim=-1, approximate=1, activate_left=False):
    """Gradient of ge_glu_v2 w.r.t. x: the plain half gets dy * gelu (the forward's GELU output,
    an input here), the activated half dy * other * gelu'(act)."""
    a, b = _halves(_f(x), dim)
    act, other = (a, b) if activate_left else (b, a)
    g = _f(dy)
    d_other = g * _f(gelu)
    d_act = g * other * _gelu_grad(act, approximate)
    parts = [d_act, d_other] if activate_left else [d_other, d_act]
    return [np.concatenate(parts, axis=int(dim))]


def gelu_quant(x, input_scale=None, input_offset=None, y=None, out_scale=None, approximate="none", quant_mode="dynamic"):
    """GELU (approximate 'tanh' or 'none': erf) then int8 quantisation. static: round(g *
    scale + offset); dynamic: per row (last axis) g * scale, divided by max|.| / 127, with that
    divisor as out_scale. out_scale is not computed in static mode (None: the aclnn document
    defines outScale with the dynamic formula only; the static kernels never write it)."""
    g = _gelu(_f(x), 1 if approximate == "tanh" else 0)
    sc = _f(input_scale) if input_scale is not None and "value" in input_scale else 1.0
    if quant_mode == "static":
        off = _f(input_offset) if input_offset is not None and "value" in input_offset else 0.0
        return [_quant_int8(g * sc + off), None]
    v = g * sc
    s = np.abs(v).max(axis=-1, keepdims=True) / 127.0
    s = np.where(s == 0, 1.0, s)
    return [_quant_int8(v / s), s.reshape(tuple(out_scale["shape"]))]


def dequant_swiglu_quant(x, weight_scale=None, activation_scale=None, bias=None, quant_scale=None,
                         quant_offset=None, group_index=None, y=None, scale=None, activate_left=False,
                         quant_mode="static"):
    """x (int32: dequantised by weight_scale [H] and activation_scale [rows, 1], plus bias),
    SwiGlu over the last axis (the left half activated with activate_left, else the right),
    times quant_scale; dynamic mode: per-row int8 quantisation by max|.| / 127 (scale is that
    divisor), static: round(v + quant_offset)."""
    v = _f(x)
    if weight_scale is not None and "value" in weight_scale:
        v = v * _f(weight_scale)
    if activation_scale is not None and "value" in activation_scale:
        v = v * _f(activation_scale).reshape(-1, 1)
    if bias is not None and "value" in bias:
        v = v + _f(bias)
    a, b = _halves(v, -1)
    act, other = (a, b) if activate_left else (b, a)
    s = act * _sigmoid(act) * other
    if quant_scale is not None and "value" in quant_scale:
        s = s * _f(quant_scale)
    if quant_mode == "static":
        off = _f(quant_offset) if quant_offset is not None and "value" in quant_offset else 0.0
        return [_quant_int8(s + off), np.ones(tuple(scale["shape"]))]
    d = np.abs(s).max(axis=-1, keepdims=True) / 127.0
    d = np.where(d == 0, 1.0, d)
    return [_quant_int8(s / d), d.reshape(tuple(scale["shape"]))]
