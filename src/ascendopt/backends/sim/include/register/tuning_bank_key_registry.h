// AscendOptimizer simulator (host side): register/tuning_bank_key_registry.h of the toolkit,
// the AOE knowledge-bank key registries. Tuning tiling headers include it beside
// register/tuning_tiling_registry.h; the simulator has no knowledge bank, so it declares
// nothing more than that header (the bank-key conversion/parse registries are not emulated:
// a source that registers bank keys does not compile, and is reported when an operator needs it).
#pragma once
#include "register/tuning_tiling_registry.h"
