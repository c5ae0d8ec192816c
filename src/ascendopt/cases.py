"""msopst test cases: parsing and expansion, input generation, golden functions, comparison.

An operator's ``tests/st/*.json`` files are msopst case files: a JSON list of cases, each with
``case_name``, ``op``, ``input_desc`` / ``output_desc`` (``name``, ``type``, ``format``,
``shape``, ``data_distribute``, ``value_range``), ``attr`` (``[{name, type, value}]``) and
``calc_expect_func_file`` (``"test_x.py:calc_expect_func"``, relative to the JSON file).
Any of ``type`` / ``format`` / ``shape`` / ``data_distribute`` / ``value_range`` may list
several entries; entry *i* of every multi-entry list forms concrete case *i* and single-entry
lists broadcast. Expanded names get a dtype suffix (``Test_Muls_001_float16``) when the first
tensor's dtype tells the variants apart, an index suffix (``_0``, ``_1``) otherwise.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import math
import sys
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ascendopt.dtypes import CaseError, canonical_format, dtype_info

__all__ = [
    "Case",
    "CaseError",
    "Comparison",
    "TensorSpec",
    "Tolerance",
    "TOLERANCES",
    "compare",
    "load_case_file",
    "load_golden",
    "load_op_cases",
    "make_inputs",
    "run_golden",
]


@dataclass(frozen=True)
class Tolerance:
    """Per-dtype acceptance rule.

    An element passes if ``|a - e| <= atol + rtol * |e|``; an output passes if the share
    of failing elements is at most ``max_mismatch_ratio``.
    """

    rtol: float
    atol: float
    max_mismatch_ratio: float


_EXACT = Tolerance(0.0, 0.0, 0.0)

# CANN precision policy for operator ST results, as documented by Huawei:
# - float16: "dual thousandth" (双千分之一): relative/absolute error threshold 1e-3 and at
#   most 0.1 % of elements beyond it (cann-ops verify_result.py scripts: LOSS = 1e-3,
#   "fp16 要求绝对误差和相对误差均不超过千分之一"; mindstudio-probe api_accuracy_checker.md
#   defines 双千 as "share of elements with rel. error > 1/1000 below 1/1000").
# - float32 / double: "dual ten-thousandth" (双万分之一): threshold 1e-4, at most 0.01 %
#   (cann-ops fp32 verify_result.py: LOSS = 1e-4; msprobe applies 双千/双万 to fp32/fp64).
# - bfloat16: msprobe grades fp16/bf16 by 双百 (rel. error 1e-2 in < 1 %: error) and 双千
#   (warning), and by ULP: |ULP error| > 1 in < 0.1 % of elements. bf16 keeps 8 significand
#   bits, so one ULP is up to 2^-7 ~ 7.8e-3 relative and 双千 would reject results one
#   rounding step apart. We use rtol = atol = 2^-7 (a 1-ULP difference always passes, as
#   1e-3 does for fp16's 2^-10 ULP) and the ULP rule's 0.1 % ratio.
# - integers and bool: exact (msprobe's binary-consistency rule, error ratio 0).
# Our per-element rule atol + rtol*|e| is slightly looser than CANN's "abs <= t or rel <= t"
# (at most 2x near |e| ~ 1) and takes the relative error against |expected|.
TOLERANCES: dict[str, Tolerance] = {
    "float16": Tolerance(1e-3, 1e-3, 1e-3),
    "float32": Tolerance(1e-4, 1e-4, 1e-4),
    "double": Tolerance(1e-4, 1e-4, 1e-4),
    "bfloat16": Tolerance(2.0**-7, 2.0**-7, 1e-3),
    **{name: _EXACT for name in (
        "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool")},
}

DISTRIBUTIONS = ("uniform", "normal", "truncated_normal", "random", "randint")
DEFAULT_VALUE_RANGE = (0.0, 1.0)
_TENSOR_FIELDS = ("type", "format", "shape", "data_distribute", "value_range")


@dataclass(frozen=True)
class TensorSpec:
    """One concrete input or output tensor of a case.

    Attributes:
        name: Tensor name (parameter name in the golden function).
        dtype: msopst type name as written in the case file, lower-case (e.g. ``"float"``).
        shape: Concrete shape; ``()`` for a scalar.
        format: Canonical format name (``"ND"``, ``"NCHW"``, ...).
        distribution: Input data distribution (``uniform``, ``normal``, ``random``...).
        value_range: Inclusive ``(low, high)`` range of generated values.
        value: Optional fixed data: a nested list, or the absolute path of a ``.bin`` file.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    format: str
    distribution: str = "uniform"
    value_range: tuple[float, float] = DEFAULT_VALUE_RANGE
    value: Any = None

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def np_dtype(self) -> np.dtype:
        """numpy dtype of the elements."""
        return dtype_info(self.dtype).np_dtype


