"""Loading and calling msopst golden functions (calc_expect_func)."""

from __future__ import annotations

import inspect
import traceback
from typing import Any, Callable

import numpy as np

from ascendopt.dtypes import CaseError
from ascendopt.cases.golden_file import _import_golden_file, golden_functions, load_golden  # noqa: F401
from ascendopt.cases.spec import Case, TensorSpec, group_params

# ---------------------------------------------------------------------------- golden

def _tensor_dict(spec: TensorSpec, value: np.ndarray | None = None) -> dict[str, Any]:
    desc: dict[str, Any] = {"dtype": spec.dtype, "shape": list(spec.shape),
                            "format": spec.format, "ori_shape": list(spec.shape),
                            "ori_format": spec.format, "param_type": "dynamic" if spec.dynamic else "required"}
    if value is not None:
        desc["value"] = np.array(value, copy=True)
    return desc


def _param_args(specs: list[TensorSpec], values: dict[str, np.ndarray] | None) -> tuple[list[str], list[Any]]:
    """Names and golden arguments of a case's parameters: a dict per tensor, a list of dicts
    per list parameter."""
    names, args = [], []
    for name, tensors, dynamic in group_params(specs):
        dicts = [_tensor_dict(t, None if values is None else values[t.key]) for t in tensors]
        names.append(name)
        args.append(dicts if dynamic else dicts[0])
    return names, args


def _call_golden(func: Callable[..., Any], case: Case, ins: list[Any], outs: list[Any], names: list[str]) -> Any:
    """Bind parameters by name when every parameter name is a parameter of ``func`` and no
    output shares an input's name, else by position."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        params = {}
    by_name = len(set(names)) == len(names) and all(
        n in params and params[n].kind != inspect.Parameter.POSITIONAL_ONLY for n in names)
    attrs = case.attrs
    if params and not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        attrs = {k: v for k, v in attrs.items() if k in params}  # attributes the golden does not take
    if by_name:
        return func(**dict(zip(names, ins + outs)), **attrs)
    return func(*ins, *outs, **attrs)


def _per_param(result: Any, outputs: list[tuple[str, list[TensorSpec], bool]]) -> list[Any]:
    """The golden's result as one entry per output parameter. A lone list output may be
    returned as its bare list of arrays."""
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(outputs) == 1 and outputs[0][2] and not all(isinstance(r, (list, tuple)) for r in results):
        return [results]
    return results


def run_golden(func: Callable[..., Any], case: Case, inputs: dict[str, np.ndarray]) -> list[np.ndarray | None]:
    """Compute expected outputs with a golden function, msopst-style.

    The function receives one dict per input (``value``, ``dtype``, ``shape``, ``format``),
    then one per output (same keys without ``value``), then the attributes as keyword
    arguments; a dynamic (list) parameter is a list of such dicts (``param_type``
    ``"dynamic"``). Parameters are bound by name when all names match the signature
    (msopst requires input names to equal the function's parameter names), otherwise by
    position. Inputs are passed as copies. The function returns one array per output
    parameter, a list of arrays (one per tensor) for a list output, or ``None`` for an
    output the operator does not compute (one its documentation lists as not supported): that
    output is not checked.

    Returns:
        One array per output tensor (``case.outputs`` order), cast to its dtype and reshaped
        to its shape; ``None`` for an output the golden gave as ``None``.

    Raises:
        CaseError: If an input is missing, the function raises, or the results do not
            match the outputs in number or size.
    """
    missing = [s.key for s in case.inputs if s.key not in inputs]
    if missing:
        raise CaseError(f"case {case.name!r}: inputs missing: {missing}")
    in_names, ins = _param_args(case.inputs, inputs)
    out_names, outs = _param_args(case.outputs, None)
    try:
        result = _call_golden(func, case, ins, outs, in_names + out_names)
    except Exception as err:  # noqa: BLE001 - any failure of user code is reported
        reason = traceback.format_exception_only(type(err), err)[-1].strip()
        raise CaseError(f"case {case.name!r}: golden function raised {reason}") from None
    params = group_params(case.outputs)
    results = _per_param(result, params)
    if len(results) != len(params):
        raise CaseError(f"case {case.name!r}: golden returned {len(results)} arrays for "
                        f"{len(params)} outputs")
    arrays = []
    for (name, tensors, dynamic), res in zip(params, results):
        if res is None:  # not computed by the operator: not checked
            arrays.extend([None] * len(tensors))
            continue
        if dynamic:
            if not isinstance(res, (list, tuple)) or len(res) != len(tensors):
                got = f"{len(res)} arrays" if isinstance(res, (list, tuple)) else type(res).__name__
                raise CaseError(f"case {case.name!r}: golden output {name!r} is a list of {len(tensors)} "
                                f"tensors; the golden returned {got}")
            items = list(res)
        else:
            items = [res]
        for spec, item in zip(tensors, items):
            arr = np.asarray(item)
            if arr.size != spec.size:
                raise CaseError(f"case {case.name!r}: golden output {spec.key!r} has {arr.size} "
                                f"elements, shape {spec.shape} needs {spec.size}")
            arrays.append(arr.astype(spec.np_dtype).reshape(spec.shape))
    return arrays
