// AscendOptimizer simulator (host side).
#pragma once
#include "log/ops_log.h"
