"""Golden for Silu."""
import numpy as np

try:
    import ml_dtypes
    _BF16 = ml_dtypes.bfloat16
except ImportError:  # bf16 cases need ml_dtypes
    _BF16 = None

_DTYPES = {"float16": np.float16, "float": np.float32, "float32": np.float32, "bfloat16": _BF16}


def _value(tensor):
    return tensor["value"] if isinstance(tensor, dict) else np.asarray(tensor)


def _dtype(tensor):
    if isinstance(tensor, dict):
        return np.dtype(_DTYPES[str(tensor["dtype"]).lower()])
    return np.asarray(tensor).dtype


def calc_expect_func(x, y):
    """y = x * sigmoid(x), computed in fp32."""
    xv = _value(x).astype(np.float32)
    res = xv / (np.float32(1.0) + np.exp(-xv))
    return [res.astype(_dtype(y))]
