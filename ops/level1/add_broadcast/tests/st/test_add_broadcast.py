"""Golden for AddBroadcast (msopst calc_expect_func)."""
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


def calc_expect_func(x, y, z):
    """z = x + y with numpy broadcasting of y along x's leading axes; fp32 add, one rounding."""
    res = _value(x).astype(np.float32) + _value(y).astype(np.float32)
    return [res.astype(_dtype(z))]
