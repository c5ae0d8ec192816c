// AscendOptimizer simulator: helpers for C++ unit tests of emulated APIs.
#pragma once
#include "ascendopt_kernel/runtime.h"

namespace ao::rt {
// Runs fn(arg) on one emulated AI core (Ascend910B2 memory sizes) on the calling thread.
// Simulator errors print "ascendopt-error: <kind>: <message>" to stderr and exit(3).
void RunOnOneCore(void (*fn)(void*), void* arg);
// Registers a GM buffer so that DataCopy/GlobalTensor checks accept it (tests only).
void RegisterGm(const void* base, uint64_t bytes, const char* name);
}  // namespace ao::rt
