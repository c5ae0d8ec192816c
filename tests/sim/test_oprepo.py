"""An operator inside a repository with shared code (the cann-ops layout: ``src/common/inc``,
``src/common/src``, per-operator ``CMakeLists.txt``) builds with that repository's conventions:
its OpDef made by a shared macro (no literal ``OP_ADD(`` in op_host/), its tiling function and
tiling data in shared files, its kernel body in a header found through the CMake kernel
``-I`` option, the repository's own ``log/ops_log.h`` winning over the simulator's, and the
compile definitions of the shared header target. The fixture is our scale_copy (y = 2 x)
rearranged that way; it must pass its cases."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator, OperatorError
from ascendopt.oprepo import find_repo

from ..conftest import FIXTURE_OPS

PROTO = """\
#pragma once
#include "register/op_def_registry.h"
#define AO_REPO_PARAM(KIND, NAME) this->KIND(#NAME).ParamType(REQUIRED).DataType(dts).Format(fmts);
#define AO_REPO_OPDEF(NAME, ...)                                              \\
    class Scale##NAME : public OpDef {                                        \\
    public:                                                                   \\
        explicit Scale##NAME(const char* n) : OpDef(n) {                      \\
            std::vector<ge::DataType> dts = {__VA_ARGS__};                    \\
            std::vector<ge::Format> fmts(dts.size(), ge::FORMAT_ND);          \\
            AO_REPO_PARAM(Input, x)                                           \\
            AO_REPO_PARAM(Output, y)                                          \\
            this->AICore().AddConfig("ascend910b");                           \\
        }                                                                     \\
    };                                                                        \\
    OP_ADD(Scale##NAME);
"""

TILING_DEF = """\
#pragma once
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(SharedScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleCopy, SharedScaleTilingData)
}  // namespace optiling
"""

# The repository's own log header: it must be the one the shared source sees.
OPS_LOG = """\
#pragma once
#define AO_REPO_OWN_LOG 1
#define OPS_LOG_E(name, ...) do { } while (0)
"""

TILING_SRC = """\
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "log/ops_log.h"
#include "shared/tiling_def.h"
static_assert(AO_REPO_OWN_LOG == 1, "the repository's log/ops_log.h must win");
static_assert(AO_REPO_TILE == 1024, "compile definitions of the shared header target");
namespace optiling {
static ge::graphStatus SharedTiling(gert::TilingContext* context) {
    SharedScaleTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNum();
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t blocks = (total + 7) / 8;
    uint32_t useCores = blocks < cores ? blocks : cores;
    uint32_t perCore = (blocks + useCores - 1) / useCores * 8;
    useCores = (total + perCore - 1) / perCore;
    tiling.set_totalLength(total);
    tiling.set_perCore(perCore);
    tiling.set_tileLength(AO_REPO_TILE);
    context->SetBlockDim(useCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    if (total == 0) OPS_LOG_E(context, "empty");
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(ScaleCopy).Tiling(SharedTiling);
}  // namespace optiling
"""

COMMON_CMAKE = """\
add_library(ops_utils_tiling_headers INTERFACE)
target_compile_definitions(ops_utils_tiling_headers INTERFACE
        AO_REPO_TILE=$<IF:$<BOOL:${BUILD_OPEN_PROJECT}>,1024,8>
)
"""

OP_CMAKE = """\
add_ops_compile_options(
        OP_NAME ScaleCopy
        OPTIONS -I${OP_COMMON_DIR}/inc/kernel_tpl
                --cce-auto-sync=on
)
target_sources(optiling PRIVATE
        ${OP_COMMON_DIR}/src/shared/tiling_func.cpp
)
target_include_directories(optiling PRIVATE
        ${OP_COMMON_DIR}/inc
)
"""


def _kernel_parts() -> tuple[str, str]:
    """The fixture kernel split into a shared body header and the entry file."""
    text = (FIXTURE_OPS / "scale_copy" / "op_kernel" / "scale_copy.cpp").read_text()
    head, entry = text.split('extern "C"', 1)
    body = "#pragma once\n" + head
    return body, '#include "kernel_operator.h"\n#include "scale_body.h"\n\nextern "C"' + entry


@pytest.fixture(scope="module")
def repo_op(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("repo") / "src"
    common = src / "common"
    body, entry = _kernel_parts()
    files = {
        common / "inc/shared/proto.h": PROTO,
        common / "inc/shared/tiling_def.h": TILING_DEF,
        common / "inc/log/ops_log.h": OPS_LOG,
        common / "inc/kernel_tpl/scale_body.h": body,
        common / "src/shared/tiling_func.cpp": TILING_SRC,
        common / "CMakeLists.txt": COMMON_CMAKE,
        src / "cat/scale_copy/CMakeLists.txt": OP_CMAKE,
        src / "cat/scale_copy/op_host/scale_copy.cpp":
            '#include "shared/proto.h"\nnamespace ops {\nAO_REPO_OPDEF(Copy, ge::DT_FLOAT)\n}\n',
        src / "cat/scale_copy/op_kernel/scale_copy.cpp": entry,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    shutil.copytree(FIXTURE_OPS / "scale_copy" / "tests", src / "cat/scale_copy/tests")
    return src / "cat/scale_copy"


def test_conventions_read_from_the_tree(repo_op):
    repo = find_repo(repo_op)
    common = repo_op.parent.parent / "common"
    assert repo is not None and repo.src == repo_op.parent.parent.resolve()
    assert repo.host_include_dirs == (common.resolve() / "inc",)
    assert repo.kernel_include_dirs == (common.resolve() / "inc/kernel_tpl",)
    assert repo.host_sources == (common.resolve() / "src/shared/tiling_func.cpp",)
    assert repo.host_defines == ("AO_REPO_TILE=1024",)
    assert find_repo(FIXTURE_OPS / "scale_copy") is None


def test_macro_registration_tiling_struct_and_external_files(repo_op):
    op = Operator.load(repo_op)
    assert "OP_ADD(" not in "".join(op.files.values())
    assert op.op_type == "ScaleCopy"
    assert op.kernel_file == "op_kernel/scale_copy.cpp"
    assert op.tiling_struct == "SharedScaleTilingData"
    from ascendopt.backends.sim.opdef_scan import opdef_dtypes

    assert opdef_dtypes(op) == {"x": ["DT_FLOAT"], "y": ["DT_FLOAT"]}  # through the `dts` variable
    names = sorted(p.name for p in op.external_files())
    assert names == ["ops_log.h", "proto.h", "scale_body.h", "tiling_def.h", "tiling_func.cpp"]


def test_no_registration_at_all_is_still_an_error(repo_op, tmp_path):
    shutil.copytree(repo_op, tmp_path / "op")
    bad = tmp_path / "op"
    (bad / "op_host/scale_copy.cpp").write_text('#include "shared/proto.h"\n// AO_REPO_OPDEF(Copy, ge::DT_FLOAT)\n')
    with pytest.raises(OperatorError, match="no OpDef registration"):
        Operator.load(bad)


def test_builds_and_passes_its_cases(backend, repo_op):
    op = Operator.load(repo_op)
    cases = load_op_cases(repo_op)
    results = check_operator(backend, op, cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:2000] for r in results]


def test_digest_and_build_key_follow_the_shared_files(backend, repo_op, tmp_path):
    work = tmp_path / "src"
    shutil.copytree(repo_op.parent.parent, work)
    op_dir = work / "cat/scale_copy"
    a = Operator.load(op_dir)
    body = work / "common/inc/kernel_tpl/scale_body.h"
    body.write_text(body.read_text() + "\n// edited\n")
    b = Operator.load(op_dir)
    assert a.files == b.files and a.digest != b.digest
    # an unrelated file of the shared tree changes nothing
    (work / "common/inc/unused.h").write_text("#pragma once\n")
    assert Operator.load(op_dir).digest == b.digest
    # an operator that uses no shared file keeps the digest of its sources alone
    plain = Operator.load(FIXTURE_OPS / "scale_copy")
    shutil.copytree(FIXTURE_OPS / "scale_copy", work / "cat/plain")
    assert Operator.load(work / "cat/plain").digest == plain.digest
    ra, rb = backend.build(a, {"x": "float32", "y": "float32"}), backend.build(b, {"x": "float32", "y": "float32"})
    assert ra.ok and rb.ok and ra.key != rb.key


def test_only_the_host_sources_its_cmake_builds(backend, repo_op, tmp_path):
    # The operator's CMakeLists names its own host sources: a stale unlisted copy (it would not
    # compile) is not built; aclnn sources (opapi) do not count; a glob variable means unknown.
    work = tmp_path / "src"
    shutil.copytree(repo_op.parent.parent, work)
    op_dir = work / "cat/scale_copy"
    cm = op_dir / "CMakeLists.txt"
    cm.write_text(cm.read_text() + "target_sources(opsproto PRIVATE\n        op_host/scale_copy.cpp\n)\n"
                  "target_sources(opapi PRIVATE\n        op_host/stale.cc\n)\n")
    (op_dir / "op_host/stale.cc").write_text('#include "op_log.h"\nthis does not compile;\n')
    assert find_repo(op_dir).host_own_sources == ("op_host/scale_copy.cpp",)
    op = Operator.load(op_dir)
    results = check_operator(backend, op, load_op_cases(op_dir), cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(results), [r.message[:2000] for r in results]
    cm.write_text(cm.read_text() + "target_sources(optiling PRIVATE\n        ${EXTRA_SRC_FILES}\n)\n")
    assert find_repo(op_dir).host_own_sources == ()


def test_a_macro_made_op_type_is_resolved_once_at_load_and_never_by_the_property(repo_op, monkeypatch):
    """Issue 33: the type is known without a compiler run from a property. Operator.load
    resolves it (preprocessing, once); candidates made from the operator and copies shipped to
    worker processes have it; an operator made from bare sources elsewhere says so."""
    import pickle

    from ascendopt.backends.sim import opdef_scan
    from ascendopt.operator import OperatorError

    op = Operator.load(repo_op)

    def no_compiler(*a, **k):
        raise AssertionError("the property ran the OpDef scan")

    monkeypatch.setattr(opdef_scan, "registered_op_types", no_compiler)
    rel = op.kernel_file
    cand = op.with_file(rel, op.files[rel] + "\n// a candidate\n")
    assert cand.op_type == "ScaleCopy" and pickle.loads(pickle.dumps(cand)).op_type == "ScaleCopy"
    with pytest.raises(OperatorError, match="written literally"):
        _ = Operator.from_files("elsewhere", dict(op.files), root=repo_op.parent / "not_loaded").op_type
