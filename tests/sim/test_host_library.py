"""A host tiling library that an operator's CMakeLists adds by ``file(GLOB_RECURSE ...)`` is
linked as the shared library it is in the real build: the objects the tiling references are
linked (the operator gets its tile length from the library), and so is every other object that
compiles and resolves, so a static registration in an object nothing references runs (the
operator finds its tile rule in a registry that way, as matmul finds its GEMM estimators). A
library source that does not compile, or whose object references a symbol the simulator does
not define, and that the operator does not need is left out. When the operator does need a
source that did not compile, the build fails and its report shows that source's compile error.
A sibling operator's sources stay linked by need: their registrations do not run. The fixture is
our scale_copy (y = 2 x) inside a small repository tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

OP_CMAKE = """\
file(GLOB_RECURSE LIB_SRCS "../../common/op_host/lib/*.cc")
target_sources(optiling PRIVATE
        op_host/scale_copy.cpp
        ${LIB_SRCS}
)
target_include_directories(optiling PRIVATE
        ${CMAKE_CURRENT_SOURCE_DIR}/../../common/op_host/lib
)
"""

LIB = {
    "tile.h": "#pragma once\n#include <cstdint>\nnamespace lib { uint32_t TileLength(uint32_t total); "
              "uint32_t Unbuildable(); }\n",
    # used by the tiling: the tile length comes from here
    "sub/tile.cc": '#include "tile.h"\nnamespace lib {\n'
                   "uint32_t TileLength(uint32_t total) { return total < 512 ? 256 : 512; }\n}\n",
    # not used, and uses a toolkit API the simulator lacks: must not matter
    "sub/bank.cc": '#include "tile.h"\n#include "register/no_such_toolkit_header.h"\n'
                   "namespace lib { uint32_t Unbuildable() { return 1; } }\n",
    # a registry of tile rules (a function-local static, as GemmEstimateCreateMgr's)
    "rule.h": "#pragma once\n#include <cstdint>\n#include <map>\nnamespace lib {\nusing Rule = uint32_t (*)(uint32_t);\n"
              "inline std::map<int, Rule>& Rules() { static std::map<int, Rule> m; return m; }\n"
              "struct RuleReg { RuleReg(int k, Rule r) { Rules()[k] = r; } };\n}\n",
    # a rule registered by a static initializer in an object nothing references
    "est/half_rule.cc": '#include "rule.h"\nnamespace {\n'
                        "uint32_t Half(uint32_t total) { return total < 1024 ? 256 : 512; }\n"
                        "lib::RuleReg g_half(1, Half);\n}\n",
    # compiles, but references a symbol nothing defines (an AOE hook into the toolkit): left out
    "est/hook.cc": "int NoSuchToolkitHook();\nnamespace { int g_hook = NoSuchToolkitHook(); }\n",
}


@pytest.fixture(scope="module")
def lib_op(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("repo") / "src"
    (src / "common/inc").mkdir(parents=True)
    for rel, text in LIB.items():
        (src / "common/op_host/lib" / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / "common/op_host/lib" / rel).write_text(text)
    op_dir = src / "cat/scale_copy"
    shutil.copytree(FIXTURE_OPS / "scale_copy", op_dir)
    (op_dir / "CMakeLists.txt").write_text(OP_CMAKE)
    host = op_dir / "op_host/scale_copy.cpp"
    text = host.read_text().replace('#include "scale_copy_tiling.h"', '#include "scale_copy_tiling.h"\n#include "tile.h"')
    host.write_text(text.replace("uint32_t tileLength = 1024;", "uint32_t tileLength = lib::TileLength(total);"))
    return op_dir


def test_library_objects_linked_by_need(backend, lib_op):
    op = Operator.load(lib_op)
    assert len(op.repo.host_library_sources) == 4
    assert op.repo.host_library_kept == op.repo.host_library_sources
    cases = load_op_cases(lib_op)
    results = check_operator(backend, op, cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:2000] for r in results]


def test_a_registration_nothing_references_runs(backend, lib_op, tmp_path):
    # quant_batch_matmul_v3's tiling looks up the estimator that cache_tiling_basic_block_est.cc
    # registers (REG_GEMM_ESTIMATE_FUNC); linked by need, that object was dropped and the tiling
    # dereferenced a null factory.
    work = tmp_path / "src"
    shutil.copytree(lib_op.parent.parent, work)
    host = work / "cat/scale_copy/op_host/scale_copy.cpp"
    text = host.read_text().replace('#include "tile.h"', '#include "tile.h"\n#include "rule.h"')
    host.write_text(text.replace("uint32_t tileLength = lib::TileLength(total);",
                                 "auto rule = lib::Rules().find(1);\n"
                                 "    if (rule == lib::Rules().end()) return ge::GRAPH_FAILED;\n"
                                 "    uint32_t tileLength = rule->second(total);"))
    op = Operator.load(host.parent.parent)
    results = check_operator(backend, op, load_op_cases(host.parent.parent), cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(results), [r.message[:2000] for r in results]


def test_link_keeping_drops_the_objects_a_failed_link_names(tmp_path):
    from ascendopt.backends.sim.host_library import link_keeping

    a, b, c = (tmp_path / f"{n}/lib.o" for n in "abc")
    tried: list[list] = []

    def link(kept):  # b references a symbol nothing defines; the link fails while b is in
        tried.append(list(kept))
        return f"ld: {b}: in function `f': undefined reference to `g'" if b in kept else ""

    assert link_keeping(link, [a, b, c]) == "" and tried == [[a, b, c], [a, c]]
    tried.clear()  # a failure naming no kept object: once more with none (the archive alone)
    assert link_keeping(lambda kept: tried.append(list(kept)) or ("ld: libtiling.a(lib.o): undefined" if kept else ""),
                        [a, c]) == ""
    assert tried == [[a, c], []]


def test_a_needed_source_that_does_not_compile_is_reported(backend, lib_op, tmp_path):
    work = tmp_path / "src"
    shutil.copytree(lib_op.parent.parent, work)
    host = work / "cat/scale_copy/op_host/scale_copy.cpp"
    host.write_text(host.read_text().replace("lib::TileLength(total)", "lib::Unbuildable() * 256"))
    res = backend.build(Operator.load(host.parent.parent), {"x": "float32", "y": "float32"})
    assert not res.ok
    assert "lib::Unbuildable()" in res.error and "undefined reference" in res.error
    assert "sub/bank.cc" in res.error and "no_such_toolkit_header.h" in res.error


SIBLING = {
    "CMakeLists.txt": "target_sources(optiling PRIVATE\n        op_host/helper_tiling.cpp\n        op_host/sib_tiling.cpp\n)\n",
    "op_host/helper_tiling.h": "#pragma once\n#include <cstdint>\nnamespace sib { struct Tiler { virtual ~Tiler() = default; "
                               "virtual uint32_t Tile(uint32_t total) const; }; }\n",
    "op_host/helper_tiling.cpp": '#include "helper_tiling.h"\nnamespace sib {\n'
                                 "uint32_t Tiler::Tile(uint32_t total) const { return total < 512 ? 128 : 256; }\n}\n",
    # the sibling's own registration: not referenced, so not linked
    "op_host/sib_tiling.cpp": "#include <cstdlib>\nnamespace { struct Reg { Reg() { std::abort(); } } g_reg; }\n",
}


def test_a_sibling_operators_tiling_sources_are_linked_by_need(backend, lib_op, tmp_path):
    # cann-ops builds one tiling library of all operators: gemm_v2 uses mat_mul_v3's
    # MatmulV3BaseTiling through "../../mat_mul_v3/op_host/mat_mul_v3_base_tiling.h".
    work = tmp_path / "src"
    shutil.copytree(lib_op.parent.parent, work)
    for rel, text in SIBLING.items():
        (work / "cat/sib_op" / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / "cat/sib_op" / rel).write_text(text)
    host = work / "cat/scale_copy/op_host/scale_copy.cpp"
    text = host.read_text().replace('#include "tile.h"', '#include "tile.h"\n#include "../../sib_op/op_host/helper_tiling.h"')
    host.write_text(text.replace("lib::TileLength(total)", "sib::Tiler().Tile(total)"))
    op = Operator.load(host.parent.parent)
    assert [p.name for p in op.repo.host_library_sources][-2:] == ["helper_tiling.cpp", "sib_tiling.cpp"]
    results = check_operator(backend, op, load_op_cases(host.parent.parent), cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(results), [r.message[:2000] for r in results]


def test_tiling_header_with_a_package_header_builds_in_the_kernel_too(backend, lib_op, tmp_path):
    # The kernel build includes the operator's tiling headers; quant_batch_matmul_v3's include
    # the cube tiling library's headers, which include <nlohmann/json.hpp> (host_packages).
    from ascendopt.backends.sim import host_packages

    if not host_packages.include_dirs():
        pytest.skip("the nlohmann-json package is not installed")
    work = tmp_path / "src"
    shutil.copytree(lib_op.parent.parent, work)
    hdr = work / "cat/scale_copy/op_host/scale_copy_tiling.h"
    hdr.write_text(hdr.read_text().replace('#include "register/tilingdata_base.h"',
                                           '#include "register/tilingdata_base.h"\n#include <nlohmann/json.hpp>', 1))
    assert "nlohmann" in hdr.read_text()
    op = Operator.load(hdr.parent.parent)
    results = check_operator(backend, op, load_op_cases(hdr.parent.parent), cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(results), [r.message[:2000] for r in results]
