"""The kernel translation unit of a simulator build: the generated wrapper that includes the
tiling headers in kernel mode, renames the ``extern "C"`` entry and adds the launcher; the
dtype/format defines of one dtype combination; the repository include options of the kernel
compile; and the operator files the unit can see (its build key covers exactly those).
"""

from __future__ import annotations

import re
from pathlib import Path

from ascendopt.backends.sim import host_packages
from ascendopt.dtypes import dtype_info
from ascendopt.operator import Operator

# ge::DataType enumerator names, defined as macros for `#if ORIG_DTYPE_X == DT_FLOAT16` in kernels.
GE_MACROS = {
    "DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6,
    "DT_UINT16": 7, "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12,
    "DT_COMPLEX64": 16, "DT_COMPLEX128": 17, "DT_BF16": 27,
    # ge::Format enumerators likewise, for `#if defined(FORMAT_X1) && FORMAT_X1 == FORMAT_FRACTAL_NZ`
    # (an empty FORMAT_FRACTAL_NZ makes that line a preprocessor syntax error)
    "FORMAT_NCHW": 0, "FORMAT_NHWC": 1, "FORMAT_ND": 2, "FORMAT_NC1HWC0": 3, "FORMAT_FRACTAL_Z": 4,
    "FORMAT_NDHWC": 27, "FORMAT_FRACTAL_NZ": 29, "FORMAT_NCDHW": 30, "FORMAT_DHWCN": 31, "FORMAT_NDC1HWC0": 32,
    "FORMAT_FRACTAL_Z_3D": 33,
}


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)")
_HOST_NAMESPACE_USE = re.compile(r"\b(?:gert|ge)::")  # names only host headers declare
# The device compiler's launch form `kernel<<<blockDim, l2ctrl, stream>>>(args)`.
_CCE_LAUNCH = re.compile(r"\b([A-Za-z_]\w*)\s*<<<([^;{}]*?)>>>\s*\(")


def lower_cce_launches(text: str) -> str:
    """`k<<<cfg>>>(args)` -> `::ao::rt::CceLaunch(k, cfg)(args)`, keeping line numbers."""
    return _CCE_LAUNCH.sub(lambda m: f"::ao::rt::CceLaunch({m.group(1)}, {' '.join(m.group(2).split())})("
                           + "\n" * m.group(0).count("\n"), text)


def kernel_repo_flags(op: Operator) -> list[str]:
    """Kernel include options of `op`'s repository, after the operator's own directories:
    its host include directories for quoted includes only (``-iquote``: the op_host tiling
    headers the wrapper includes in kernel mode may include shared host headers, and the
    repository's copies win there as in host compiles, while ``<...>`` kernel headers stay
    ours), and last the directories of external tiling headers (``-idirafter``: the wrapper
    names them by path; the flag makes them visible to the sandboxed compiler)."""
    if op.repo is None:
        return []
    flags: list[str] = []
    for d in op.repo.kernel_include_dirs:
        flags += ["-I", str(d)]
    for d in op.repo.host_include_dirs:
        flags += ["-iquote", str(d)]
    flags += [f"-D{x}" for x in op.repo.host_defines]  # what those shared host headers expect
    flags += host_packages.include_flags()  # third-party headers those tiling headers include
    for d in dict.fromkeys(p.parent for p in op.external_tiling_headers()):
        flags += ["-idirafter", str(d)]
    return flags


def kernel_inputs(op: Operator) -> list[str]:
    """Files the kernel translation unit can see: op_kernel/*, op_host headers (tiling
    data), and any op_host source a kernel file names. A change to an op_host .cpp alone
    therefore recompiles only host objects and relinks."""
    includes = {m for k in op.kernel_files() for m in _INCLUDE.findall(op.files[k])}
    kernel_names = {Path(k).name for k in op.kernel_files()}

    def seen(rel: str) -> bool:  # an op_host source #included by a kernel file
        name = Path(rel).name
        return any(i.endswith("op_host/" + name) or (Path(i).name == name and name not in kernel_names)
                   for i in includes)

    return [k for k in op.files if k.startswith("op_kernel/") or k.endswith((".h", ".hpp")) or seen(k)]


