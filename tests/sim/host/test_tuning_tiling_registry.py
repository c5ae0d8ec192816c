"""register/tuning_tiling_registry.h (and tuning_bank_key_registry.h, which includes it): a
tuning tiling is a struct of zero-initialised named fields derived from a polymorphic base,
passed around as `TuningTilingDefPtr` and cast back; DECLARE_SCHEMA names its fields;
REGISTER_TUNING_TILING_CLASS maps an operator type to a factory of the class. Also
platform/platform_infos_def.h's global string/map/vector names (the toolkit's header has them
through platform_info_def.h; cann-ops' cube tiling headers write `const string &` in namespace
optiling with only it)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .compile_run import compile_and_run
from .test_host import INCLUDE

PROGRAM = r"""
#include <cstdio>
#include <memory>
#include "register/tuning_bank_key_registry.h"
#include "platform/platform_infos_def.h"

namespace tuningtiling {
BEGIN_TUNING_TILING_DEF(TinyTunnerTiling)
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, m_dim);
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, n_dim);
END_TUNING_TILING_DEF

DECLARE_SCHEMA(TinyTunnerTiling,
  FIELD(TinyTunnerTiling, m_dim),
  FIELD(TinyTunnerTiling, n_dim));

REGISTER_TUNING_TILING_CLASS(TinyOp, TinyTunnerTiling);
}  // namespace tuningtiling

namespace optiling {
static int Len(const string& s, const map<string, vector<int>>& m) { return int(s.size() + m.size()); }
}  // namespace optiling

int main() {
    tuningtiling::TuningTilingDefPtr p = tuningtiling::TuningTilingClassRegistry::Instance().Create("TinyOp");
    auto tiny = std::dynamic_pointer_cast<tuningtiling::TinyTunnerTiling>(p);
    if (!tiny) return 1;
    unsigned zeros = tiny->m_dim + tiny->n_dim;
    tiny->m_dim = 4;
    auto again = std::static_pointer_cast<tuningtiling::TinyTunnerTiling>(p);
    bool none = tuningtiling::TuningTilingClassRegistry::Instance().Create("Other") == nullptr;
    std::printf("%u %u %d %d\n", zeros, again->m_dim, int(none), optiling::Len("ab", {{"x", {1}}}));
    return 0;
}
"""


def test_tuning_tiling_classes_register_and_cast(tmp_path):
    assert compile_and_run(tmp_path, PROGRAM, "tuning").split() == ["0", "4", "1", "3"]


def test_schema_must_name_data_members(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = tmp_path / "bad.cpp"
    src.write_text('#include "register/tuning_tiling_registry.h"\n'
                   "struct NotTuning { int a; };\nDECLARE_SCHEMA(NotTuning, FIELD(NotTuning, a));\n")
    res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{INCLUDE}", str(src)],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "must be a tuning tiling" in res.stderr