@dataclass
class Case:
    """One concrete (expanded) test case.

    Attributes:
        name: Unique case name (original ``case_name`` plus expansion suffix).
        op: Operator type, e.g. ``"Muls"``.
        inputs: Input tensors in declaration order.
        outputs: Output tensors in declaration order.
        attrs: Attribute values by name, coerced to their declared types.
        attr_types: Normalised attribute types (``int``, ``float``, ``bool``, ``str``,
            ``list_int``, ``list_float``, ``list_bool``, ``list_str``, ``list_list_int``,
            ``data_type``).
        golden: ``"/abs/path/test_x.py:func"`` or ``None`` when the case has none.
        source: Path of the case file the case came from.
        expect: msopst ``expect`` field (``"success"`` unless the case must fail).
        st_mode: msopst ``st_mode`` field, if any.
        extra: Other top-level keys of the case, kept verbatim.
    """

    name: str
    op: str
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    attrs: dict[str, object]
    attr_types: dict[str, str]
    golden: str | None
    source: str
    expect: str = "success"
    st_mode: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


# ----------------------------------------------------------------------------- parsing

def _as_str_list(raw: Any, what: str, default: str) -> list[str]:
    if raw is None:
        return [default]
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(x, str) for x in items):
        raise CaseError(f"{what} must be a string or a non-empty list of strings, got {raw!r}")
    return items


def _is_dim(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _to_shape(raw: list, what: str) -> tuple[int, ...]:
    if not all(_is_dim(d) and d >= 0 for d in raw):
        raise CaseError(f"{what}: invalid shape {raw!r} (dims must be non-negative ints)")
    return tuple(raw)


def _parse_shapes(raw: Any, what: str) -> list[tuple[int, ...]]:
    """One shape (``[2, 3]``, ``[]``, ``5``) or a list of shapes (``[[2, 3], []]``)."""
    if _is_dim(raw):
        return [_to_shape([raw], what)]
    if not isinstance(raw, list):
        raise CaseError(f"{what}: shape must be an int or a list, got {raw!r}")
    if raw and all(isinstance(s, list) for s in raw):
        return [_to_shape(s, what) for s in raw]
    return [_to_shape(raw, what)]


def _parse_ranges(raw: Any, what: str) -> list[tuple[float, float]]:
    """One ``[low, high]`` pair or a list of pairs."""
    if raw is None:
        return [DEFAULT_VALUE_RANGE]
    pairs = raw if isinstance(raw, list) and raw and isinstance(raw[0], list) else [raw]
    out = []
    for pair in pairs:
        ok = isinstance(pair, list) and len(pair) == 2
        ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)
        if not ok or not pair[0] <= pair[1]:
            raise CaseError(f"{what}: value_range must be [low, high] with low <= high, got {pair!r}")
        out.append((float(pair[0]), float(pair[1])))
    return out


