// AscendOptimizer simulator: __BLOCK_LOCAL__, the device compiler's storage class for a global
// variable with one instance per AI core (kernels keep per-core state such as a Matmul callback
// context in one). Each emulated core runs on its own thread for the length of a launch
// (runtime/kernel_rt.cpp), so a thread_local variable is exactly one per core and starts fresh
// with every launch.
#pragma once
#ifndef __BLOCK_LOCAL__
#define __BLOCK_LOCAL__ thread_local
#endif
