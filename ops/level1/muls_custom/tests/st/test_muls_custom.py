"""Golden for MulsCustom (msopst calc_expect_func)."""
import numpy as np

try:
    import ml_dtypes
    _BF16 = ml_dtypes.bfloat16
except ImportError:  # only the bf16 cases need ml_dtypes
    _BF16 = None

_DTYPES = {"float16": np.float16, "float": np.float32, "float32": np.float32, "bfloat16": _BF16,
           "int32": np.int32, "bool": np.bool_}


def _value(tensor):
    """The array of an msopst tensor description (or a bare array)."""
    return np.asarray(tensor["value"] if isinstance(tensor, dict) else tensor)


def _dtype(tensor):
    """numpy dtype of an msopst tensor description (or of a bare array)."""
    if isinstance(tensor, dict):
        return np.dtype(_DTYPES[str(tensor["dtype"]).lower()])
    return np.asarray(tensor).dtype


def calc_expect_func(x, y, value):
    """y = x * value. fp16/int32 multiply by the value in the input dtype, bf16 in fp32."""
    xv = _value(x)
    out = _dtype(y)
    if np.issubdtype(xv.dtype, np.integer):
        res = xv.astype(np.int64) * np.int64(int(value))
    elif xv.dtype == np.float16:
        res = xv.astype(np.float32) * np.float32(np.float16(value))
    else:
        res = xv.astype(np.float32) * np.float32(value)
    return [res.astype(out)]
