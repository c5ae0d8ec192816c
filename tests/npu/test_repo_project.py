"""An operator of a repository with shared code (the cann-ops layout) builds on the npu backend
with the repository's conventions: the msOpGen project gets copies of the external files the
operator uses and CMake that puts the repository's include directories, definitions and shared
sources on its compiles (opbuild's, the tiling library's, the kernel's), and the build key covers
those files. The fake build.sh resolves every quoted #include through the search path the
project's CMake sets, as a compiler would. The fixture is our npu_scale rearranged: its tiling
data in ``common/inc``, a helper in a sibling operator's directory (``../../base_op/...``), a
shared tiling source in ``common/src``, its kernel body in a header found by the kernel ``-I``
option of its CMakeLists.txt, a compile definition of the shared header target."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.base import Status
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.operator import Operator
from tests.npu.conftest import NPU_SCALE

DTYPES = {"x": "float", "y": "float"}

OP_CMAKE = """\
add_ops_compile_options(
        OP_NAME NpuScale
        OPTIONS -I${OP_COMMON_DIR}/inc/kernel_tpl
)
target_sources(optiling PRIVATE
        ${OP_COMMON_DIR}/src/shared/scale_util.cpp
)
target_include_directories(optiling PRIVATE
        ${OP_COMMON_DIR}/inc
)
"""

COMMON_CMAKE = """\
add_library(ops_utils_tiling_headers INTERFACE)
target_compile_definitions(ops_utils_tiling_headers INTERFACE
        AO_SCALE_ALIGN=$<IF:$<BOOL:${BUILD_OPEN_PROJECT}>,8,16>
)
"""

UTIL_H = "#pragma once\n#include <cstdint>\nuint32_t AoPerCore(uint32_t blocks, uint32_t cores);\n"
UTIL_CPP = ('#include "shared/scale_util.h"\n'
            "uint32_t AoPerCore(uint32_t blocks, uint32_t cores) { return (blocks + cores - 1) / cores * 8; }\n")
LIMITS_H = "#pragma once\n#define AO_SCALE_MAX_CORES 48\n"


@pytest.fixture
def repo_op(tmp_path) -> Path:
    src = tmp_path / "repo" / "src"
    common = src / "common"
    op = src / "cat" / "npu_scale"
    shutil.copytree(NPU_SCALE, op)
    tiling_h = (op / "op_host" / "npu_scale_tiling.h").read_text()
    (op / "op_host" / "npu_scale_tiling.h").unlink()
    host = (op / "op_host" / "npu_scale.cpp").read_text().replace(
        '#include "npu_scale_tiling.h"\n',
        '#include "shared/npu_scale_tiling.h"\n#include "shared/scale_util.h"\n'
        '#include "../../base_op/op_host/scale_limits.h"\n')
    kernel = (op / "op_kernel" / "npu_scale.cpp").read_text()
    head, entry = kernel.split("class NpuScaleKernel", 1)
    body, entry = entry.split('extern "C"', 1)
    files = {
        common / "inc/shared/npu_scale_tiling.h": tiling_h,
        common / "inc/shared/scale_util.h": UTIL_H,
        common / "inc/kernel_tpl/scale_body.h": "#pragma once\nclass NpuScaleKernel" + body,
        common / "src/shared/scale_util.cpp": UTIL_CPP,
        common / "CMakeLists.txt": COMMON_CMAKE,
        src / "cat/base_op/op_host/scale_limits.h": LIMITS_H,
        op / "CMakeLists.txt": OP_CMAKE,
        op / "op_host/npu_scale.cpp": host,
        op / "op_kernel/npu_scale.cpp": head + '#include "scale_body.h"\n\nextern "C"' + entry,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return op


def test_the_project_builds_with_the_repository_conventions(npu, repo_op):
    op = Operator.load(repo_op)
    b = npu.build(op, DTYPES)
    assert b.ok, b.error
    proj = b.artifact.parents[2] / "project"
    mirror = proj / "ao_repo"
    # the external files the operator reads, at their repository paths
    for rel in ("src/common/inc/shared/npu_scale_tiling.h", "src/common/inc/shared/scale_util.h",
                "src/common/inc/kernel_tpl/scale_body.h", "src/common/src/shared/scale_util.cpp",
                "src/cat/base_op/op_host/scale_limits.h"):
        assert (mirror / rel).read_text() == (repo_op.parents[2] / rel).read_text(), rel
    assert (mirror / "src/cat/npu_scale/op_host").is_dir()  # where relative includes leave from
    conv = (proj / "ao_repo.cmake").read_text()
    assert '"${AO_REPO_DIR}/src/common/inc"' in conv and '"${AO_REPO_DIR}/src/cat/npu_scale/op_host"' in conv
    assert "include_directories(BEFORE ${AO_REPO_HOST_INCLUDES})" in conv
    assert '"AO_SCALE_ALIGN=8"' in conv and "add_compile_definitions(${AO_REPO_HOST_DEFINES})" in conv
    assert '"${AO_REPO_DIR}/src/common/src/shared/scale_util.cpp"' in conv
    top = (proj / "CMakeLists.txt").read_text()
    assert top.index("ao_repo.cmake") > top.index("project(") and top.index("ao_repo.cmake") < top.index(
        "add_subdirectory(op_host)")
    assert "${OPBUILD_OPS_SRC} ${AO_REPO_HOST_FLAGS}" in (proj / "cmake" / "func.cmake").read_text()
    assert "target_sources(cust_optiling PRIVATE ${AO_REPO_HOST_SOURCES})" in (
        proj / "op_host" / "CMakeLists.txt").read_text()
    kernel_cm = (proj / "op_kernel" / "CMakeLists.txt").read_text()
    assert '"-I${AO_REPO_DIR}/src/common/inc/kernel_tpl"' in kernel_cm
    assert '"-iquote${AO_REPO_DIR}/src/common/inc"' in kernel_cm and '"-DAO_SCALE_ALIGN=8"' in kernel_cm
    # and the operator runs
    case = next(c for c in load_op_cases(repo_op) if c.name == "small")
    inputs = make_inputs(case, 1)
    r = npu.run(b, op, case, inputs, timeout_s=30)
    assert r.status == Status.OK, r.message
    np.testing.assert_allclose(r.outputs["y"], inputs["x"] * 3.0, rtol=1e-6)


def test_an_edit_to_an_external_header_reaches_the_key_and_the_build(npu, repo_op):
    a = Operator.load(repo_op)
    key_a = npu.builder.key(a)
    limits = repo_op.parent / "base_op" / "op_host" / "scale_limits.h"
    limits.write_text(LIMITS_H.replace("48", "40"))
    b = Operator.load(repo_op)
    assert a.files == b.files and npu.builder.key(b) != key_a
    built = npu.build(b, DTYPES)
    assert built.ok and (built.artifact.parents[2] / "project/ao_repo/src/cat/base_op/op_host/scale_limits.h"
                         ).read_text() == limits.read_text()
    # the build reads the copy: a header the edited one includes must be there too
    limits.write_text(LIMITS_H + '#include "scale_limits_more.h"\n')
    c = Operator.load(repo_op)
    bad = npu.build(c, DTYPES)
    assert not bad.ok and "fatal error: 'scale_limits_more.h' file not found" in bad.error
    (limits.parent / "scale_limits_more.h").write_text("#pragma once\n")
    d = Operator.load(repo_op)
    assert npu.builder.key(d) != npu.builder.key(c) and npu.build(d, DTYPES).ok


def test_without_a_repository_nothing_is_added(npu):
    b = npu.build(Operator.load(NPU_SCALE), DTYPES)
    assert b.ok, b.error
    proj = b.artifact.parents[2] / "project"
    assert not (proj / "ao_repo.cmake").exists() and "ao_repo" not in (proj / "CMakeLists.txt").read_text()
    assert json.loads((b.artifact.parents[2] / "result.json").read_text())["ok"]