def _desc_fields(desc: Any, what: str, is_input: bool) -> dict[str, list]:
    """Parse the expandable fields of one tensor description into lists of variants."""
    if not isinstance(desc, dict):
        raise CaseError(f"{what}: tensor description must be an object, got {desc!r}")
    if not isinstance(desc.get("name"), str) or not desc["name"]:
        raise CaseError(f"{what}: 'name' must be a non-empty string")
    if "shape" not in desc:
        raise CaseError(f"{what}: missing 'shape'")
    if "type" not in desc:
        raise CaseError(f"{what}: missing 'type'")
    dists = _as_str_list(desc.get("data_distribute"), f"{what} data_distribute", "uniform")
    for d in dists:
        if d.lower() not in DISTRIBUTIONS:
            raise CaseError(f"{what}: unknown data_distribute {d!r} (known: {DISTRIBUTIONS})")
    types = [t.lower() for t in _as_str_list(desc["type"], f"{what} type", "")]
    for t in types:
        dtype_info(t)
    return {
        "type": types,
        "format": [canonical_format(f) for f in _as_str_list(desc.get("format"), what, "ND")],
        "shape": _parse_shapes(desc["shape"], what),
        "data_distribute": [d.lower() for d in dists] if is_input else ["uniform"],
        "value_range": _parse_ranges(desc.get("value_range"), what),
    }


def _variant_count(parsed: list[tuple[str, dict[str, list]]]) -> int:
    """Number of concrete cases; all multi-entry lists must have the same length."""
    lengths = {(what, key): len(vals) for what, f in parsed for key, vals in f.items()}
    multi = {n for n in lengths.values() if n > 1}
    if len(multi) > 1:
        detail = ", ".join(f"{w} {k}: {n}" for (w, k), n in lengths.items() if n > 1)
        raise CaseError(f"mismatched list lengths ({detail})")
    return multi.pop() if multi else 1


def _tensor(desc: dict, f: dict[str, list], i: int, base: Path) -> TensorSpec:
    pick = {k: (v[0] if len(v) == 1 else v[i]) for k, v in f.items()}
    value = desc.get("value")
    if isinstance(value, str):
        value = str((base / value).resolve())
    return TensorSpec(desc["name"], pick["type"], pick["shape"], pick["format"],
                      pick["data_distribute"], pick["value_range"], value)


_ATTR_TYPE_ALIASES = {
    "int": "int", "int32": "int", "int64": "int",
    "float": "float", "float32": "float", "double": "float",
    "bool": "bool", "str": "str", "string": "str",
    "listint": "list_int", "listint32": "list_int", "listint64": "list_int",
    "listfloat": "list_float", "listfloat32": "list_float",
    "listbool": "list_bool", "liststr": "list_str", "liststring": "list_str",
    "listlistint": "list_list_int", "datatype": "data_type", "type": "data_type",
}


def normalize_attr_type(name: str) -> str:
    """Map an msopst attribute type spelling (``listInt``, ``string``...) to its canonical name."""
    key = str(name).lower().replace("_", "").replace(" ", "")
    if key not in _ATTR_TYPE_ALIASES:
        raise CaseError(f"unknown attr type {name!r}")
    return _ATTR_TYPE_ALIASES[key]


def _infer_attr_type(value: Any) -> str:
    scalar = {bool: "bool", int: "int", float: "float", str: "str"}
    if type(value) in scalar:
        return scalar[type(value)]
    if isinstance(value, list) and value:
        inner = _infer_attr_type(value[0])
        return "list_list_int" if inner == "list_int" else f"list_{inner}"
    raise CaseError(f"cannot infer the type of attr value {value!r}; give 'type'")


def _coerce_scalar(kind: str, v: Any) -> object:
    if kind == "int" and _is_dim(v):
        return v
    if kind == "int" and isinstance(v, float) and v.is_integer():
        return int(v)
    if kind == "float" and (_is_dim(v) or isinstance(v, float)):
        return float(v)
    if kind == "float" and isinstance(v, str) and v.strip().lower() in ("inf", "-inf", "nan"):
        return float(v)
    if kind == "bool" and (isinstance(v, bool) or v in (0, 1)):
        return bool(v)
    if kind == "bool" and isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    if kind == "str" and isinstance(v, str):
        return v
    if kind == "data_type" and isinstance(v, str):
        dtype_info(v)
        return v
    raise CaseError(f"value {v!r} is not a valid {kind}")


