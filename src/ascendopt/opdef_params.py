"""The parameters an OpDef constructor declares, read from C++ text.

An OpDef (``class X : public OpDef``) declares its parameters in its constructor, in order:
``this->Input("x")...``, ``this->Output("y")...``, ``this->Attr("a")...Int(...)``. Inputs and
outputs carry ``ParamType(REQUIRED | OPTIONAL | DYNAMIC)`` and ``DataType(...)``: a literal list
(``{ge::DT_FLOAT, ...}``) or a variable initialised with one (what cann-ops' foreach OpDef
macros expand to). The order is the order of the generated aclnn API's arguments (inputs,
attributes, outputs), so both the simulator's OpDef scan and the npu harness read it here.

The text is either an op_host source as written (:func:`literal_params`: comments and
preprocessor directives left out, so a macro body is not read as a declaration) or the
preprocessed source of an OpDef made by a macro (:func:`parse_params`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAM = re.compile(r'\bthis\s*->\s*(Input|Output|Attr)\s*\(\s*"(\w+)"\s*\)([^;]*);', re.S)
_ATTR_KIND = re.compile(r"\.\s*(ListInt|ListFloat|ListBool|Int|Float|Bool|String|Str)\s*\(")
_DATATYPE = re.compile(r"\.\s*DataType\s*\(\s*(\{[^}]*\}|\w+)\s*\)")
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_KINDS = {"Int": "int", "Float": "float", "Bool": "bool", "String": "str", "Str": "str",
          "ListInt": "list_int", "ListFloat": "list_float", "ListBool": "list_bool"}


@dataclass(frozen=True)
class Param:
    """One OpDef parameter: ``role`` is ``input``, ``output`` or ``attr``; ``kind`` is
    ``required``/``optional``/``dynamic`` for tensors and the attribute type for attributes;
    ``dtypes`` the ``ge::DT_*`` names of its ``DataType(...)`` list where that list is known."""

    role: str
    name: str
    kind: str
    dtypes: tuple[str, ...] = ()


def parse_params(text: str) -> list[Param]:
    """Every ``this->Input/Output/Attr("name")`` declaration in `text`, in order."""
    params: list[Param] = []
    for role, name, chain in _PARAM.findall(text):
        if role == "Attr":
            m = _ATTR_KIND.search(chain)
            params.append(Param("attr", name, _KINDS[m.group(1)] if m else "int"))
        else:
            kind = "dynamic" if "DYNAMIC" in chain else "optional" if "OPTIONAL" in chain else "required"
            params.append(Param(role.lower(), name, kind, _dtypes(chain, text)))
    return params


def literal_params(source: str) -> list[Param]:
    """:func:`parse_params` of a source as written (:func:`as_written`): declarations a macro
    makes are not seen."""
    return parse_params(as_written(source))


def as_written(source: str) -> str:
    """`source` without its comments and preprocessor directives (``#define`` bodies with
    their continuation lines included): the declarations it makes literally."""
    text = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return _DIRECTIVE.sub("", text)


def _dtypes(chain: str, text: str) -> tuple[str, ...]:
    m = _DATATYPE.search(chain)
    if m is None:
        return ()
    arg = m.group(1)
    if not arg.startswith("{"):  # a variable: its initialiser list, where the text has one
        init = re.search(r"\b" + re.escape(arg) + r"\s*=?\s*(\{[^}]*\})", text)
        if init is None:
            return ()
        arg = init.group(1)
    return tuple(re.findall(r"\bDT_\w+", arg))
