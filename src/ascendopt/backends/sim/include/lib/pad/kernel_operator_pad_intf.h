// AscendOptimizer simulator: the pad library API header of the toolkit's lib/ tree. The
// simulator provides no Pad/UnPad yet: a kernel that only includes this header builds, one that
// calls them is reported as using an API the simulator does not emulate.
#pragma once
#include "kernel_operator.h"
