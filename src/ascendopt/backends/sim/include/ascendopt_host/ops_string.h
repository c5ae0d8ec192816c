// AscendOptimizer simulator (host side): the toolkit's ops::ToString debug helpers, which
// op_host sources declare themselves and call in their log lines (the toolkit's op-utility
// library defines them). Defined in runtime/host_util.cpp: shapes and lists as "[2, 3, 4]",
// data types and formats by their serial names ("DT_FLOAT", "ND").
#pragma once
#include <string>
#include <vector>

#include "ascendopt_host/gert.h"
#include "graph/types.h"

namespace ops {
std::string ToString(const ge::DataType& type);
std::string ToString(const ge::Format& format);
std::string ToString(const gert::Shape& shape);
std::string ToString(const gert::Shape* shape);
std::string ToString(const std::vector<int64_t>& shape);
std::string ToString(const std::vector<gert::Shape>& shapes);
}  // namespace ops
