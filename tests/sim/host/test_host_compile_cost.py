"""Compile cost of op_host sources: the host emulation headers must not make every op_host
translation unit instantiate std templates for the emulation's own types.

g++ instantiates every std template that an inline body of a (precompiled) header uses, in
every translation unit, whether or not the op calls that function: when OpDef::Input, the
registries, the gert contexts, ... had inline bodies over std::deque/vector/map/string/
function, each op_host object held ~220 distinct such instantiations (gelu; ~550 weak symbols
in all) and compiled in ~0.5 s instead of ~0.1 s. Those bodies now live in
runtime/host_rt.cpp. These tests count the instantiations with `nm -C`: one over every inline
function of the headers (-fkeep-inline-functions emits them all), and one per real op_host
object compiled exactly like a candidate (SimBuilder.host_compile_cmd, precompiled header).
A failure lists the offenders: define the function that uses them in host_rt.cpp instead.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
INCLUDE = ROOT / "src" / "ascendopt" / "backends" / "sim" / "include"

# Namespaces of the emulation's types (and of the ops' classes: ops::Gelu, optiling::...).
_OURS = re.compile(r"\b(ops|gert|ge|fe|ao_tiling|platform_ascendc|optiling)::")
# Every header an op_host source may include.
HOST_HEADERS = ["register/op_def_registry.h", "register/tilingdata_base.h", "tiling/platform/platform_ascendc.h",
                "graph/utils/type_utils.h", "graph/operator.h", "graph/tensor.h", "graph/shape.h",
                "lib/tiling_api.h", "log/ops_log.h", "error/ops_error.h",
                *sorted(f"exe_graph/runtime/{p.name}" for p in (INCLUDE / "exe_graph" / "runtime").glob("*.h"))]
# Distinct std instantiations of our types allowed. Today: none from the headers, and 8 per op
# (std::allocator<ge::DataType/Format> ctors/dtors, from the braced lists passed to
# DataType({...})/Format({...}) at the op's call sites); before: ~220 per op.
MAX_FROM_HEADERS = 8
MAX_PER_OP = 16

OPS = [ROOT / "ops" / "level1" / "gelu" / "op_host" / "gelu.cpp",
       ROOT / "ops" / "level3" / "matmul_custom" / "op_host" / "matmul_custom.cpp",
       *sorted((HERE / "fixtures" / "row_sum" / "op_host").glob("*.cpp")),
       HERE / "fixtures" / "scale_shift" / "op_host" / "scale_shift.cpp"]


def std_instantiations(obj: Path) -> list[str]:
    """Distinct weak std::/__gnu_cxx:: template instantiations in `obj` that involve our types."""
    out = subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) != 3 or parts[1] not in ("W", "V"):
            continue
        name = parts[2]
        head = name.split("(", 1)[0]  # the entity itself, not its parameter types
        if ("std::" in head or "__gnu_cxx::" in head) and _OURS.search(name):
            found.add(name)
    return sorted(found)


@pytest.fixture(scope="module")
def tools():
    if shutil.which("g++") is None or shutil.which("nm") is None:
        pytest.skip("g++ or nm not available")


def test_header_inline_bodies_instantiate_no_std_templates_of_our_types(tools, tmp_path):
    src = tmp_path / "all_headers.cpp"
    src.write_text("".join(f'#include "{h}"\n' for h in HOST_HEADERS))
    obj = tmp_path / "all_headers.o"
    res = subprocess.run(["g++", "-std=c++17", "-O0", "-w", "-fkeep-inline-functions", f"-I{INCLUDE}", "-c",
                          str(src), "-o", str(obj)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    found = std_instantiations(obj)
    assert len(found) <= MAX_FROM_HEADERS, (
        f"{len(found)} std instantiations of emulation types come from inline bodies in the host headers "
        "(move those bodies to runtime/host_rt.cpp):\n" + "\n".join(found))


@pytest.mark.parametrize("src", OPS, ids=lambda p: p.name)
def test_op_host_object_has_few_std_instantiations(tools, backend, tmp_path, src):
    builder = backend.builder
    obj = tmp_path / (src.stem + ".o")
    res = subprocess.run(builder.host_compile_cmd(src, obj), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    found = std_instantiations(obj)
    assert len(found) <= MAX_PER_OP, (
        f"{src.name}: {len(found)} std instantiations of emulation types (bound {MAX_PER_OP}); the host "
        "headers make op code instantiate them (move the bodies to runtime/host_rt.cpp):\n" + "\n".join(found))
