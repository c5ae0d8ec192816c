"""msopst case files: the Case/TensorSpec model, parsing and expansion."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ascendopt.cases.attrs import _is_dim, normalize_attr_type, parse_attrs  # noqa: F401 (re-exported)
from ascendopt.cases.golden_file import load_golden
from ascendopt.dtypes import CaseError, canonical_format, dtype_info

# The msOpST data_distribute values, plus aliases seen in case files.
DISTRIBUTIONS = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh",
                 "truncated_normal", "random", "randint")
ABSENT_TYPE = "undefined"  # msopst type of an optional input the case leaves out
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
        index: Position in its list for one tensor of a dynamic (list) parameter, whose
            tensors share ``name``; ``None`` for a plain tensor.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    format: str
    distribution: str = "uniform"
    value_range: tuple[float, float] = DEFAULT_VALUE_RANGE
    value: Any = None
    index: int | None = None

    @property
    def key(self) -> str:
        """Unique key of the tensor in a case: ``name``, or ``name[index]`` in a list."""
        return self.name if self.index is None else f"{self.name}[{self.index}]"

    @property
    def dynamic(self) -> bool:
        """Whether the tensor is one of a dynamic (list) parameter's tensors."""
        return self.index is not None

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
        inputs: Input tensors in declaration order; a dynamic (list) input contributes its
            tensors in list order, all with the list's name (see :func:`group_params`).
        outputs: Output tensors in declaration order, lists as for ``inputs``.
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


def group_params(specs: Iterable[TensorSpec]) -> list[tuple[str, list[TensorSpec], bool]]:
    """The parameters behind a case's tensors: ``(name, tensors, dynamic)`` in order, a
    dynamic parameter's tensors (``index`` set) gathered into one entry."""
    out: list[tuple[str, list[TensorSpec], bool]] = []
    where: dict[str, int] = {}
    for s in specs:
        if s.dynamic and s.name in where:
            out[where[s.name]][1].append(s)
            continue
        where[s.name] = len(out)
        out.append((s.name, [s], s.dynamic))
    return out


# ----------------------------------------------------------------------------- parsing

def _as_str_list(raw: Any, what: str, default: str) -> list[str]:
    if raw is None:
        return [default]
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(x, str) for x in items):
        raise CaseError(f"{what} must be a string or a non-empty list of strings, got {raw!r}")
    return items


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
        ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in pair)
        if not ok or not pair[0] <= pair[1]:
            raise CaseError(f"{what}: value_range must be [low, high] (finite numbers) with low <= high, got {pair!r}")
        out.append((float(pair[0]), float(pair[1])))
    return out


_LIST_KEY = {"input": "dynamic_input", "output": "dynamic_output"}


def _list_form(desc: dict, kind: str, what: str) -> str:
    """How a tensor description takes part in a dynamic (list) parameter: ``""`` not at all,
    ``"entry"`` one tensor of the list named by its ``dynamic_input`` (``dynamic_output``)
    key, the form of the single-operator description files, one entry per tensor; ``"list"``
    the whole list in one entry (``"dynamic": true`` and ``shape`` a list of shapes)."""
    key = _LIST_KEY[kind]
    other_kind = "output" if kind == "input" else "input"
    if _LIST_KEY[other_kind] in desc:
        raise CaseError(f"{what}: '{_LIST_KEY[other_kind]}' belongs in {other_kind}_desc; "
                        f"a tensor of an {kind} list names its list with '{key}'")
    flag = desc.get("dynamic", False)
    if not isinstance(flag, bool):
        raise CaseError(f"{what}: 'dynamic' must be true or false, got {flag!r}")
    if key not in desc:
        return "list" if flag else ""
    name = desc[key]
    if not isinstance(name, str) or not name:
        raise CaseError(f"{what}: '{key}' must name the list parameter (a non-empty string), got {name!r}")
    if flag:
        raise CaseError(f"{what}: give a list either as one entry with 'dynamic': true and a list of shapes, "
                        f"or as one '{key}' entry per tensor, not both")
    if desc.get("name", name) != name:
        raise CaseError(f"{what}: 'name' {desc['name']!r} differs from '{key}' {name!r}")
    return "entry"


