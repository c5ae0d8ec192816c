// AscendOptimizer simulator (host side): CANN's platform/platform_info.h. Tiling code includes it
// for fe::PlatFormInfos / fe::LocalMemType; both live in platform_infos_def.h.
#pragma once
#include "platform/platform_infos_def.h"
