// AscendOptimizer simulator: vector compute APIs (clean-room emulation of the AscendC vector API).
//   vector_core.h    repeat parameters, mask register, repeat/block/mask walker
//   vector_ops.h     Add/Sub/Mul/Div/Max/Min/And/Or, Abs/Exp/Ln/Sqrt/Rsqrt/Reciprocal/Relu/Not,
//                    Adds/Muls/Maxs/Mins/LeakyRelu/ShiftLeft/ShiftRight, Duplicate, Axpy,
//                    Tanh/Sigmoid/Sin/Cos/Erf/Floor/Ceil/Round/Trunc/Log*/Sign/Frac, Power
//   vector_cast.h    Cast with every RoundMode
//   vector_cmpsel.h  Compare, CompareScalar, GetCmpMask/SetCmpMask, Select
//   vector_reduce.h  ReduceSum/Max/Min, WholeReduce*, BlockReduce*, PairReduceSum, Brcb, Gather
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/vector_ops.h"
#include "ascendopt_kernel/vector_cast.h"
#include "ascendopt_kernel/vector_cmpsel.h"
#include "ascendopt_kernel/vector_reduce.h"
