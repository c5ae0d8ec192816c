"""Golden for CastCustom (msopst calc_expect_func)."""
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


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


_ROUNDERS = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "round": _round_half_away,
             "trunc": np.trunc}


def calc_expect_func(x, y, round_mode="rint"):
    """y = cast(x); float->int32 rounds by round_mode, float narrowing rounds to nearest even."""
    xv = _value(x)
    out = _dtype(y)
    if np.issubdtype(out, np.integer):
        res = _ROUNDERS[round_mode](xv.astype(np.float64))
        return [res.astype(out)]
    return [xv.astype(np.float32).astype(out)]
