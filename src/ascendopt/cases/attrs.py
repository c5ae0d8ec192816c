"""msopst case attributes (``attr``): their type names and values, checked and coerced."""

from __future__ import annotations

from typing import Any

from ascendopt.dtypes import CaseError, dtype_info


def _is_dim(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


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
        try:
            kind = normalize_attr_type(item["type"]) if "type" in item else _infer_attr_type(item["value"])
            values[name] = _coerce_attr(kind, item["value"])
        except CaseError as err:
            raise CaseError(f"attr {name!r}: {err}") from None
        types[name] = kind
    return values, types
