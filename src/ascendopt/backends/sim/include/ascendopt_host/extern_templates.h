// AscendOptimizer simulator (host side): standard-library instantiations that op code builds
// at its call sites (the vectors passed to OpParamDef::DataType/Format, OpAttrDef::ListInt/
// ListFloat, ...), declared extern here and instantiated once in runtime/host_rt.cpp, so each
// op_host translation unit does not compile its own copy (host-change builds are faster).
// The emulation headers' own container code is out of line in host_rt.cpp already.
#pragma once
#include <string>
#include <vector>

#include "graph/types.h"

extern template class std::vector<ge::Format>;
extern template class std::vector<ge::DataType>;
extern template class std::vector<unsigned long>;
extern template class std::vector<long>;
extern template class std::vector<float>;
extern template class std::vector<std::string>;
