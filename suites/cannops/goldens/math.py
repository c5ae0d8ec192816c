"""Our numpy goldens for cann-ops ``src/math`` operators (the repository's own goldens import
TensorFlow or PyTorch). Each is written from the operator's documented semantics: msopst
calls it with one dict per input (``value``, ``dtype``, ...), one per output, then attributes.
Results are computed in float64/float32 and cast to the output dtype by the caller."""

from __future__ import annotations

import numpy as np


def _f(t: dict) -> np.ndarray:
    """A tensor's values as float64 (bfloat16/float16 widened)."""
    return np.asarray(t["value"]).astype(np.float64)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def abs_(x, y):
    return [np.abs(x["value"])]


def add(x, y, z=None):
    return [np.asarray(x["value"]) + np.asarray(y["value"])]


def sub(x, y, z=None):
    return [np.asarray(x["value"]) - np.asarray(y["value"])]


def addcmul(input_data, x1, x2, value, y):
    """input_data + value * x1 * x2."""
    if np.issubdtype(np.asarray(input_data["value"]).dtype, np.integer):
        v = np.asarray(value["value"]).reshape(-1)[0]
        return [input_data["value"] + v * x1["value"] * x2["value"]]
    return [_f(input_data) + _f(value).reshape(-1)[0] * _f(x1) * _f(x2)]


def arange(start, end, step, out):
    """start, start + step, ... below end (the output's length)."""
    s, st = np.asarray(start["value"]).reshape(-1)[0], np.asarray(step["value"]).reshape(-1)[0]
    n = int(np.prod(out["shape"]))
    return [s + st * np.arange(n)]


def clip_by_value(x, clip_value_min, clip_value_max, y):
    """max(min(x, clip_value_max), clip_value_min) (the lower bound wins when they cross)."""
    lo = np.asarray(clip_value_min["value"]).reshape(-1)[0]
    hi = np.asarray(clip_value_max["value"]).reshape(-1)[0]
    return [np.maximum(np.minimum(x["value"], hi), lo)]


def cos(x, y):
    return [np.cos(_f(x))]


def sin(x, y):
    return [np.sin(_f(x))]


def sqrt(x, y):
    return [np.sqrt(_f(x))]


def rsqrt(x, y):
    return [1.0 / np.sqrt(_f(x))]


def reciprocal(x, y):
    return [1.0 / _f(x)]


def cross(x1, x2, y, dim=1):
    """Vector cross product along ``dim`` (of length 3)."""
    a, b = np.asarray(x1["value"]), np.asarray(x2["value"])
    return [np.cross(a, b, axis=dim)]


def eye(y_in, y_out, *, num_rows=1, num_columns=-1, batch_shape=(), dtype=0):
    """Batches of identity matrices (num_rows x num_columns; num_columns <= 0: square). The
    operator's one tensor is both its input and its output (``y``)."""
    cols = num_columns if num_columns and num_columns > 0 else num_rows
    m = np.eye(num_rows, cols)
    return [np.broadcast_to(m, tuple(y_out["shape"]))]


def fast_gelu(x, y):
    """x * sigmoid(1.702 x), the fast GELU approximation."""
    v = _f(x)
    return [v * _sigmoid(1.702 * v)]


def fast_gelu_grad(dy, x, z):
    """dy * d/dx [x * sigmoid(1.702 x)]."""
    v = _f(x)
    s = _sigmoid(1.702 * v)
    return [_f(dy) * (s + 1.702 * v * s * (1.0 - s))]


def gelu_grad(dy, x, y, z):
    """dy * d/dx GELU(x), GELU in its tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    v = _f(x)
    c = np.sqrt(2.0 / np.pi)
    inner = c * (v + 0.044715 * v ** 3)
    t = np.tanh(inner)
    d = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * v * v)
    return [_f(dy) * d]


def lerp(start, end, weight, y):
    s = _f(start)
    return [s + _f(weight) * (_f(end) - s)]


def logical_or(x1, x2, y):
    return [np.logical_or(x1["value"], x2["value"])]


def logical_not(x, y):
    return [np.logical_not(x["value"])]


def spence(x, y):
    """Spence's integral (dilogarithm) for x >= 0, as scipy.special.spence defines it."""
    from scipy.special import spence as _spence

    return [_spence(_f(x))]


