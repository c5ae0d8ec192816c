"""An operator's CMakeLists may take its tiling library's sources from ``file(GLOB ...)`` /
``file(GLOB_RECURSE ...)`` (cann-ops' matmul family pulls the whole shared host tiling
library that way): the scanner expands the patterns against the tree (relative to the
CMakeLists directory) and the ``${VAR}`` in ``target_sources(optiling ...)`` stands for the
files found; aclnn / level-0 sources among them are not tiling code and are left out."""

from __future__ import annotations

from pathlib import Path

from ascendopt.oprepo import find_repo, glob_variables

OP_CMAKE = """\
file(GLOB_RECURSE LIB_SRCS
    "../../common/op_host/lib/*.cc"
)
file(GLOB TOP_ONLY CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/../../common/op_host/lib/*.cc)
file(GLOB REL_HDRS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} "op_kernel/*.h")
target_sources(optiling PRIVATE
        op_host/tiny_tiling.cpp
        ${LIB_SRCS}
)
target_sources(opapi PRIVATE
        op_host/aclnn_tiny.cpp
)
"""


def _tree(root: Path) -> Path:
    files = {
        "src/common/inc/keep.h": "#pragma once\n",
        "src/common/op_host/lib/a.cc": "int a() { return 1; }\n",
        "src/common/op_host/lib/sub/b.cc": "int b() { return 2; }\n",
        "src/common/op_host/lib/sub/deeper/c.cc": "int c() { return 3; }\n",
        "src/common/op_host/lib/sub/not_a_source.h": "#pragma once\n",
        "src/common/op_host/lib/sub/tiny_l0.cc": "int l0() { return 0; }\n",
        "src/common/op_host/lib/graph_user.cc": '#include "opdev/op_executor.h"\nint g() { return 0; }\n',
        "src/cat/tiny/CMakeLists.txt": OP_CMAKE,
        "src/cat/tiny/op_host/tiny_tiling.cpp": "// tiling\n",
        "src/cat/tiny/op_host/aclnn_tiny.cpp": "// aclnn\n",
        "src/cat/tiny/op_kernel/tiny.cpp": "// kernel\n",
        "src/cat/tiny/op_kernel/tiny_body.h": "#pragma once\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "src/cat/tiny"


def test_glob_variables_follow_cmake_semantics(tmp_path):
    op_dir = _tree(tmp_path)
    lib = (tmp_path / "src/common/op_host/lib").resolve()
    got = glob_variables(OP_CMAKE, tmp_path / "src", op_dir)
    # GLOB_RECURSE: the name pattern in the directory and every one below it, sorted
    assert [Path(p) for p in got["LIB_SRCS"]] == [lib / "a.cc", lib / "graph_user.cc", lib / "sub/b.cc",
                                                   lib / "sub/deeper/c.cc", lib / "sub/tiny_l0.cc"]
    # GLOB: that directory only; options do not count as patterns
    assert [Path(p) for p in got["TOP_ONLY"]] == [lib / "a.cc", lib / "graph_user.cc"]
    # RELATIVE: paths relative to the given directory
    assert got["REL_HDRS"] == ["op_kernel/tiny_body.h"]


def test_target_sources_variable_expands_to_shared_tiling_sources(tmp_path):
    op_dir = _tree(tmp_path)
    lib = (tmp_path / "src/common/op_host/lib").resolve()
    repo = find_repo(op_dir)
    assert repo is not None
    # the level-0 source (by name) and the one including an opdev/ header are not tiling code
    assert repo.host_library_sources == (lib / "a.cc", lib / "sub/b.cc", lib / "sub/deeper/c.cc")
    assert repo.host_sources == ()  # those named one by one
    # the operator's own list is known now (before, a variable made it unknown: empty)
    assert repo.host_own_sources == ("op_host/tiny_tiling.cpp",)


def test_an_unknown_variable_still_means_unknown_own_sources(tmp_path):
    op_dir = _tree(tmp_path)
    cm = op_dir / "CMakeLists.txt"
    cm.write_text(cm.read_text() + "target_sources(optiling PRIVATE\n        ${SET_ELSEWHERE}\n)\n")
    assert find_repo(op_dir).host_own_sources == ()
