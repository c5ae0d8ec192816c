"""The runner's manifest: the text lines that tell the emulation runner (and the NPU harness,
:mod:`ascendopt.backends.npu.run`) a case's tensors, attributes and result file. Shared by the
backends; the runner's reader is ``backends/sim/runtime``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ascendopt.cases import Case, TensorSpec
from ascendopt.dtypes import dtype_info, format_code


def manifest_tail(work: Path, case: Case, opdef_outputs: set[str], opdef_inputs: set[str]) -> list[str]:
    """A runner manifest's lines after the inputs: the outputs (``out<i>.bin`` in ``work``), the
    attributes and the result file. An output named like an input and unknown to the OpDef is
    that input, updated in place (``ref_output``)."""
    lines = []
    for i, spec in enumerate(case.outputs):
        tag = "ref_output" if spec.name not in opdef_outputs and spec.name in opdef_inputs else "output"
        lines.append(tensor_line(("dyn_" if spec.dynamic else "") + tag, spec, work / f"out{i}.bin"))
    for name, value in case.attrs.items():
        lines.append(attr_line(name, case.attr_types.get(name, ""), value))
    lines.append(f"result {work / 'result.json'}")
    return lines


def tensor_line(tag: str, spec: TensorSpec, path: Path) -> str:
    dims = " ".join(str(d) for d in spec.shape)
    return (f"{tag} {spec.name} {dtype_info(spec.dtype).ge_code} {format_code(spec.format)} "
            f"{len(spec.shape)} {dims} {path}").replace("  ", " ")


def attr_line(name: str, kind: str, value: Any) -> str:
    if kind in ("list_int", "list_bool", "list_float") or isinstance(value, (list, tuple)):
        vals = list(value)
        k = kind if kind.startswith("list_") else ("list_float" if any(isinstance(v, float) for v in vals) else "list_int")
        return f"attr {name} {k} {len(vals)} " + " ".join(repr(float(v)) if k == "list_float" else str(int(v)) for v in vals)
    if kind == "bool" or isinstance(value, bool):
        return f"attr {name} bool {int(bool(value))}"
    if kind == "int" or (kind == "" and isinstance(value, int)):
        return f"attr {name} int {int(value)}"
    if kind == "float" or isinstance(value, float):
        return f"attr {name} float {float(value)!r}"
    text = str(value).encode()
    return f"attr {name} str {text.hex() or '-'}"
