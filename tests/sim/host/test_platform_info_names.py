"""platform/platform_info.h makes std::map, std::string and std::vector visible unqualified at
global scope, as the toolkit's header does (and graph/types.h the aliases ge::char_t, float32_t,
float64_t) (cann-ops tiling code writes `map<ge::DataType, int>`
and `vector<int64_t>` in namespace optiling with only that header for them)."""

from __future__ import annotations

from .program import run_program
from .test_host import INCLUDE

PROGRAM = r"""
#include <cstdio>
#include "platform/platform_info.h"
#include "graph/types.h"

namespace optiling {
static const map<int, int> kCount = {{1, 3}, {2, 5}};
int Sum(const vector<int>& v) { int s = 0; for (int x : v) s += x; return s; }
}  // namespace optiling

int main() {
    string name = "ok";
    const ge::char_t* node = "n";
    ge::float32_t f = 0.5f;
    ge::float64_t d = 0.25;
    if (node[0] != 'n' || f + d != 0.75) return 1;
    std::printf("%s %d %d\n", name.c_str(), optiling::kCount.at(2), optiling::Sum({1, 2, 3}));
    return 0;
}
"""


def test_unqualified_std_names_after_platform_info(tmp_path):
    out = run_program(tmp_path, PROGRAM, ["g++", "-std=c++17", "-Wall", "-Werror", f"-I{INCLUDE}"])
    assert out.split() == ["ok", "5", "6"]
