// AscendOptimizer simulator (host side): entry header of op_host code.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>  // the toolkit's registry headers bring it in; host code uses std::cout unasked
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ascendopt_host/gert.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "register/op_def.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "graph/ascend_string.h"
#include "graph/operator.h"
#include "graph/tensor.h"
#include "ascendopt_host/extern_templates.h"
#include "ascendopt_host/ops_string.h"
