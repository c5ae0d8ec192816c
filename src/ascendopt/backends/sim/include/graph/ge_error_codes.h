// AscendOptimizer simulator (host side): graph status codes.
#pragma once
#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;
constexpr graphStatus GRAPH_NODE_WITHOUT_CONST_INPUT = 50331648;
constexpr graphStatus GRAPH_NODE_NEED_REPASS = 50331647;
constexpr graphStatus GRAPH_INVALID_IR_DEF = 50331646;
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFF;
constexpr Status PARAM_INVALID = 0xFFFFFFFE;
}  // namespace ge
