"""Compiler output -> causes (no compiler runs: gcc's diagnostics as it prints them)."""

from __future__ import annotations

from pathlib import Path

from ascendopt.compat.causes import classify_compile_error

ROOT = Path("/ops/math/demo")
INC = Path("/sim/include")
KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
namespace {
constexpr int32_t BUFFER_NUM = 2;
__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
}
class KernelDemo {
public:
    __aicore__ inline void Compute() { NotARealApi(x); }
};
"""
FILES = {"op_kernel/demo.cpp": KERNEL, "op_host/demo.cpp": "#include \"demo_tiling.h\"\n",
         "op_host/demo_tiling.h": "BEGIN_TILING_DATA_DEF(DemoTilingData)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"}


def classify(text: str):
    return classify_compile_error(text, ROOT, FILES, INC)


def test_a_qualified_ascendc_name_we_lack_is_named_with_the_first_use():
    c = classify(f"{ROOT}/op_kernel/demo.cpp: In member function ‘void KernelDemo::Compute()’:\n"
                 f"{ROOT}/op_kernel/demo.cpp:9:52: error: ‘NotARealApi’ is not a member of ‘AscendC’\n"
                 "    9 |     AscendC::NotARealApi(x);\n")
    assert c.label == "AscendC API `NotARealApi` is not emulated by the simulator"
    assert (c.origin, c.where) == ("simulator", "op_kernel/demo.cpp:9")
    assert "error:" in c.detail and str(ROOT) not in c.detail


def test_an_unqualified_toolkit_name_in_c_locale_quotes():
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:40: error: 'GatherMask' was not declared in this scope\n")
    assert c.label == "AscendC API `GatherMask` is not emulated by the simulator" and c.origin == "simulator"


def test_a_name_the_operator_declares_itself_is_its_own_error():
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:40: error: ‘CeilDiv’ was not declared in this scope\n")
    assert c.origin == "operator" and "CeilDiv" in c.label and c.where == "op_kernel/demo.cpp:9"


def test_other_namespaces_members_and_undeclared_namespaces():
    c = classify(f"{ROOT}/op_host/demo.cpp:5:20: error: ‘class gert::TilingContext’ has no member named "
                 "‘GetOptionalInputTensor’\n")
    assert c.label == "AscendC API `gert::TilingContext::GetOptionalInputTensor` is not emulated by the simulator"
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:10: error: ‘class AscendC::TBuf<AscendC::TPosition::VECCALC>’ "
                 "has no member named ‘GetWithOffset’\n")
    assert c.label == "AscendC API `TBuf::GetWithOffset` is not emulated by the simulator"
    c = classify(f"{ROOT}/op_host/demo.cpp:1:5: error: ‘AscendC’ has not been declared\n"
                 "    1 |     AscendC::GetSoftMaxMaxTmpSize(shape, 4);\n")
    assert c.label == "AscendC API `GetSoftMaxMaxTmpSize` is not emulated by the simulator"
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:10: error: ‘class KernelDemo’ has no member named ‘Tail’\n")
    assert c.origin == "operator"


def test_headers_toolkit_or_the_operators_own():
    c = classify(f"{ROOT}/op_host/demo_tiling.h:3:10: fatal error: tiling/tiling_base.h: No such file or directory\n"
                 "    3 | #include \"tiling/tiling_base.h\"\ncompilation terminated.\n")
    assert c.label == "header `tiling/tiling_base.h` is not provided by the simulator"
    assert (c.origin, c.where) == ("simulator", "op_host/demo_tiling.h:3")
    c = classify(f"{ROOT}/op_host/demo.cpp:2:10: fatal error: ../common/util.h: No such file or directory\n")
    assert c.origin == "operator" and "util.h" in c.label


def test_an_error_inside_our_headers_points_at_the_operator_line_that_reached_it():
    c = classify(f"In file included from {ROOT}/op_kernel/demo.cpp:1:\n"
                 f"{INC}/ascendopt_kernel/vec.h:40:5: error: static assertion failed: bad dtype\n")
    assert c.origin == "simulator" and c.where == "op_kernel/demo.cpp:1" and "static assertion" in c.label
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:20: error: no matching function for call to "
                 "‘AscendC::Adds(AscendC::LocalTensor<int8_t>&, int)’\n"
                 f"{INC}/ascendopt_kernel/vec.h:12:6: note: candidate: ‘template<class T> void AscendC::Adds(...)’\n")
    assert c.label == "AscendC API `Adds` is emulated, but not for these arguments"


def test_clashes_link_errors_and_operator_syntax():
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:20: error: call of overloaded ‘CeilDiv(uint32_t&, int)’ is ambiguous\n"
                 f"{ROOT}/op_kernel/demo.cpp:5:28: note: candidate: ‘uint32_t CeilDiv(uint32_t, uint32_t)’\n"
                 f"{INC}/ascendopt_kernel/sync.h:125:21: note: candidate: ‘T AscendC::CeilDiv(T, T)’\n")
    assert c.origin == "simulator" and "`CeilDiv`" in c.label
    c = classify("/usr/bin/ld: kernel.o: in function `KernelDemo::Compute()':\n"
                 "kernel.cpp:(.text+0x1c): undefined reference to `AscendC::Fancy(int)'\ncollect2: error: ld returned 1\n")
    assert c.label == "AscendC API `Fancy` is declared but not implemented by the simulator"
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:3: error: expected ‘;’ before ‘}}’ token\n")
    assert c.origin == "operator" and c.label.startswith("operator code: expected")


def test_standard_library_names_the_toolkit_makes_visible():
    c = classify(f"{ROOT}/op_host/demo.cpp:1:14: error: ‘map’ does not name a type\n"
                 "    1 | static const map<ge::DataType, int32_t> M = {\n")
    assert c.origin == "simulator" and c.label.startswith("`map` is used without `std::`")
    c = classify(f"{ROOT}/op_host/demo.cpp:2:6: error: ‘set’ in namespace ‘std’ does not name a template type\n"
                 f"{ROOT}/op_host/demo.cpp:1:1: note: ‘std::set’ is defined in header ‘<set>’; did you forget to "
                 "‘#include <set>’?\n")
    assert c.origin == "simulator" and c.label.startswith("`std::set` needs `<set>`")
    c = classify(f"{ROOT}/op_kernel/demo.cpp:9:5: error: ‘DTYPE_Y_REF’ was not declared in this scope\n")
    assert c.origin == "simulator" and c.label.startswith("build macro `DTYPE_Y_REF`")