def _parse_shape_lists(raw: Any, what: str) -> list[tuple[tuple[int, ...], ...]]:
    """A list parameter's shapes: one list of shapes (``[[16, 32], [7]]``), or a list of such
    lists (one per variant)."""
    bad = CaseError(f"{what}: a dynamic (list) tensor's shape must be a non-empty list of shapes, one per "
                    f"tensor, e.g. [[16, 32], [7]] (or a list of such lists, one per variant), got {raw!r}")
    if not isinstance(raw, list) or not raw or not all(isinstance(s, list) for s in raw):
        raise bad
    if all(s and all(isinstance(x, list) for x in s) for s in raw):
        return [tuple(_to_shape(x, what) for x in s) for s in raw]
    if any(isinstance(x, list) for s in raw for x in s):
        raise bad
    return [tuple(_to_shape(s, what) for s in raw)]


def _desc_fields(desc: Any, what: str, is_input: bool, form: str = "") -> dict[str, list]:
    """Parse the expandable fields of one tensor description into lists of variants (for the
    ``"list"`` form each ``shape`` variant is a tuple of shapes, one per tensor)."""
    if not isinstance(desc, dict):
        raise CaseError(f"{what}: tensor description must be an object, got {desc!r}")
    if not isinstance(desc.get("name"), str) or not desc["name"]:
        raise CaseError(f"{what}: 'name' must be a non-empty string")
    if form == "list" and desc.get("value") is not None:
        raise CaseError(f"{what}: 'value' is not supported on a whole-list entry; give one "
                        f"'{_LIST_KEY['input' if is_input else 'output']}' entry per tensor instead")
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
        if t != ABSENT_TYPE:
            dtype_info(t)
    return {
        "type": types,
        "format": [f.upper() if f.strip().lower() == ABSENT_TYPE else canonical_format(f)
                   for f in _as_str_list(desc.get("format"), f"{what} format", "ND")],
        "shape": _parse_shape_lists(desc["shape"], what) if form == "list" else _parse_shapes(desc["shape"], what),
        "data_distribute": [d.lower() for d in dists] if is_input else ["uniform"],
        "value_range": _parse_ranges(desc.get("value_range"), what),
    } | _check_value(desc.get("value"), what)


def _check_value(value: Any, what: str) -> dict[str, list]:
    """A constant input's ``value``: a file name, a number, or a rectangular nested list of numbers."""
    if value is None or isinstance(value, (str, int, float)):
        return {}
    if not isinstance(value, list):
        raise CaseError(f"{what}: value must be a number, a nested list of numbers or a file name, got {value!r}")
    try:
        arr = np.asarray(value)
    except ValueError:
        raise CaseError(f"{what}: value is not a rectangular nested list") from None
    if arr.dtype.kind not in "biuf":
        raise CaseError(f"{what}: value must hold numbers only")
    return {}


def _variant_count(parsed: list[tuple[str, dict[str, list]]]) -> int:
    """Number of concrete cases; all multi-entry lists must have the same length."""
    lengths = {(what, key): len(vals) for what, f in parsed for key, vals in f.items()}
    multi = {n for n in lengths.values() if n > 1}
    if len(multi) > 1:
        detail = ", ".join(f"{w} {k}: {n}" for (w, k), n in lengths.items() if n > 1)
        raise CaseError(f"mismatched list lengths ({detail})")
    return multi.pop() if multi else 1


_ENTRY = -1  # placeholder index of a "dynamic_input" entry until its list is numbered


def _tensors(desc: dict, f: dict[str, list], i: int, base: Path, form: str = "") -> list[TensorSpec]:
    """The concrete tensors of variant *i* of a description: one, a whole list's (``form``
    ``"list"``), or none for an optional input left out (``"type": "UNDEFINED"``). A constant
    input given by a ``value`` list whose element count disagrees with ``shape`` takes the
    value's own shape (the data is what is passed)."""
    pick = {k: (v[0] if len(v) == 1 else v[i]) for k, v in f.items()}
    if pick["type"] == ABSENT_TYPE:
        return []
    if form == "list":
        return [TensorSpec(desc["name"], pick["type"], shape, pick["format"], pick["data_distribute"],
                           pick["value_range"], None, index) for index, shape in enumerate(pick["shape"])]
    value = desc.get("value")
    shape = pick["shape"]
    if isinstance(value, str):
        value = str((base / value).resolve())
    elif isinstance(value, list):
        try:
            vshape = np.shape(value)
        except ValueError:
            raise CaseError(f"{desc['name']}: value is not a rectangular nested list") from None
        if math.prod(vshape) != math.prod(shape):
            shape = tuple(int(d) for d in vshape)
    return [TensorSpec(desc["name"], pick["type"], shape, pick["format"],
                       pick["data_distribute"], pick["value_range"], value, _ENTRY if form == "entry" else None)]