def kernel_defines(op: Operator, dtypes: dict[str, str]) -> list[str]:
    defs = []
    for name, dt in sorted(dtypes.items()):
        info = dtype_info(dt)
        up = re.sub(r"\W", "_", name).upper()
        defs += [f"-DDTYPE_{up}={info.cpp_type}", f"-DORIG_DTYPE_{up}={info.ge_name}"]
        # An output named like an input (a reference parameter) is `<name>_ref` in the kernel.
        if f"{name}_ref" not in dtypes and any(f"DTYPE_{up}_REF" in op.files[k] for k in op.kernel_files()):
            defs += [f"-DDTYPE_{up}_REF={info.cpp_type}", f"-DORIG_DTYPE_{up}_REF={info.ge_name}"]
        # FORMAT_<NAME>: the tensor's ge::Format code, as the device build defines it next to
        # DTYPE_<NAME>; the simulator builds for ND tensors (only when a kernel file names it,
        # so other kernels keep their build keys).
        if any(re.search(rf"\bFORMAT_{up}\b", op.files[k]) for k in op.kernel_files()):
            defs.append(f"-DFORMAT_{up}={GE_MACROS['FORMAT_ND']}")
    return defs


def wrapper(op: Operator, src_dir: Path) -> str:
    lines = ["// generated by ascendopt: kernel translation unit wrapper",
             "#define ASCENDOPT_KERNEL_SIDE 1"]
    for name, code in GE_MACROS.items():
        lines += [f"#ifndef {name}", f"#define {name} {code}", "#endif"]
    lines.append('#include "kernel_operator.h"')
    if op.tiling_struct:  # GET_TILING_DATA's type (defined here, not by -D: see kernel_pch.py)
        lines += ["#undef ASCENDOPT_TILING_STRUCT", f"#define ASCENDOPT_TILING_STRUCT {op.tiling_struct}"]
    usings = []
    headers = [(str(src_dir / h), op.files[h]) for h in op.tiling_headers()]
    headers += [(str(p), p.read_text(errors="replace")) for p in op.external_tiling_headers()]
    # The device build's DT_* macros are kernel-side only: host code such as tiling headers
    # names ge::DT_FLOAT16 / ge::DataType::DT_FLOAT as enumerators.
    for name in GE_MACROS:
        lines += [f'#pragma push_macro("{name}")', f"#undef {name}"]
    if any(_HOST_NAMESPACE_USE.search(text) for _, text in headers):
        # Tiling headers are host code: their host compiles see the gert contexts and the ge
        # types (graph/types.h, through them; ge::AscendString, through op_def_registry.h) in the
        # registry headers the .cpp includes first (real device builds never compile them).
        lines += ['#include "exe_graph/runtime/tiling_context.h"',
                  '#include "exe_graph/runtime/tiling_parse_context.h"', '#include "graph/ascend_string.h"']
    for path, text in headers:
        lines.append(f'#include "{path}"')
        if re.search(r"namespace\s+optiling", text):
            usings += [f"using optiling::{n};" for n in _TILING_DEF.findall(text)]
    lines += [f'#pragma pop_macro("{name}")' for name in GE_MACROS]
    # Kernels name tiling structs unqualified (CANN generates them at global scope); a
    # blanket `using namespace optiling` would make host constants clash with kernel ones.
    lines += ["namespace optiling {}", *dict.fromkeys(usings),
              f"#define {op.kernel_entry} ascendopt_kernel_entry"]
    kernel_text = op.files[op.kernel_file]
    if _CCE_LAUNCH.search(kernel_text):
        # g++ cannot parse the launch syntax: the kernel file's text, lowered, in place.
        lines += ['#include "ascendopt_kernel/cce_launch.h"', f'#line 1 "{src_dir / op.kernel_file}"',
                  lower_cce_launches(kernel_text), '#line 1 "kernel_wrapper.cpp"']
    else:
        lines.append(f'#include "{src_dir / op.kernel_file}"')
    lines += [f"#undef {op.kernel_entry}",
              "#include <utility>",
              "namespace {",
              "template <typename... A> constexpr int AoArity(void (*)(A...)) { return int(sizeof...(A)); }",
              "template <typename... A, std::size_t... I>",
              "void AoInvoke(void (*f)(A...), uint8_t** args, std::index_sequence<I...>) { f(args[I]...); }",
              "template <typename... A>",
              "void AoCall(void (*f)(A...), uint8_t** args) { AoInvoke(f, args, std::index_sequence_for<A...>{}); }",
              "}  // namespace",
              'extern "C" int ascendopt_kernel_arity() { return AoArity(&ascendopt_kernel_entry); }',
              'extern "C" void ascendopt_kernel_launch(uint8_t** args) { AoCall(&ascendopt_kernel_entry, args); }',
              ""]
    return "\n".join(lines)