def swish(x, y, scale=1.0):
    """x * sigmoid(scale * x)."""
    v = _f(x)
    return [v * _sigmoid(scale * v)]


def tril(x, y, diagonal=0):
    return [np.tril(x["value"], diagonal)]


def triu(x, y, diagonal=0):
    return [np.triu(x["value"], diagonal)]


def xlogy(x1, x2, y):
    """x1 * log(x2), 0 where x1 == 0."""
    a, b = _f(x1), _f(x2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a * np.log(b)
    return [np.where(a == 0, 0.0, r)]


def greater_equal(x1, x2, y):
    return [np.asarray(x1["value"]) >= np.asarray(x2["value"])]


def less_equal(x1, x2, y):
    return [np.asarray(x1["value"]) <= np.asarray(x2["value"])]


def less(x1, x2, y):
    return [np.asarray(x1["value"]) < np.asarray(x2["value"])]


def equal(x1, x2, y):
    return [np.asarray(x1["value"]) == np.asarray(x2["value"])]


def neg(x, y):
    return [-np.asarray(x["value"])]


def tanh(x, y):
    return [np.tanh(_f(x))]


def is_finite(x, y):
    return [np.isfinite(_f(x))]


def is_inf(x, y):
    return [np.isinf(_f(x))]


def trunc(input_x, output_y):
    return [np.trunc(_f(input_x))]


def dawsn(x, y):
    """Dawson's integral, as scipy.special.dawsn defines it."""
    from scipy.special import dawsn as _dawsn

    return [_dawsn(_f(x))]


# --------------------------------------------------------------------------------------------
# The rest of src/math (written from each operator's README / docs and OpDef). Scalars given as
# one-element tensors are read with _scalar; reductions run in float64.

def _scalar(t: dict):
    return np.asarray(t["value"]).reshape(-1)[0]


def _softmax(v: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _layer_norm(v: np.ndarray, gamma, beta, eps: float) -> np.ndarray:
    mean = v.mean(axis=-1, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=-1, keepdims=True)
    return (v - mean) / np.sqrt(var + eps) * gamma + beta


def _strided(x: dict, n: int, inc: int) -> np.ndarray:
    """The first ``n`` elements of a BLAS vector with stride ``inc`` (n <= 0: all of them)."""
    v = np.asarray(x["value"]).reshape(-1)
    inc = max(int(inc), 1)
    count = (v.size + inc - 1) // inc if n <= 0 else int(n)
    return v[: count * inc: inc]


def add_sigmoid_mul_reduce_sum_d(add_0_input0, add_0_input1, mul_0_input1, mult_1_input1, mult_2_input1, out):
    """ND layout: sum over axis 1 of sigmoid((a + b) * s) * m1 * m2, with a, m2 [B, S, C], b [1, 1, C],
    s a scalar, m1 [B, S, 1]: out [B, C]."""
    v = 1.0 / (1.0 + np.exp(-(_f(add_0_input0) + _f(add_0_input1)) * float(_scalar(mul_0_input1))))
    v = v * _f(mult_1_input1) * _f(mult_2_input1)
    return [v.sum(axis=1)]


def addcdiv(input_data, x1, x2, value, y):
    """input_data + value * x1 / x2 (value: a scalar, its first element)."""
    return [_f(input_data) + float(_scalar(value)) * _f(x1) / _f(x2)]


def angle_v2(x, y):
    """The argument in radians: atan2(imag, real) for complex input; 0 for x >= 0 and pi for x < 0
    for real input."""
    v = np.asarray(x["value"])
    if np.iscomplexobj(v):
        return [np.angle(v.astype(np.complex128))]
    if v.dtype == np.bool_ or np.issubdtype(v.dtype, np.unsignedinteger):
        return [np.zeros(v.shape)]
    v = v.astype(np.float64)
    return [np.where(np.isnan(v), v, np.where(v < 0, np.pi, 0.0))]


def bev_pool(depth, feat, ranks_depth, ranks_feat, ranks_bev, interval_starts, interval_lengths, out,
             bev_feat_shape=()):
    """BEV pooling as this operator defines it (its kernel and its own test): the ranks are flat
    element indices. For every point j of every interval [s_i, s_i + l_i), the BEV element
    ranks_bev[j] of a grid bev_feat_shape = [B, D, H, W, C] gains depth.flat[ranks_depth[j]] *
    feat.flat[ranks_feat[j]]; untouched elements are 0. The output is laid out [B, C, D, H, W]."""
    shape = tuple(int(v) for v in bev_feat_shape)
    dep, fea = _f(depth).reshape(-1), _f(feat).reshape(-1)
    rd, rf, rb = (np.asarray(t["value"]).reshape(-1).astype(np.int64) for t in (ranks_depth, ranks_feat, ranks_bev))
    grid = np.zeros(int(np.prod(shape)))
    for s, n in zip(np.asarray(interval_starts["value"]).reshape(-1), np.asarray(interval_lengths["value"]).reshape(-1)):
        j = np.arange(int(s), int(s) + int(n))
        np.add.at(grid, rb[j], dep[rd[j]] * fea[rf[j]])
    return [grid.reshape(shape).transpose(0, 4, 1, 2, 3)]


def cast(x, y, dst_type=0):
    """x converted to the output's dtype (dst_type names it as a ge::DataType code): floats to
    integers round toward zero, to bool by != 0."""
    v = np.asarray(x["value"])
    out = y["dtype"]
    if out == "bool":
        return [v != 0]
    if out.startswith(("int", "uint")) and (v.dtype.kind == "f" or str(v.dtype) == "bfloat16"):
        return [np.trunc(v.astype(np.float64))]
    return [v.astype(np.float64) if v.dtype.kind in "fb" else v]


def ccopy(x, y, n=0, incx=1, incy=1):
    """BLAS copy of a complex vector: y[i * incy] = x[i * incx] for i < n (n <= 0: the whole
    vector); elements of y it does not write are 0 here."""
    return [_blas_copy(x, y, n, incx, incy)]


def scopy(x, y, n=0, incx=1, incy=1):
    """BLAS copy of a real vector (see ccopy)."""
    return [_blas_copy(x, y, n, incx, incy)]


def _blas_copy(x, y, n, incx, incy):
    src = _strided(x, n, incx)
    size = int(np.prod(y["shape"]))
    res = np.zeros(size, dtype=np.asarray(x["value"]).dtype)
    step = max(int(incy), 1)
    count = min(src.size, (size + step - 1) // step)
    res[: count * step: step] = src[:count]
    return res


def complex_mat_dot(matx, maty, result, m=1, n=1):
    """Element-wise product of two complex matrices."""
    return [np.asarray(matx["value"]).astype(np.complex128) * np.asarray(maty["value"]).astype(np.complex128)]


def diag_v2(x, y, diagonal=0):
    """The ``diagonal``-th diagonal of a 2-D input (above the main one for > 0)."""
    return [np.diagonal(np.asarray(x["value"]), offset=int(diagonal)).copy()]


def expand_v2(x, y, shape=()):
    """x broadcast to ``shape``."""
    return [np.broadcast_to(np.asarray(x["value"]), tuple(int(s) for s in shape))]


def eye_fp64(y_in, y_out, *, num_rows=1, num_columns=-1, batch_shape=(), dtype=0):
    """As eye (double among the dtypes)."""
    return eye(y_in, y_out, num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype)


def fill(dims, value, y):
    """A tensor of shape ``dims`` (the output's shape) filled with the scalar ``value``."""
    return [np.full(tuple(y["shape"]), _scalar(value))]


def gather(x1, indices, y, validate_indices=True, batch_dims=0, is_preprocessed=False,
           negative_index_support=False):
    """Rows of x1 along axis 0 picked by ``indices`` (y shape = indices.shape + x1.shape[1:]);
    negative indices count from the end."""
    v = np.asarray(x1["value"])
    idx = np.asarray(indices["value"]).astype(np.int64)
    idx = np.where(idx < 0, idx + v.shape[0], idx)
    return [np.take(v, idx, axis=0)]


def gcd(x1, x2, y):
    """Element-wise greatest common divisor (non-negative), with broadcasting."""
    return [np.gcd(np.asarray(x1["value"]).astype(np.int64), np.asarray(x2["value"]).astype(np.int64))]


def gelu(x, y):
    """GELU in its tanh form: x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3))."""
    v = _f(x)
    return [v * _sigmoid(2.0 * np.sqrt(2.0 / np.pi) * (v + 0.044715 * v ** 3))]


def heaviside(input, values, out):  # noqa: A002 - the operator's tensor name
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0 (broadcast)."""
    v, h = _f(input), _f(values)
    return [np.where(v < 0, 0.0, np.where(v == 0, h, 1.0))]


def histogram_v2(x, min, max, y, bins=100):  # noqa: A002 - the operator's tensor names
    """Counts of x in ``bins`` equal-width bins over [min, max] (both 0: the data's min and max);
    values outside are not counted, max falls in the last bin. The bin of a value is
    (x - min) * bins / (max - min) in float32 for floating inputs, as torch.histc computes it in a
    float tensor's dtype (float64 would move values that sit on a bin edge)."""
    v = np.asarray(x["value"]).reshape(-1)
    ct = np.float32 if np.issubdtype(v.dtype, np.floating) and v.dtype.itemsize <= 4 else np.float64
    v = v.astype(ct)
    lo, hi = ct(_scalar(min)), ct(_scalar(max))
    if lo == 0 and hi == 0:
        lo, hi = v.min(), v.max()
    nb = int(np.prod(y["shape"])) if y.get("shape") else int(bins)
    if lo == hi:
        lo, hi = lo - ct(1), hi + ct(1)
    keep = v[(v >= lo) & (v <= hi)]
    pos = np.minimum(((keep - lo) * ct(nb) / (hi - lo)).astype(np.int64), nb - 1)
    return [np.bincount(pos, minlength=nb)[:nb]]


def _blas_index(values: np.ndarray, largest: bool) -> np.ndarray:
    """1-based index of the first largest (smallest) value, as BLAS i?amax/i?amin return."""
    return np.array([int(np.argmax(values) if largest else np.argmin(values)) + 1])


def icamax(x, result, n=0, incx=1):
    """1-based index of the first element with the largest |re| + |im|."""
    v = _strided(x, n, incx).astype(np.complex128)
    return [_blas_index(np.abs(v.real) + np.abs(v.imag), True)]


def icamin(x, result, n=0, incx=1):
    """1-based index of the first element with the smallest |re| + |im|."""
    v = _strided(x, n, incx).astype(np.complex128)
    return [_blas_index(np.abs(v.real) + np.abs(v.imag), False)]


def isamax(x, result, n=0, incx=1):
    """1-based index of the first element with the largest absolute value (BLAS isamax)."""
    return [_blas_index(np.abs(_strided(x, n, incx).astype(np.float64)), True)]


def isamin(x, result, n=0, incx=1):
    """1-based index of the first element with the smallest absolute value (BLAS isamin)."""
    return [_blas_index(np.abs(_strided(x, n, incx).astype(np.float64)), False)]


def sasum(x, result, n=0, incx=1):
    """Sum of |x_i|."""
    return [np.array([np.abs(_strided(x, n, incx).astype(np.float64)).sum()])]


def scasum(x, result, n=0, incx=1):
    """Sum of |re(x_i)| + |im(x_i)|."""
    v = _strided(x, n, incx).astype(np.complex128)
    return [np.array([(np.abs(v.real) + np.abs(v.imag)).sum()])]


def snrm2(x, result, n=0, incx=1):
    """Euclidean norm of a real vector."""
    v = _strided(x, n, incx).astype(np.float64)
    return [np.array([np.sqrt((v * v).sum())])]


def scnrm2(x, result, n=0, incx=1):
    """Euclidean norm of a complex vector: sqrt(sum |x_i|^2)."""
    v = _strided(x, n, incx).astype(np.complex128)
    return [np.array([np.sqrt((np.abs(v) ** 2).sum())])]


def sscal(x, x_out=None, alpha=1.0, n=0, incx=1):
    """In place (the output is x, so arguments bind by position): x[i * incx] *= alpha for i < n."""
    v = np.asarray(x["value"]).reshape(-1).astype(np.float64).copy()
    inc = max(int(incx), 1)
    count = (v.size + inc - 1) // inc if n <= 0 else int(n)
    v[: count * inc: inc] *= alpha
    return [v.reshape(np.shape(x["value"]))]


def kl_div_target_backward(grad_output, self, target, grad_target, reduction=0, log_target=False):
    """Gradient of the KL divergence w.r.t. the target: grad * (target + 1 - self) * exp(target)
    when log_target, else grad * (ln target + 1 - self) (0 where target == 0); divided by
    the element count (the largest of the three inputs') for reduction 1 (mean)."""
    g, s, t = _f(grad_output), _f(self), _f(target)
    if log_target:
        tmp = g * (t + 1.0 - s) * np.exp(t)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            tmp = np.where(t > 0, g * (np.log(np.where(t > 0, t, 1.0)) + 1.0 - s), 0.0)
    if int(reduction) == 1:
        tmp = tmp / max(g.size, s.size, t.size, 1)
    return [np.broadcast_to(tmp, tuple(grad_target["shape"]))]


def lin_space(start, stop, num, output):
    """``num`` evenly spaced values from start to stop, both included."""
    n = int(np.prod(output["shape"]))
    return [np.linspace(float(_scalar(start)), float(_scalar(stop)), n)]


def matmul_api_constant(a, b, bias, c):
    """a @ b + bias, accumulated in float32."""
    return [_f(a).astype(np.float32) @ _f(b).astype(np.float32) + _f(bias).astype(np.float32)]


def matmul_leakyrelu(a, b, bias, c, alpha=0.001):
    """LeakyReLU(a @ b + bias) with negative slope 0.001 (the tiling's fixed alpha)."""
    v = _f(a).astype(np.float32) @ _f(b).astype(np.float32) + _f(bias).astype(np.float32)
    return [np.where(v >= 0, v, v * alpha)]


def moe_soft_max_topk(x, y, indices, k=4):
    """softmax over the last axis, then its k largest values (descending) and their indices
    (the lower index first among equal values)."""
    p = _softmax(_f(x))
    order = np.argsort(-p, axis=-1, kind="stable")[..., : int(k)]
    return [np.take_along_axis(p, order, axis=-1), order]


def mse_loss(predict, label, y, reduction="mean"):
    """(predict - label)^2, averaged ('mean'), summed ('sum') or element-wise ('none')."""
    d = (_f(predict) - _f(label)) ** 2
    if reduction == "mean":
        return [np.array([d.mean()])]
    if reduction == "sum":
        return [np.array([d.sum()])]
    return [d]


def mse_loss_grad_v1(predict, label, dout, y, reduction="mean"):
    """2 (predict - label) dout, divided by the element count for 'mean'."""
    g = 2.0 * (_f(predict) - _f(label)) * _f(dout)
    if reduction == "mean":
        g = g / _f(predict).size
    return [g]


def mul_mul_reduce_mean_d_twice(mul0_input0, mul0_input1, mul1_input0, add_y, gamma, beta, output):
    """Layer norm over the last axis of x = mul0_input0 * mul0_input1 * s (s a scalar), with
    epsilon add_y (a scalar): (x - mean) / sqrt(mean((x - mean)^2) + add_y) * gamma + beta."""
    v = _f(mul0_input0) * _f(mul0_input1) * float(_scalar(mul1_input0))
    return [_layer_norm(v, _f(gamma), _f(beta), float(_scalar(add_y)))]


def mul_sigmoid(x1, x2, out, t1=0.0, t2=0.0, t3=0.0):
    """s = sigmoid(x1 * t1); s doubled where s >= t2; times x2 (x1 [rows, cols], x2
    [1, cols/128, 128] broadcast over rows) and t3; out [rows, cols/128, 128]."""
    s = _sigmoid(_f(x1) * t1)
    s = np.where(s < t2, s, 2.0 * s)
    v = s * _f(x2).reshape(1, -1) * t3
    return [v.reshape(tuple(out["shape"]))]


def mul_sigmoid_mul_add_custom(input, mulscalar1, mulscalar2, addscalar3, outputs):  # noqa: A002
    """sigmoid(input * m1) * m2 + a3 (three scalars)."""
    v = _sigmoid(_f(input) * float(_scalar(mulscalar1)))
    return [v * float(_scalar(mulscalar2)) + float(_scalar(addscalar3))]


def muls(x, value, y):
    """x times the scalar ``value``."""
    v = np.asarray(x["value"])
    s = float(_scalar(value))
    if np.iscomplexobj(v):
        return [v.astype(np.complex128) * s]
    if np.issubdtype(v.dtype, np.integer):
        return [np.trunc(v.astype(np.float64) * s)]
    return [_f(x) * s]


def non_finite_check(tensor_list, found_flag):
    """1.0 when any tensor of the list holds an inf or NaN, else 0.0."""
    tensors = tensor_list if isinstance(tensor_list, (list, tuple)) else [tensor_list]
    bad = any(not np.isfinite(_f(t)).all() for t in tensors)
    return [np.array([1.0 if bad else 0.0])]


def pows(x1, x2, y):
    """x1 ** x2 (broadcast)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return [np.power(_f(x1), _f(x2))]


def pre_layer_norm(x, y, gamma, beta, res_out, epsilon=1e-5):
    """Layer norm over the last axis of x + y with gamma, beta and epsilon."""
    return [_layer_norm(_f(x) + _f(y), _f(gamma), _f(beta), float(epsilon))]


def reshape(x, shape, y, axis=0, num_axes=-1):
    """x's data in the output's shape."""
    return [np.asarray(x["value"]).reshape(tuple(y["shape"]))]


def rfft1_d(x, dft, y, n=0, norm=1):
    """Real FFT over the last axis (n points; norm 1: none, 2: 1/n, 3: 1/sqrt(n)), as
    [..., n/2 + 1, 2] (real, imaginary). ``dft`` is the host-computed matrix the aclnn layer
    passes (cases/rfft1_d_dft.py), not an operand of the result."""
    v = _f(x)
    npts = int(n) if n and n > 0 else v.shape[-1]
    mode = {1: "backward", 2: "forward", 3: "ortho"}.get(int(norm), "backward")
    r = np.fft.rfft(v, n=npts, axis=-1, norm=mode)
    return [np.stack([r.real, r.imag], axis=-1)]


def scatter_max(var, indices, updates, var_out=None, use_locking=False):
    """In place (output var, bound by position): var[indices[i]] = max(var[indices[i]], updates[i]) (rows of var along axis 0)."""
    v = np.asarray(var["value"]).copy()
    for i, row in enumerate(np.asarray(indices["value"]).reshape(-1)):
        v[row] = np.maximum(v[row], np.asarray(updates["value"])[i])
    return [v]


def scatter_sub(var, indices, updates, var_out=None, use_locking=False):
    """In place (output var, bound by position): var[indices[i]] -= updates[i] (rows of var along axis 0; repeats accumulate)."""
    v = np.asarray(var["value"]).astype(np.float64)
    np.subtract.at(v, np.asarray(indices["value"]).reshape(-1), np.asarray(updates["value"]).astype(np.float64))
    return [v]


def scatter_reduce(x, index, src, y, dim=0, reduce="sum", include_self=True):
    """torch.scatter_reduce: y = x with, for every element of index, src's element reduced into
    y at that index along ``dim`` ('sum', 'prod', 'mean', 'amax', 'amin'); include_self=False
    leaves x's own value out of the positions that receive something."""
    out = _f(x).copy()
    idx = np.asarray(index["value"]).astype(np.int64)
    s = _f(src)
    d = int(dim) % out.ndim
    pos = list(np.indices(idx.shape))
    pos[d] = idx
    target = tuple(pos)
    srcv = s[tuple(np.indices(idx.shape))]
    hit = np.zeros(out.shape, dtype=bool)
    hit[target] = True
    count = np.zeros(out.shape)
    np.add.at(count, target, 1.0)
    if not include_self:
        init = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": -np.inf, "amin": np.inf}[reduce]
        out = np.where(hit, init, out)
    if reduce in ("sum", "mean"):
        np.add.at(out, target, srcv)
        if reduce == "mean":
            out = np.where(hit, out / np.maximum(count + (1.0 if include_self else 0.0), 1.0), out)
    elif reduce == "prod":
        np.multiply.at(out, target, srcv)
    elif reduce == "amax":
        np.maximum.at(out, target, srcv)
    elif reduce == "amin":
        np.minimum.at(out, target, srcv)
    else:
        raise ValueError(f"unknown reduce {reduce!r}")
    return [out]


def select_reduce_max_d_sub_exp_reduce_sum_d_real_div(sel, input1, input2, ouput):
    """softmax over the last axis of where(sel, input1, input2)."""
    return [_softmax(np.where(np.asarray(sel["value"]).astype(bool), _f(input1), _f(input2)))]


def strideslice_neg_concat_v2(input, output):  # noqa: A002 - the operator's tensor name
    """The last axis' first half unchanged and its second half negated."""
    v = _f(input)
    half = v.shape[-1] // 2
    return [np.concatenate([v[..., :half], -v[..., half:]], axis=-1)]


def flash_attention_score_with_large_head_dim(query, key, value, softmax_max, softmax_sum, attention_out,
                                              scale_value=1.0, head_num=1):
    """Self-attention over [B, S, H] inputs split into head_num heads of H / head_num:
    softmax(q k^T * scale) v per head; softmax_max / softmax_sum are each row's max and sum of
    exp(score - max), repeated over the outputs' last axis (8)."""
    q, k, v = (_f(t).astype(np.float32) for t in (query, key, value))
    bsz, s1, hdim = q.shape
    s2 = k.shape[1]
    heads = max(int(head_num), 1)
    d = hdim // heads
    qh = q.reshape(bsz, s1, heads, d).transpose(0, 2, 1, 3)
    kh = k.reshape(bsz, s2, heads, d).transpose(0, 2, 1, 3)
    vh = v.reshape(bsz, s2, heads, d).transpose(0, 2, 1, 3)
    score = qh @ kh.transpose(0, 1, 3, 2) * np.float32(scale_value)
    mx = score.max(axis=-1, keepdims=True)
    ex = np.exp(score - mx)
    sm = ex.sum(axis=-1, keepdims=True)
    att = (ex / sm) @ vh
    reps = int(softmax_max["shape"][-1])
    return [np.broadcast_to(mx, (bsz, heads, s1, reps)).reshape(softmax_max["shape"]),
            np.broadcast_to(sm, (bsz, heads, s1, reps)).reshape(softmax_sum["shape"]),
            att.transpose(0, 2, 1, 3).reshape(bsz, s1, hdim)]


def inplace_attn_softmax(x, x_out=None):
    """In place: x = softmax(x) over the last dim."""
    return [_softmax(_f(x))]


def inplace_fused_matmul_softmax_grad(softmaxOutput, gradOutput, values, softmaxOutput_out=None):  # noqa: N803
    """Softmax backward through a matmul, written over softmaxOutput y [..., m, n]: g =
    gradOutput [..., m, k] @ values [..., n, k]^T, result y * (g - sum(g * y, -1))."""
    y = _f(softmaxOutput)
    g = np.matmul(_f(gradOutput), np.swapaxes(_f(values), -1, -2))
    return [y * (g - (g * y).sum(axis=-1, keepdims=True))]
