// AscendOptimizer simulator (host side): the standard-library instantiations the emulation
// headers use, declared extern here and instantiated once in runtime/host_rt.cpp, so each
// op_host translation unit does not compile its own copy (host-change builds are faster).
#pragma once
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "register/op_def.h"
#include "register/tilingdata_base.h"

extern template class std::vector<ge::Format>;
extern template class std::vector<ge::DataType>;
extern template class std::vector<unsigned long>;
extern template class std::vector<long>;
extern template class std::vector<float>;
extern template class std::vector<std::string>;
extern template class std::vector<ops::AoOpDefEntry>;
extern template class std::map<std::string, ao_tiling::ClassInfo>;
extern template class std::map<std::string, ops::OpAICoreConfig>;
