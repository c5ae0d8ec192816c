"""Our numpy goldens for cann-ops ``src/matmul`` operators, written from each operator's docs /
README and OpDef (msopst calling convention: one dict per input, one per output, then
attributes). Products are formed in float64 from the (already rounded) inputs, as the cube
unit's float32 / int32 accumulation approximates; the caller casts to the output dtype."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    return np.asarray(t["value"]).astype(np.float64)


def _opt(t) -> np.ndarray | None:
    if not isinstance(t, dict) or t.get("value") is None:
        return None
    return _f(t)


def _t(v: np.ndarray, flag) -> np.ndarray:
    return np.swapaxes(v, -1, -2) if flag else v


def mat_mul_v3(x1, x2, bias=None, offset_w=None, y=None, transpose_x1=False, transpose_x2=False, offset_x=0,
               enable_hf32=False):
    """y = op(x1) @ op(x2) (+ bias [N]); op transposes when transpose_x* is set."""
    out = _t(_f(x1), transpose_x1) @ _t(_f(x2), transpose_x2)
    b = _opt(bias)
    return [out + b if b is not None else out]


def batch_mat_mul_v3(x1, x2, bias=None, offset_w=None, y=None, adj_x1=False, adj_x2=False, offset_x=0,
                     enable_hf32=False):
    """Batched (broadcast batch dims) op(x1) @ op(x2) (+ bias [N]); adj_x* transposes the last two
    dims."""
    out = np.matmul(_t(_f(x1), adj_x1), _t(_f(x2), adj_x2))
    b = _opt(bias)
    return [out + b if b is not None else out]


def gemm_v2(a, b, alpha, beta, c, c_out=None, transpose_a=False, transpose_b=False):
    """c = alpha * op(a) @ op(b) + beta * c (c updated in place; alpha, beta one-element
    tensors)."""
    al = _f(alpha).reshape(-1)[0]
    be = _f(beta).reshape(-1)[0]
    return [al * (_t(_f(a), transpose_a) @ _t(_f(b), transpose_b)) + be * _f(c)]


def mmad(a, b, bias, c):
    """c = a [M, K] @ b [K, N] + bias [N] (float16 operands, float32 result)."""
    return [_f(a) @ _f(b) + _f(bias).reshape(-1)]


def complex_mat_mul(x, y, bias=None, z=None):
    """Batched complex64 z = x @ y (+ bias)."""
    out = np.matmul(np.asarray(x["value"]).astype(np.complex128), np.asarray(y["value"]).astype(np.complex128))
    if isinstance(bias, dict) and bias.get("value") is not None:
        out = out + np.asarray(bias["value"]).astype(np.complex128)
    return [out]


def quant_batch_matmul_v3(x1, x2, scale, offset=None, bias=None, pertoken_scale=None, y=None, dtype=1,
                          transpose_x1=False, transpose_x2=False):
    """int8 x1 @ x2 accumulated in int32, dequantised: (acc + bias) * scale [N] (times
    pertoken_scale [M] when given) with an int32 bias; acc * scale * pertoken_scale + bias with a
    float / bfloat16 bias; int8 output rounded (half to even) after adding offset and saturated."""
    acc = np.matmul(_t(_f(x1), transpose_x1), _t(_f(x2), transpose_x2))
    sc = _f(scale).reshape(-1)
    if isinstance(scale, dict) and "int" in str(scale.get("dtype", "")):
        # uint64 / int64: TransQuantParamV2's form, the float32 scale's bits in the low 32 bits
        sc = (np.asarray(scale["value"]).astype(np.uint64).reshape(-1) & np.uint64(0xFFFFFFFF)).astype(
            np.uint32).view(np.float32).astype(np.float64)
    pt = _opt(pertoken_scale)
    b = _opt(bias)
    int_bias = isinstance(bias, dict) and "int" in str(bias.get("dtype", ""))
    if b is not None and int_bias:
        acc = acc + b
    out = acc * sc
    if pt is not None:
        out = out * pt.reshape(-1)[:, None]
    if b is not None and not int_bias:
        out = out + b
    off = _opt(offset)
    if off is not None:
        out = out + off.reshape(-1)
    if int(dtype) == 2:  # DT_INT8
        out = np.clip(np.rint(out), -128, 127)
    return [out]


def weight_quant_batch_matmul_v2(x, weight, antiquant_scale, antiquant_offset=None, quant_scale=None,
                                 quant_offset=None, bias=None, y=None, transpose_x=False, transpose_weight=False,
                                 antiquant_group_size=0, dtype=-1, inner_precise=0):
    """y = op(x) @ ((op(weight) + antiquant_offset) * antiquant_scale) (+ bias): the int8 weight
    [K, N] dequantised per output channel (scale/offset [N]) or per group of
    antiquant_group_size rows of K (scale/offset [K / group, N]). With float16 data each step of
    ANTIQUANT yields float16 (the sum, then the product), as elementwise arithmetic on fp16
    tensors does; the matmul and the bias accumulate in float."""
    w = _t(_f(weight), transpose_weight)  # [K, N]
    k = w.shape[-2]
    sc = _f(antiquant_scale)
    off = _opt(antiquant_offset)

    def expand(v):
        v = v.reshape(-1, w.shape[-1]) if not transpose_weight else _t(v.reshape(w.shape[-1], -1), True)
        if v.shape[0] == 1:
            return v
        return np.repeat(v, int(antiquant_group_size) or (k // v.shape[0]), axis=0)[:k]
    xdt = np.asarray(x["value"]).dtype
    wq = w + (expand(off) if off is not None else 0.0)
    if xdt == np.float16:  # fp16 tensors: weight + antiquantOffset is an fp16 result before the product
        wq = wq.astype(np.float16).astype(np.float64)
    wq = (wq * expand(sc)).astype(xdt).astype(np.float64)
    out = _t(_f(x), transpose_x) @ wq
    b = _opt(bias)
    return [out + b if b is not None else out]