def _coerce_attr(kind: str, value: Any) -> object:
    if kind == "list_list_int":
        if not isinstance(value, list) or not all(isinstance(x, list) for x in value):
            raise CaseError(f"value {value!r} is not a list of int lists")
        return [[_coerce_scalar("int", v) for v in row] for row in value]
    if kind.startswith("list_"):
        if not isinstance(value, list):
            raise CaseError(f"value {value!r} is not a list")
        return [_coerce_scalar(kind[5:], v) for v in value]
    return _coerce_scalar(kind, value)


def parse_attrs(raw: Any) -> tuple[dict[str, object], dict[str, str]]:
    """Parse an msopst ``attr`` list into (values by name, normalised types by name)."""
    items = raw if raw is not None else []
    if isinstance(items, dict):
        items = [{"name": k, "value": v} for k, v in items.items()]
    if not isinstance(items, list):
        raise CaseError(f"attr must be a list of {{name, type, value}}, got {raw!r}")
    values: dict[str, object] = {}
    types: dict[str, str] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or "value" not in item:
            raise CaseError(f"attr entry needs 'name' and 'value': {item!r}")
        name = item["name"]
        if name in values:
            raise CaseError(f"duplicate attr {name!r}")
        kind = normalize_attr_type(item["type"]) if "type" in item else _infer_attr_type(item["value"])
        try:
            values[name] = _coerce_attr(kind, item["value"])
        except CaseError as err:
            raise CaseError(f"attr {name!r}: {err}") from None
        types[name] = kind
    return values, types


def _golden_spec(raw: Any, base: Path) -> str | None:
    """Resolve ``"file.py:func"`` relative to ``base``; the function defaults to calc_expect_func."""
    if not raw:
        return None
    if not isinstance(raw, str):
        raise CaseError(f"calc_expect_func_file must be a string, got {raw!r}")
    path, sep, func = raw.rpartition(":")
    if not sep or not path or "/" in func or func.endswith(".py"):
        path, func = raw, "calc_expect_func"
    return f"{(base / path).resolve()}:{func}"


_KNOWN_KEYS = {"case_name", "op", "input_desc", "output_desc", "attr", "calc_expect_func_file",
               "expect", "st_mode"}


def _expand_case(raw: Any, index: int, path: Path) -> list[Case]:
    """Expand one case object of a case file into its concrete cases."""
    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
        raise CaseError(f"{path}: case #{index} must be an object with an 'op' string")
    base_name = str(raw.get("case_name") or f"Test_{raw['op']}_{index + 1:03d}")
    try:
        parsed = []
        for kind, key in (("input", "input_desc"), ("output", "output_desc")):
            descs = raw.get(key) or []
            if not isinstance(descs, list):
                raise CaseError(f"{key} must be a list")
            for j, desc in enumerate(descs):
                if isinstance(desc, dict):
                    desc.setdefault("name", f"{kind}{j}")
                what = f"{kind} {desc.get('name') if isinstance(desc, dict) else j!r}"
                parsed.append((kind, desc, _desc_fields(desc, what, kind == "input")))
        n = _variant_count([(f"{k} {d['name']}", f) for k, d, f in parsed])
        attrs, attr_types = parse_attrs(raw.get("attr"))
        names = [d["name"] for _, d, _ in parsed] + list(attrs)
        dup = {x for x in names if names.count(x) > 1}
        if dup:
            raise CaseError(f"duplicate tensor/attr names {sorted(dup)}")
    except CaseError as err:
        raise CaseError(f"{path}: case {base_name!r}: {err}") from None
    golden = _golden_spec(raw.get("calc_expect_func_file"), path.parent)
    extra = {k: v for k, v in raw.items() if k not in _KNOWN_KEYS}
    cases = []
    for i in range(n):
        tensors = [(k, _tensor(d, f, i, path.parent)) for k, d, f in parsed]
        cases.append(Case(
            base_name, raw["op"], [t for k, t in tensors if k == "input"],
            [t for k, t in tensors if k == "output"], dict(attrs), dict(attr_types), golden,
            str(path), str(raw.get("expect", "success")), raw.get("st_mode"), dict(extra)))
    return _suffix_variants(cases)


