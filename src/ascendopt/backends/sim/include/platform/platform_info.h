// AscendOptimizer simulator (host side): CANN's platform/platform_info.h. Tiling code includes it
// for fe::PlatFormInfos / fe::LocalMemType; both live in platform_infos_def.h.
// The toolkit's header also declares std::map, std::string and std::vector at global scope, and
// tiling code relies on it (unqualified `map<...>` / `vector<...>` in namespace optiling).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "platform/platform_infos_def.h"

using std::map;
using std::string;
using std::vector;