def _number_lists(specs: list[TensorSpec]) -> list[TensorSpec]:
    """Numbers the tensors of each ``dynamic_input`` list in order and gathers every list's
    tensors at the place of its first one."""
    count: dict[str, int] = {}
    numbered = []
    for t in specs:
        if t.index == _ENTRY:
            t = replace(t, index=count.get(t.name, 0))
            count[t.name] = t.index + 1
        numbered.append(t)
    return [t for _, ts, _ in group_params(numbered) for t in ts]


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
    base_name = raw.get("case_name") or f"Test_{raw['op']}_{index + 1:03d}"
    if not isinstance(base_name, str):
        raise CaseError(f"{path}: case #{index}: case_name must be a string, got {base_name!r}")
    try:
        for key in ("expect", "st_mode"):
            if raw.get(key) is not None and not isinstance(raw[key], str):
                raise CaseError(f"{key} must be a string, got {raw[key]!r}")
        parsed = []
        for kind, key in (("input", "input_desc"), ("output", "output_desc")):
            descs = raw.get(key) or []
            if not isinstance(descs, list):
                raise CaseError(f"{key} must be a list")
            for j, desc in enumerate(descs):
                form = ""
                if isinstance(desc, dict):
                    form = _list_form(desc, kind, f"{kind} #{j}")
                    if form == "entry":
                        desc.setdefault("name", desc[_LIST_KEY[kind]])
                    desc.setdefault("name", f"{kind}{j}")
                what = f"{kind} {desc.get('name') if isinstance(desc, dict) else j!r}"
                what += f" (#{j})" if form == "entry" else ""
                parsed.append((kind, desc, _desc_fields(desc, what, kind == "input", form), form, what))
        n = _variant_count([(what, f) for _, _, f, _, what in parsed])
        attrs, attr_types = parse_attrs(raw.get("attr"))
        # An output may share its input's name (in-place / ref operators); names must be
        # unique among the inputs, among the outputs and against the attributes (a list given
        # entry by entry counts once).
        ins = _param_names([(d, form) for k, d, _, form, _ in parsed if k == "input"])
        outs = _param_names([(d, form) for k, d, _, form, _ in parsed if k == "output"])
        dup = {x for names in (ins + list(attrs), outs + list(attrs)) for x in names if names.count(x) > 1}
        if dup:
            raise CaseError(f"duplicate tensor/attr names {sorted(dup)}")
        golden = _golden_spec(raw.get("calc_expect_func_file"), path.parent)
    except CaseError as err:
        raise CaseError(f"{path}: case {base_name!r}: {err}") from None
    extra = {k: v for k, v in raw.items() if k not in _KNOWN_KEYS}
    cases = []
    for i in range(n):
        tensors = [(k, t) for k, d, f, form, _ in parsed for t in _tensors(d, f, i, path.parent, form)]
        cases.append(Case(
            base_name, raw["op"], _number_lists([t for k, t in tensors if k == "input"]),
            _number_lists([t for k, t in tensors if k == "output"]), dict(attrs), dict(attr_types), golden,
            str(path), str(raw.get("expect", "success")), raw.get("st_mode"), dict(extra)))
    return _suffix_variants(cases)


def _param_names(descs: list[tuple[dict, str]]) -> list[str]:
    """Parameter names of descriptions in order, a list given entry by entry once."""
    names: list[str] = []
    lists: set[str] = set()
    for d, form in descs:
        if form == "entry":
            if d["name"] in lists:
                continue
            lists.add(d["name"])
        names.append(d["name"])
    return names


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
                  golden_override: str | None = None, own: bool = True) -> list[Case]:
    """Load every ``tests/st/*.json`` case file of an operator directory.

    Args:
        op_dir: Operator directory in the cann-ops layout.
        extra_case_files: Further case files to load after the operator's own.
        golden_override: ``"file.py:func"`` (relative to the working directory) used
            for every case instead of the case files' ``calc_expect_func_file``.
        own: Load the operator's own ``tests/st/*.json`` (False: only ``extra_case_files``).

    Returns:
        All concrete cases, names unique across files (empty if there are none).

    Raises:
        CaseError: If ``op_dir`` is not a directory, a case file is invalid or the golden
            override cannot be loaded.
    """
    op_dir = Path(op_dir)
    if not op_dir.is_dir():
        raise CaseError(f"operator directory not found: {op_dir}")
    files = (sorted((op_dir / "tests" / "st").glob("*.json")) if own else []) + [Path(p) for p in extra_case_files]
    cases = [c for f in files for c in load_case_file(f)]
    if golden_override:
        golden = _golden_spec(golden_override, Path.cwd())
        load_golden(golden)  # a bad override is said once here, not once per case when run
        cases = [replace(c, golden=golden) for c in cases]
    return _make_unique(cases)