def _suffix_variants(cases: list[Case]) -> list[Case]:
    if len(cases) == 1:
        return cases
    first = [(c.inputs or c.outputs or [None])[0] for c in cases]
    tags = [t.dtype if t else "" for t in first]
    if len(set(tags)) != len(tags) or "" in tags:
        tags = [str(i) for i in range(len(cases))]
    return [replace(c, name=f"{c.name}_{tag}") for c, tag in zip(cases, tags)]


def _make_unique(cases: Iterable[Case]) -> list[Case]:
    """Append ``_dupN`` to repeated names, keeping the first occurrence unchanged."""
    seen: set[str] = set()
    out = []
    for case in cases:
        name = case.name
        for k in itertools.count(2):
            if name not in seen:
                break
            name = f"{case.name}_dup{k}"
        seen.add(name)
        out.append(case if name == case.name else replace(case, name=name))
    return out


def load_case_file(path: str | Path) -> list[Case]:
    """Load and expand an msopst case file.

    Args:
        path: JSON file holding a list of case objects (a single object is accepted too).

    Returns:
        Concrete cases with unique names, in file order.

    Raises:
        CaseError: If the file is missing, not JSON, or a case is malformed.
    """
    path = Path(path).resolve()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CaseError(f"cannot read case file {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise CaseError(f"{path}: invalid JSON: {err}") from None
    items = data if isinstance(data, list) else [data]
    return _make_unique(c for i, raw in enumerate(items) for c in _expand_case(raw, i, path))


def load_op_cases(op_dir: str | Path, extra_case_files: Iterable[str | Path] = (),
                  golden_override: str | None = None) -> list[Case]:
    """Load every ``tests/st/*.json`` case file of an operator directory.

    Args:
        op_dir: Operator directory in the cann-ops layout.
        extra_case_files: Further case files to load after the operator's own.
        golden_override: ``"file.py:func"`` (relative to the working directory) used
            for every case instead of the case files' ``calc_expect_func_file``.

    Returns:
        All concrete cases, names unique across files (empty if there are none).

    Raises:
        CaseError: If ``op_dir`` is not a directory or a case file is invalid.
    """
    op_dir = Path(op_dir)
    if not op_dir.is_dir():
        raise CaseError(f"operator directory not found: {op_dir}")
    files = sorted((op_dir / "tests" / "st").glob("*.json")) + [Path(p) for p in extra_case_files]
    cases = [c for f in files for c in load_case_file(f)]
    if golden_override:
        golden = _golden_spec(golden_override, Path.cwd())
        cases = [replace(c, golden=golden) for c in cases]
    return _make_unique(cases)


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


def _generate(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    """Random data for one input tensor, following its distribution and value range."""
    info = dtype_info(spec.dtype)
    lo, hi = spec.value_range
    normal = spec.distribution in ("normal", "truncated_normal")
    if normal:
        values = np.clip(rng.normal((lo + hi) / 2, (hi - lo) / 6, size=spec.shape), lo, hi)
    elif info.is_float:
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
            raise CaseError(f"input {spec.name!r}: cannot read {spec.value}: {err}") from None
    else:
        arr = np.asarray(spec.value, dtype=np.float64).astype(spec.np_dtype)
    if arr.size != spec.size:
        raise CaseError(f"input {spec.name!r}: value has {arr.size} elements, shape "
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
        Input arrays by tensor name, with the spec's dtype and shape.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    return {s.name: _fixed_value(s) if s.value is not None else _generate(s, rng)
            for s in case.inputs}


# ---------------------------------------------------------------------------- golden

_golden_counter = itertools.count()


def load_golden(spec: str) -> Callable[..., Any]:
    """Import a golden (expected-output) function from ``"path/to/file.py:func"``.

    The file is imported under a fresh module name, with its directory on ``sys.path``
    only while it is being imported, so goldens of different operators never collide.

    Args:
        spec: File path and function name separated by ``:``.

    Returns:
        The callable.

    Raises:
        CaseError: If the file is missing, fails to import (e.g. ``import tensorflow``
            without TensorFlow installed), or lacks the function.
    """
    path_str, sep, func_name = spec.rpartition(":")
    if not sep or not path_str or not func_name:
        raise CaseError(f"golden spec must be 'file.py:function', got {spec!r}")
    path = Path(path_str).resolve()
    if not path.is_file():
        raise CaseError(f"golden file not found: {path}")
    module_name = f"_ascendopt_golden_{path.stem}_{next(_golden_counter)}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise CaseError(f"cannot import golden file {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))
    try:
        module_spec.loader.exec_module(module)
    except BaseException as err:  # noqa: BLE001 - any failure of user code is reported
        sys.modules.pop(module_name, None)
        if isinstance(err, KeyboardInterrupt):
            raise
        reason = traceback.format_exception_only(type(err), err)[-1].strip()
        raise CaseError(f"cannot import golden file {path}: {reason}") from None
    finally:
        try:
            sys.path.remove(str(path.parent))
        except ValueError:
            pass
    func = getattr(module, func_name, None)
    if not callable(func):
        raise CaseError(f"golden file {path} has no function {func_name!r}")
    return func


def _tensor_dict(spec: TensorSpec, value: np.ndarray | None = None) -> dict[str, Any]:
    desc: dict[str, Any] = {"dtype": spec.dtype, "shape": list(spec.shape),
                            "format": spec.format, "ori_shape": list(spec.shape),
                            "ori_format": spec.format, "param_type": "required"}
    if value is not None:
        desc["value"] = np.array(value, copy=True)
    return desc


def _call_golden(func: Callable[..., Any], case: Case, ins: list[dict], outs: list[dict]) -> Any:
    """Bind tensors by name when every tensor name is a parameter of ``func``, else by position."""
    names = [s.name for s in case.inputs + case.outputs]
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        params = {}
    by_name = all(n in params and params[n].kind != inspect.Parameter.POSITIONAL_ONLY
                  for n in names)
    if by_name:
        return func(**dict(zip(names, ins + outs)), **case.attrs)
    return func(*ins, *outs, **case.attrs)


def run_golden(func: Callable[..., Any], case: Case, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Compute expected outputs with a golden function, msopst-style.

    The function receives one dict per input (``value``, ``dtype``, ``shape``, ``format``),
    then one per output (same keys without ``value``), then the attributes as keyword
    arguments. Tensors are bound by parameter name when all names match the signature
    (msopst requires input names to equal the function's parameter names), otherwise by
    position. Inputs are passed as copies.

    Returns:
        One array per output, cast to the output's dtype and reshaped to its shape.

    Raises:
        CaseError: If an input is missing, the function raises, or the results do not
            match the outputs in number or size.
    """
    missing = [s.name for s in case.inputs if s.name not in inputs]
    if missing:
        raise CaseError(f"case {case.name!r}: inputs missing: {missing}")
    ins = [_tensor_dict(s, inputs[s.name]) for s in case.inputs]
    outs = [_tensor_dict(s) for s in case.outputs]
    try:
        result = _call_golden(func, case, ins, outs)
    except Exception as err:  # noqa: BLE001 - any failure of user code is reported
        reason = traceback.format_exception_only(type(err), err)[-1].strip()
        raise CaseError(f"case {case.name!r}: golden function raised {reason}") from None
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(case.outputs):
        raise CaseError(f"case {case.name!r}: golden returned {len(results)} arrays for "
                        f"{len(case.outputs)} outputs")
    arrays = []
    for spec, res in zip(case.outputs, results):
        arr = np.asarray(res)
        if arr.size != spec.size:
            raise CaseError(f"case {case.name!r}: golden output {spec.name!r} has {arr.size} "
                            f"elements, shape {spec.shape} needs {spec.size}")
        arrays.append(arr.astype(spec.np_dtype).reshape(spec.shape))
    return arrays


# ------------------------------------------------------------------------ comparison

@dataclass(frozen=True)
class Comparison:
    """Result of comparing one output against its expected values.

    Attributes:
        passed: Whether the mismatch ratio is within the allowed ratio.
        max_abs_err: Largest ``|actual - expected|`` (``inf`` for NaN/inf mismatches).
        max_rel_err: Largest ``|actual - expected| / max(|expected|, tiny)``.
        mismatch_ratio: Share of elements outside tolerance.
        message: Human-readable summary, including the first mismatch.
    """

    passed: bool
    max_abs_err: float
    max_rel_err: float
    mismatch_ratio: float
    message: str


_TINY = float(np.finfo(np.float32).tiny)


def _float_errors(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> tuple[np.ndarray, np.ndarray]:
    """Absolute errors and mismatch mask; NaN==NaN and equal infinities match."""
    special_ok = (np.isnan(a) & np.isnan(e)) | (np.isinf(a) & np.isinf(e) & (a == e))
    finite = np.isfinite(a) & np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - e)
        within = finite & (diff <= atol + rtol * np.abs(e))
    abs_err = np.where(special_ok, 0.0, np.where(finite, diff, np.inf))
    return abs_err, ~(special_ok | within)


def compare(actual: Any, expected: Any, dtype: str, rtol: float | None = None,
            atol: float | None = None, max_mismatch_ratio: float | None = None) -> Comparison:
    """Compare an output with its expected values under the dtype's precision policy.

    Args:
        actual: Output of the operator.
        expected: Golden output.
        dtype: msopst type name selecting the default :data:`TOLERANCES` entry.
        rtol: Relative tolerance overriding the default.
        atol: Absolute tolerance overriding the default.
        max_mismatch_ratio: Allowed share of failing elements overriding the default.

    Returns:
        A :class:`Comparison`; a shape mismatch is a failed comparison, not an exception.
    """
    tol = TOLERANCES[dtype_info(dtype).name]
    rtol = tol.rtol if rtol is None else rtol
    atol = tol.atol if atol is None else atol
    ratio_ok = tol.max_mismatch_ratio if max_mismatch_ratio is None else max_mismatch_ratio
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        return Comparison(False, math.inf, math.inf, 1.0,
                          f"shape mismatch: actual {a.shape} vs expected {e.shape}")
    if a.size == 0:
        return Comparison(True, 0.0, 0.0, 0.0, "passed: empty output")
    af, ef = a.astype(np.float64), e.astype(np.float64)
    if rtol == 0 and atol == 0 and a.dtype.kind in "biu" and e.dtype.kind in "biu":
        bad = a != e  # exact, without float64 rounding of large 64-bit values
        abs_err = np.where(bad, np.abs(af - ef), 0.0)
    else:
        abs_err, bad = _float_errors(af, ef, rtol, atol)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        denom = np.where(np.isfinite(ef), np.maximum(np.abs(ef), _TINY), 1.0)
        rel_err = abs_err / denom
    n_bad = int(np.count_nonzero(bad))
    ratio = n_bad / a.size
    passed = ratio <= ratio_ok
    stats = (f"{n_bad}/{a.size} elements ({ratio:.3%}) outside atol={atol:g} + rtol={rtol:g}"
             f"*|expected| (allowed {ratio_ok:.3%}); max_abs_err={abs_err.max():.4g}, "
             f"max_rel_err={rel_err.max():.4g}")
    if n_bad:
        idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), a.shape))
        stats += f"; first mismatch at {idx}: actual={a[idx]!r}, expected={e[idx]!r}"
    return Comparison(passed, float(abs_err.max()), float(rel_err.max()), ratio,
                      ("passed: " if passed else "failed: ") + stats)
