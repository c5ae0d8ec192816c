"""Seeded input generation for msopst cases."""

from __future__ import annotations

import math

import numpy as np

from ascendopt.dtypes import CaseError, dtype_info
from ascendopt.cases.spec import Case, TensorSpec

# ------------------------------------------------------------------------ input data

def _int_bounds(spec: TensorSpec) -> tuple[int, int]:
    """Inclusive integer bounds of the value range, clipped to the dtype's range."""
    info = np.iinfo(spec.np_dtype) if spec.np_dtype != np.bool_ else np.iinfo(np.uint8)
    hi_cap = 1 if spec.np_dtype == np.bool_ else int(info.max)
    lo, hi = spec.value_range
    low, high = max(math.ceil(lo), int(info.min)), min(math.floor(hi), hi_cap)
    if low > high:  # e.g. [0.1, 0.9] holds no integer: use the nearest one
        low = high = min(max(round((lo + hi) / 2), int(info.min)), hi_cap)
    return low, high


def _shaped(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray | None:
    """Values in [low, high] for the non-uniform distributions, None for uniform.

    ``normal``/``truncated_normal``/``laplace`` are centred on the middle of the range with
    a sixth of its width as scale, clipped to it; ``beta`` is Beta(2, 2) and ``triangular``
    peaks at the middle; ``relu``/``sigmoid``/``tanh``/``softmax`` apply that function to
    uniform draws from the range (softmax along the last axis), like activations would.
    """
    lo, hi = spec.value_range
    mid, scale, shape = (lo + hi) / 2, (hi - lo) / 6, spec.shape
    dist = spec.distribution
    if dist in ("normal", "truncated_normal"):
        return np.clip(rng.normal(mid, scale, size=shape), lo, hi)
    if dist == "laplace":
        return np.clip(rng.laplace(mid, scale, size=shape), lo, hi)
    if dist == "beta":
        return lo + (hi - lo) * rng.beta(2.0, 2.0, size=shape)
    if dist == "triangular":
        return rng.triangular(lo, mid, hi, size=shape) if hi > lo else np.full(shape, lo)
    u = rng.uniform(lo, hi, size=shape)
    if dist == "relu":
        return np.maximum(u, 0.0)
    if dist == "sigmoid":
        return 1.0 / (1.0 + np.exp(-u))
    if dist == "tanh":
        return np.tanh(u)
    if dist == "softmax":
        if u.ndim == 0:
            return np.ones_like(u)
        ex = np.exp(u - u.max(axis=-1, keepdims=True))
        return ex / ex.sum(axis=-1, keepdims=True)
    return None if dist in ("uniform", "random", "randint") else u


def _generate(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    """Random data for one input tensor, following its distribution and value range."""
    info = dtype_info(spec.dtype)
    lo, hi = spec.value_range
    values = _shaped(spec, rng)
    normal = values is not None
    if info.is_complex:
        parts = [_shaped(spec, rng) if normal else rng.uniform(lo, hi, size=spec.shape) for _ in range(2)]
        return (np.asarray(parts[0]) + 1j * np.asarray(parts[1])).astype(info.np_dtype)
    if not normal and info.is_float:
        values = rng.uniform(lo, hi, size=spec.shape)
    if info.is_float:
        return np.asarray(values, dtype=np.float64).astype(info.np_dtype)
    low, high = _int_bounds(spec)
    if normal:
        return np.clip(np.rint(values), low, high).astype(info.np_dtype)
    gen_dtype = np.uint8 if info.is_bool else info.np_dtype
    return np.asarray(rng.integers(low, high, size=spec.shape, dtype=gen_dtype,
                                   endpoint=True)).astype(info.np_dtype)


def _fixed_value(spec: TensorSpec) -> np.ndarray:
    """Data given in the case file (a nested list, or a .bin file path)."""
    if isinstance(spec.value, str):
        try:
            arr = np.fromfile(spec.value, dtype=spec.np_dtype)
        except OSError as err:
            raise CaseError(f"input {spec.key!r}: cannot read {spec.value}: {err}") from None
    else:
        kind = np.complex128 if dtype_info(spec.dtype).is_complex else np.float64
        arr = np.asarray(spec.value, dtype=kind).astype(spec.np_dtype)
    if arr.size != spec.size:
        raise CaseError(f"input {spec.key!r}: value has {arr.size} elements, shape "
                        f"{spec.shape} needs {spec.size}")
    return arr.reshape(spec.shape)


def make_inputs(case: Case, seed: int) -> dict[str, np.ndarray]:
    """Generate the input arrays of a case, deterministically for a given seed.

    Each call uses its own ``numpy.random.Generator(PCG64(seed))`` and draws inputs in
    declaration order; the global numpy RNG is never touched.

    Args:
        case: The concrete case.
        seed: Seed for this case's generator.

    Returns:
        Input arrays by tensor key (:attr:`TensorSpec.key`: the name, ``name[i]`` for the
        tensors of a list), with the spec's dtype and shape.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    return {s.key: _fixed_value(s) if s.value is not None else _generate(s, rng)
            for s in case.inputs}


