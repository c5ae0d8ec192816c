// AscendOptimizer simulator (host side).
#pragma once
#include "ascendopt_host/gert.h"
