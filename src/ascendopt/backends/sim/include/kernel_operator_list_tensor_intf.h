// AscendOptimizer simulator: the header AscendC documents for ListTensorDesc / TensorDesc.
#pragma once
#include "kernel_operator.h"
